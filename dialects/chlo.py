"""The elementwise CHLO ops that JAX 0.10.2 emits, as an xDSL dialect.

JAX lowers some ``jax.lax`` primitives to CHLO ("client HLO") rather than
StableHLO; XLA expands them later.  Real programs therefore contain them, e.g.
``jnp.var`` and ``x ** 2`` through ``lax.square``.  What emits each op (found
by lowering with ``jax.jit(f).lower(x).as_text()`` and reading
``jax/_src/lax/{lax,special}.py``):

=================  =========================================================
op                 emitted by
=================  =========================================================
``chlo.square``    ``lax.square``, ``jnp.square``, ``x ** 2``, ``jnp.var``,
                   ``jnp.std``, ``jax.scipy.special.ndtri`` (floats only:
                   integer squares lower to ``stablehlo.multiply``)
``chlo.erf``       ``lax.erf``, ``jax.scipy.special.erf``
``chlo.erfc``      ``lax.erfc``, ``jax.scipy.special.erfc``,
                   ``jax.nn.gelu(approximate=False)``
``chlo.erf_inv``   ``lax.erf_inv``, ``jax.scipy.special.erfinv``
``chlo.sinh``      ``lax.sinh``, ``jnp.sinh``; likewise ``cosh``, ``asin``
                   (``jnp.arcsin``), ``acos``, ``atan``, ``asinh``, ``acosh``,
                   ``atanh``
``chlo.lgamma``    ``lax.lgamma``, ``jax.scipy.special.gammaln``,
                   ``gammainc`` / ``lax.igamma`` (inside their expansion)
``chlo.digamma``   ``lax.digamma``, ``jax.scipy.special.digamma``
``chlo.bessel_i1e``  ``lax.bessel_i1e`` (``bessel_i0e`` is expanded by JAX)
``chlo.next_after``  ``lax.nextafter``, ``jnp.nextafter``
``chlo.polygamma``   ``lax.polygamma``, ``jax.scipy.special.polygamma``
``chlo.zeta``      ``lax.zeta``, ``jax.scipy.special.zeta``
``chlo.mulhi``     ``lax.mulhi`` (integers)
=================  =========================================================

Not here: ``chlo.tan`` (JAX emits ``stablehlo.tan``), ``chlo.is_inf`` /
``is_neg_inf`` / ``is_pos_inf`` (``jnp.isinf`` and friends lower to StableHLO
compares), ``chlo.conj`` (complex only) and ``chlo.ragged_dot``.  ``chlo.top_k``
(``lax.top_k``) is the one non-elementwise op here.

Syntax, as JAX prints it (and this dialect prints it back)::

    %1 = chlo.erf %0 : tensor<8x16xf32> -> tensor<8x16xf32>
    %2 = chlo.next_after %0, %1 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>

and the generic form ``"chlo.erf"(%0) : (tensor<8x16xf32>) -> ...``.  CHLO's
binary ops may broadcast operands of different shapes (numpy style, or with
a ``broadcast_dimensions`` attribute); JAX never emits that, and these ops
require operands and result of one shape.  Verifiers also check element
types: the float ops take f16/bf16/f32/f64 (the trigonometric and hyperbolic
ones and ``square`` also complex, as in CHLO), ``mulhi`` integers; operand
and result element types agree.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    ComplexType,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import (
    EqAttrConstraint,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .stablehlo.base import (
    BinaryTensorOp,
    UnaryTensorOp,
    check_alike,
    element_type,
    shape_of,
)

_FLOATS = (Float16Type, BFloat16Type, Float32Type, Float64Type)


def _is_float(element: Attribute) -> bool:
    return isinstance(element, _FLOATS)


def _is_complex(element: Attribute) -> bool:
    return isinstance(element, ComplexType) and _is_float(element.element_type)


def _is_integer(element: Attribute) -> bool:
    return isinstance(element, IntegerType) and element.width.data > 1


# Element types an op accepts: its name in messages and the test.
_ACCEPTS = {
    "float": ("floating-point", _is_float),
    "float_or_complex": (
        "floating-point or complex",
        lambda e: _is_float(e) or _is_complex(e),
    ),
    "integer": ("integer", _is_integer),
}


class _ElementwiseOp(IRDLOperation):
    """What CHLO's elementwise ops check: operands and result of one shape and
    one element type, of the kind ``ACCEPTS`` names (a key of ``_ACCEPTS``)."""

    ACCEPTS: ClassVar[str] = "float"

    def verify_(self) -> None:
        result = self.results[0]
        for value in self.operands:
            check_alike(self, value, result, "operand and result")
        what, test = _ACCEPTS[self.ACCEPTS]
        if not test(element_type(result)):
            raise VerifyException(
                f"{self.name}: expected a tensor of {what} values, got {result.type}"
            )


class UnaryOp(_ElementwiseOp, UnaryTensorOp):
    """``%r = chlo.<op> %x : T -> T``."""

    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"


class ComplexUnaryOp(UnaryOp):
    """A unary op on floats or complex numbers (trigonometric, hyperbolic)."""

    ACCEPTS: ClassVar[str] = "float_or_complex"


class BinaryOp(_ElementwiseOp, BinaryTensorOp):
    """``%r = chlo.<op> %a, %b : A, B -> R`` (same shapes: no broadcasting)."""

    assembly_format = (
        "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"
    )


@irdl_op_definition
class SquareOp(ComplexUnaryOp):
    name = "chlo.square"


@irdl_op_definition
class ErfOp(UnaryOp):
    name = "chlo.erf"


@irdl_op_definition
class ErfcOp(UnaryOp):
    name = "chlo.erfc"


@irdl_op_definition
class ErfInvOp(UnaryOp):
    name = "chlo.erf_inv"


@irdl_op_definition
class SinhOp(ComplexUnaryOp):
    name = "chlo.sinh"


@irdl_op_definition
class CoshOp(ComplexUnaryOp):
    name = "chlo.cosh"


@irdl_op_definition
class AsinOp(ComplexUnaryOp):
    name = "chlo.asin"


@irdl_op_definition
class AcosOp(ComplexUnaryOp):
    name = "chlo.acos"


@irdl_op_definition
class AtanOp(ComplexUnaryOp):
    name = "chlo.atan"


@irdl_op_definition
class AsinhOp(ComplexUnaryOp):
    name = "chlo.asinh"


@irdl_op_definition
class AcoshOp(ComplexUnaryOp):
    name = "chlo.acosh"


@irdl_op_definition
class AtanhOp(ComplexUnaryOp):
    name = "chlo.atanh"


@irdl_op_definition
class LgammaOp(UnaryOp):
    name = "chlo.lgamma"


@irdl_op_definition
class DigammaOp(UnaryOp):
    name = "chlo.digamma"


@irdl_op_definition
class BesselI1eOp(UnaryOp):
    name = "chlo.bessel_i1e"


@irdl_op_definition
class NextAfterOp(BinaryOp):
    name = "chlo.next_after"


@irdl_op_definition
class PolygammaOp(BinaryOp):
    """``chlo.polygamma %n, %x``: the n-th derivative of digamma."""

    name = "chlo.polygamma"


@irdl_op_definition
class ZetaOp(BinaryOp):
    """``chlo.zeta %x, %q``: the Hurwitz zeta function."""

    name = "chlo.zeta"


@irdl_op_definition
class MulhiOp(BinaryOp):
    """The high half of the double-width integer product."""

    name = "chlo.mulhi"
    ACCEPTS: ClassVar[str] = "integer"


UNARY_OPS: tuple[type[UnaryOp], ...] = (
    SquareOp,
    ErfOp,
    ErfcOp,
    ErfInvOp,
    SinhOp,
    CoshOp,
    AsinOp,
    AcosOp,
    AtanOp,
    AsinhOp,
    AcoshOp,
    AtanhOp,
    LgammaOp,
    DigammaOp,
    BesselI1eOp,
)

BINARY_OPS: tuple[type[BinaryOp], ...] = (NextAfterOp, PolygammaOp, ZetaOp, MulhiOp)


@irdl_op_definition
class TopKOp(IRDLOperation):
    """``%v, %i = chlo.top_k(%x, k = 3) : tensor<4x8xf32> -> (tensor<4x3xf32>,
    tensor<4x3xi32>)``: the k largest of each row (last dimension), in
    descending order, and their indices (``lax.top_k``)."""

    name = "chlo.top_k"

    operand = operand_def(TensorType)
    values = result_def(TensorType)
    indices = result_def(TensorType)
    k_attr = prop_def(IntegerAttr.constr(type=EqAttrConstraint(i64)), prop_name="k")

    traits = traits_def(Pure())

    assembly_format = (
        "`(` $operand `,` `k` `=` $k `)` attr-dict `:` type($operand) `->` "
        "`(` type($values) `,` type($indices) `)`"
    )

    @property
    def k(self) -> int:
        return self.k_attr.value.data

    def verify_(self) -> None:
        shape = shape_of(self.operand)
        if not shape:
            raise VerifyException(f"{self.name}: operand must have rank >= 1")
        k = self.k
        if not 0 <= k <= shape[-1]:
            raise VerifyException(
                f"{self.name}: k = {k} is out of range for a last dimension of "
                f"{shape[-1]}"
            )
        expected = (*shape[:-1], k)
        for what, value in (("values", self.values), ("indices", self.indices)):
            if shape_of(value) != expected:
                raise VerifyException(
                    f"{self.name}: {what} have shape {list(shape_of(value))}, "
                    f"expected {list(expected)}"
                )
        check_alike(self, self.values, self.operand, "values and operand", shapes=False)
        if not _is_integer(element_type(self.indices)):
            raise VerifyException(f"{self.name}: indices must be integers")


CHLO = Dialect("chlo", [*UNARY_OPS, *BINARY_OPS, TopKOp], [])
