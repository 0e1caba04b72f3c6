"""Fixtures shared by the sbp dialect tests: parsing, printing and the text of
small modules.

Helpers are fixtures because pytest runs with ``--import-mode=importlib``,
under which test modules cannot import a sibling helper module.
"""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from sbpc.dialects.sbp import SBP

# A module every annotation of which is valid.
GOOD = """
module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>},
               %b: tensor<8x16xf32>,
               %c: tensor<4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>,
                                  sbp.placement = #sbp.placement<cuda, [4, 5]>})
      -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>}, tensor<4xf32>) {
    %0 = arith.addf %a, %b {sbp.sig = #sbp.sig<([S(0), B], [S(0), B]) -> ([S(0), B])>} : tensor<8x16xf32>
    %1 = sbp.local_slice %0 dims [1] from [S(0), B] to [S(0), S(1)] : tensor<8x16xf32>
    %2 = arith.addf %c, %c {sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([B])>} : tensor<4xf32>
    func.return %1, %2 : tensor<8x16xf32>, tensor<4xf32>
  }
}
"""


def _ctx() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Arith, SBP):
        ctx.load_dialect(dialect)
    return ctx


def _helper(fn: Callable[..., Any]) -> Any:
    """Make ``fn`` a fixture of its own name whose value is ``fn`` itself."""
    return pytest.fixture(name=fn.__name__)(lambda: fn)


@_helper
def attr(text: str) -> Attribute:
    return Parser(_ctx(), text).parse_attribute()


@_helper
def module(text: str) -> ModuleOp:
    return Parser(_ctx(), text).parse_module()


@_helper
def line_col(err: ParseError) -> tuple[int, int]:
    loc = err.span.get_location()
    return loc.line, loc.col


@_helper
def pretty(op: Operation) -> str:
    out = StringIO()
    Printer(stream=out).print_op(op)
    return out.getvalue()


@_helper
def generic(op: Operation) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=True).print_op(op)
    return out.getvalue()


@_helper
def in_func(
    body: str, placement: str = "cuda, [[0, 1], [2, 3]]", args: str = ""
) -> str:
    """A module with a default placement and one func holding ``body``."""
    args = args or "%x: tensor<8x16xf32>"
    head = (
        f"module attributes {{sbp.placement = #sbp.placement<{placement}>}}"
        if placement
        else "module"
    )
    return f"{head} {{\n  func.func @f({args}) {{\n{body}\n    func.return\n  }}\n}}"


@pytest.fixture
def good() -> str:
    """The text of a module whose every annotation is valid."""
    return GOOD
