"""StableHLO ops JAX emits that sbpc does not handle, named so that a program
using them stops with a clear, located error rather than "not registered".

``jnp.fft.*`` lowers to ``stablehlo.fft`` on complex tensors, ``jnp.real`` /
``jnp.imag`` to ``stablehlo.real`` / ``imag``; ``jnp.linalg.cholesky`` and
``jax.scipy.linalg.solve_triangular`` to ``stablehlo.cholesky`` /
``triangular_solve`` (or, on CPU and GPU, a ``stablehlo.custom_call`` of a
LAPACK/cuSOLVER kernel).  sbpc has no complex element types and no rules for
these: the pretty form fails to parse at the op, the generic form fails to
verify, both saying so.
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


_COMPLEX = "complex numbers have no SBP rules, reference or JAX lowering"
_LINALG = "no SBP rules, reference or JAX lowering for matrix factorisations"


@irdl_op_definition
class FftOp(UnsupportedOp):
    name = "stablehlo.fft"
    WHY: ClassVar[str] = _COMPLEX


@irdl_op_definition
class RealOp(UnsupportedOp):
    name = "stablehlo.real"
    WHY: ClassVar[str] = _COMPLEX


@irdl_op_definition
class ImagOp(UnsupportedOp):
    name = "stablehlo.imag"
    WHY: ClassVar[str] = _COMPLEX


@irdl_op_definition
class ComplexOp(UnsupportedOp):
    name = "stablehlo.complex"
    WHY: ClassVar[str] = _COMPLEX


@irdl_op_definition
class CholeskyOp(UnsupportedOp):
    name = "stablehlo.cholesky"
    WHY: ClassVar[str] = _LINALG


@irdl_op_definition
class TriangularSolveOp(UnsupportedOp):
    name = "stablehlo.triangular_solve"
    WHY: ClassVar[str] = _LINALG


UNSUPPORTED_OPS: tuple[type[UnsupportedOp], ...] = (
    FftOp,
    RealOp,
    ImagOp,
    ComplexOp,
    CholeskyOp,
    TriangularSolveOp,
)
