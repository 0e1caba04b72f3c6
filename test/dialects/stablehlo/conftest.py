"""Fixtures shared by the StableHLO dialect tests: parse and print helpers and
the JAX-exported example programs (``examples/stablehlo/*.mlir``).

Helpers are fixtures because pytest runs with ``--import-mode=importlib``,
under which test modules cannot import a sibling helper module.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, linalg
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from sbpc.dialects import stablehlo as shlo

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
PROGRAMS = ("mlp", "transformer_block", "train_step")


def make_context() -> Context:
    ctx = Context()
    for dialect in (builtin.Builtin, func.Func, arith.Arith, linalg.Linalg):
        ctx.load_dialect(dialect)
    ctx.load_dialect(shlo.StableHLO)
    return ctx


def _parse(text: str, verify: bool = True) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    if verify:
        module.verify()
    return module


def _show(module: Operation, generic: bool = False) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue()


def _stablehlo_lines(text: str) -> list[str]:
    """The lines of stablehlo ops (and reducer bodies), SSA names erased.

    xDSL names values its own way (``%0, %1 = `` where MLIR writes ``%0:2 =``,
    ``%cst_1`` for ``%cst_0``); the ops themselves must read exactly as JAX
    printed them.
    """
    lines = []
    for line in text.splitlines():
        line = line.strip()
        if "stablehlo." in line or line.startswith("reducer"):
            line = re.sub(r"%[\w.$-]+(#\d+)?", "%_", line)
            line = re.sub(r"^%_(, %_)*(:\d+)? = ", "", line)
            lines.append(line)
    return lines


def _one_op(text: str) -> Operation:
    """The first stablehlo op of a module parsed from ``text``."""
    module = _parse(text)
    return next(op for op in module.walk() if op.name.startswith("stablehlo."))


def _expect_verify_error(op_text: str, message: str | None) -> None:
    """``op_text`` in a function of ``%a: 8x16``, ``%b: 16x8``, ``%s: f32``
    fails to verify with ``message`` (a regex), or verifies when None."""
    text = (
        "func.func @f(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>, %s: tensor<f32>) {\n"
        f"  {op_text}\n  return\n}}"
    )
    module = _parse(text, verify=False)
    if message is None:
        module.verify()
        return
    with pytest.raises(VerifyException, match=message):
        module.verify()


@pytest.fixture
def parse() -> Callable[..., ModuleOp]:
    return _parse


@pytest.fixture
def show() -> Callable[..., str]:
    return _show


@pytest.fixture
def stablehlo_lines() -> Callable[[str], list[str]]:
    return _stablehlo_lines


@pytest.fixture
def one_op() -> Callable[[str], Operation]:
    return _one_op


@pytest.fixture
def expect_verify_error() -> Callable[[str, str | None], None]:
    return _expect_verify_error


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test taking ``invalid_op`` runs once per (op text, message) of its
    module's ``INVALID`` list."""
    if "invalid_op" in metafunc.fixturenames:
        metafunc.parametrize("invalid_op", metafunc.module.INVALID)


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES


@pytest.fixture(scope="module", params=PROGRAMS)
def program(request) -> tuple[str, str]:
    """(name, text) of each JAX-exported example program."""
    path = EXAMPLES / "stablehlo" / f"{request.param}.mlir"
    return request.param, path.read_text()
