"""StableHLO ops JAX emits that sbpc does not handle, named so that a program
using them stops with a clear, located error rather than "not registered".

``jnp.linalg.cholesky`` and ``jax.scipy.linalg.solve_triangular`` lower to
``stablehlo.cholesky`` / ``triangular_solve`` (or, on CPU and GPU, a
``stablehlo.custom_call`` of a LAPACK/cuSOLVER kernel).  sbpc has no rules
for these: the pretty form fails to parse at the op, the generic form fails
to verify, both saying so.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException


class UnsupportedOp(IRDLOperation):
    """An op sbpc recognises only to refuse it."""

    WHY: ClassVar[str]

    inputs = var_operand_def()
    outputs = var_result_def()
    regions_ = var_region_def()

    @classmethod
    def parse(cls, parser: Parser) -> UnsupportedOp:
        # Point at the op name the parser just read (pos is past the spaces after it).
        start = parser.lexer.input.content.rfind(cls.name, 0, parser.pos)
        start = parser.pos if start < 0 else start
        parser.raise_error(cls.message(), start, start + len(cls.name))

    @classmethod
    def message(cls) -> str:
        return f"{cls.name} is not supported by sbpc: {cls.WHY}"

    def verify_(self) -> None:
        raise VerifyException(self.message())


_LINALG = "no SBP rules, reference or JAX lowering for matrix factorisations"


def _unsupported(name: str, why: str) -> type[UnsupportedOp]:
    """The op class of ``name``: it parses only to refuse, saying ``why``."""
    words = name.removeprefix("stablehlo.").split("_")
    cls_name = "".join(w.title() for w in words) + "Op"
    namespace = {"name": name, "WHY": why, "__annotations__": {"WHY": "ClassVar[str]"}}
    return irdl_op_definition(type(cls_name, (UnsupportedOp,), namespace))


CholeskyOp = _unsupported("stablehlo.cholesky", _LINALG)
TriangularSolveOp = _unsupported("stablehlo.triangular_solve", _LINALG)


UNSUPPORTED_OPS: tuple[type[UnsupportedOp], ...] = (
    CholeskyOp,
    TriangularSolveOp,
)
