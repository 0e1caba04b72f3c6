"""StableHLO's elementwise ops: unary and binary math, ``is_finite``, ``clamp``,
``compare`` and ``select``.

All carry the ``Elementwise`` trait.  Their syntax is StableHLO's declarative
format: ``%r = stablehlo.add %a, %b : tensor<8xf32>`` (one type when operands
and result share it, else ``: (A, B) -> R``), ``stablehlo.compare GT, %a, %b,
FLOAT : (A, B) -> R``, ``stablehlo.select %p, %t, %f : P, T``.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import ComplexType, TensorType, i1
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Commutative, Pure
from xdsl.utils.exceptions import VerifyException

from .attrs import (
    ComparisonDirection,
    ComparisonDirectionAttr,
    ComparisonType,
    ComparisonTypeAttr,
)
from .base import (
    BinaryTensorOp,
    Elementwise,
    SortedPropertiesOp,
    UnaryTensorOp,
    check_alike,
    check_result_type,
    element_type,
    shape_of,
)
from .syntax import SameOperandsAndResultType, SelectOpType

# The format of ops whose operands and result usually share one type.
_SAME_TYPE_FORMAT = (
    "attr-dict `:` custom<SameOperandsAndResultType>(type(operands), type(results))"
)

# --------------------------------------------------------------------------
# Unary
# --------------------------------------------------------------------------


class UnaryElementwiseOp(UnaryTensorOp):
    """``%r = stablehlo.<op> %x : T`` (``: (T) -> R`` when the types differ)."""

    assembly_format = "$operand " + _SAME_TYPE_FORMAT
    custom_directives = (SameOperandsAndResultType,)

    # Whether operand and result may have different element types.
    CHANGES_ELEMENT_TYPE: ClassVar[bool] = False

    def verify_(self) -> None:
        complex_abs = self.name == "stablehlo.abs" and isinstance(
            element_type(self.operand), ComplexType
        )
        same_elements = not (self.CHANGES_ELEMENT_TYPE or complex_abs)
        check_alike(
            self,
            self.operand,
            self.result,
            "operand and result",
            elements=same_elements,
        )


@irdl_op_definition
class AbsOp(UnaryElementwiseOp):
    name = "stablehlo.abs"


@irdl_op_definition
class CbrtOp(UnaryElementwiseOp):
    name = "stablehlo.cbrt"


@irdl_op_definition
class CeilOp(UnaryElementwiseOp):
    name = "stablehlo.ceil"


@irdl_op_definition
class ConvertOp(UnaryElementwiseOp):
    """Element type conversion; shapes equal, element types may differ."""

    name = "stablehlo.convert"
    CHANGES_ELEMENT_TYPE: ClassVar[bool] = True


@irdl_op_definition
class CosineOp(UnaryElementwiseOp):
    name = "stablehlo.cosine"


@irdl_op_definition
class CountLeadingZerosOp(UnaryElementwiseOp):
    name = "stablehlo.count_leading_zeros"


@irdl_op_definition
class ExpOp(UnaryElementwiseOp):
    name = "stablehlo.exponential"


@irdl_op_definition
class Expm1Op(UnaryElementwiseOp):
    name = "stablehlo.exponential_minus_one"


@irdl_op_definition
class FloorOp(UnaryElementwiseOp):
    name = "stablehlo.floor"


@irdl_op_definition
class LogOp(UnaryElementwiseOp):
    name = "stablehlo.log"


@irdl_op_definition
class Log1pOp(UnaryElementwiseOp):
    name = "stablehlo.log_plus_one"


@irdl_op_definition
class LogisticOp(UnaryElementwiseOp):
    name = "stablehlo.logistic"


@irdl_op_definition
class NegOp(UnaryElementwiseOp):
    name = "stablehlo.negate"


@irdl_op_definition
class NotOp(UnaryElementwiseOp):
    name = "stablehlo.not"


@irdl_op_definition
class PopulationCountOp(UnaryElementwiseOp):
    name = "stablehlo.popcnt"


@irdl_op_definition
class RoundNearestAfzOp(UnaryElementwiseOp):
    name = "stablehlo.round_nearest_afz"


@irdl_op_definition
class RoundNearestEvenOp(UnaryElementwiseOp):
    name = "stablehlo.round_nearest_even"


@irdl_op_definition
class RsqrtOp(UnaryElementwiseOp):
    name = "stablehlo.rsqrt"


@irdl_op_definition
class SignOp(UnaryElementwiseOp):
    name = "stablehlo.sign"


@irdl_op_definition
class SineOp(UnaryElementwiseOp):
    name = "stablehlo.sine"


@irdl_op_definition
class SqrtOp(UnaryElementwiseOp):
    name = "stablehlo.sqrt"


@irdl_op_definition
class TanOp(UnaryElementwiseOp):
    name = "stablehlo.tan"


@irdl_op_definition
class TanhOp(UnaryElementwiseOp):
    name = "stablehlo.tanh"


@irdl_op_definition
class IsFiniteOp(UnaryTensorOp):
    """``%y = stablehlo.is_finite %x : (tensor<8xf32>) -> tensor<8xi1>``."""

    name = "stablehlo.is_finite"

    assembly_format = "$operand attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        check_alike(
            self, self.operand, self.result, "operand and result", elements=False
        )
        if element_type(self.result) != i1:
            raise VerifyException(f"{self.name}: result must be a tensor of i1")


# --------------------------------------------------------------------------
# Binary
# --------------------------------------------------------------------------


class BinaryElementwiseOp(BinaryTensorOp):
    """``%r = stablehlo.<op> %a, %b : T`` (``: (A, B) -> R`` when types differ)."""

    assembly_format = "$lhs `,` $rhs " + _SAME_TYPE_FORMAT
    custom_directives = (SameOperandsAndResultType,)

    def verify_(self) -> None:
        result_shape = shape_of(self.result)
        for side, value in (("lhs", self.lhs), ("rhs", self.rhs)):
            if shape_of(value) != result_shape:
                raise VerifyException(
                    f"{self.name}: {side} and result shapes differ: "
                    f"{value.type} vs {self.result.type}"
                )
        if (
            not element_type(self.lhs)
            == element_type(self.rhs)
            == element_type(self.result)
        ):
            raise VerifyException(
                f"{self.name}: operand and result element types differ: "
                f"{self.lhs.type}, {self.rhs.type} -> {self.result.type}"
            )


class CommutativeBinaryOp(BinaryElementwiseOp):
    """Binary ops a reduce body can be (``applies stablehlo.add`` short form);
    ``REDUCTION_OPS`` names the reduction each stands for."""

    traits = traits_def(Pure(), Elementwise(), Commutative())


@irdl_op_definition
class AddOp(CommutativeBinaryOp):
    name = "stablehlo.add"


@irdl_op_definition
class MulOp(CommutativeBinaryOp):
    name = "stablehlo.multiply"


@irdl_op_definition
class MaxOp(CommutativeBinaryOp):
    name = "stablehlo.maximum"


@irdl_op_definition
class MinOp(CommutativeBinaryOp):
    name = "stablehlo.minimum"


@irdl_op_definition
class AndOp(CommutativeBinaryOp):
    name = "stablehlo.and"


@irdl_op_definition
class OrOp(CommutativeBinaryOp):
    name = "stablehlo.or"


@irdl_op_definition
class XorOp(CommutativeBinaryOp):
    name = "stablehlo.xor"


@irdl_op_definition
class SubtractOp(BinaryElementwiseOp):
    name = "stablehlo.subtract"


@irdl_op_definition
class DivOp(BinaryElementwiseOp):
    name = "stablehlo.divide"


@irdl_op_definition
class RemOp(BinaryElementwiseOp):
    name = "stablehlo.remainder"


@irdl_op_definition
class PowOp(BinaryElementwiseOp):
    name = "stablehlo.power"


@irdl_op_definition
class Atan2Op(BinaryElementwiseOp):
    name = "stablehlo.atan2"


@irdl_op_definition
class ShiftLeftOp(BinaryElementwiseOp):
    name = "stablehlo.shift_left"


@irdl_op_definition
class ShiftRightArithmeticOp(BinaryElementwiseOp):
    name = "stablehlo.shift_right_arithmetic"


@irdl_op_definition
class ShiftRightLogicalOp(BinaryElementwiseOp):
    name = "stablehlo.shift_right_logical"


# --------------------------------------------------------------------------
# Clamp, compare, select
# --------------------------------------------------------------------------


class TernaryElementwiseOp(IRDLOperation):
    """Three tensor operands (declared by each op) and one tensor ``result``,
    elementwise and pure; the outer operands may be rank 0, and the result
    type defaults to the middle operand's: ``clamp`` and ``select``."""

    result = result_def(TensorType)

    traits = traits_def(Pure(), Elementwise())

    def __init__(
        self,
        first: SSAValue | Operation,
        middle: SSAValue | Operation,
        last: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        middle = SSAValue.get(middle)
        super().__init__(
            operands=[first, middle, last],
            result_types=[result_type or middle.type],
            attributes=attributes,
        )


@irdl_op_definition
class ClampOp(TernaryElementwiseOp):
    """``%r = stablehlo.clamp %min, %x, %max : T``; min/max may be rank 0."""

    name = "stablehlo.clamp"

    min = operand_def(TensorType)
    operand = operand_def(TensorType)
    max = operand_def(TensorType)

    assembly_format = "$min `,` $operand `,` $max " + _SAME_TYPE_FORMAT
    custom_directives = (SameOperandsAndResultType,)

    def verify_(self) -> None:
        shape = shape_of(self.operand)
        for what, value in (("min", self.min), ("max", self.max)):
            if shape_of(value) not in ((), shape):
                raise VerifyException(
                    f"{self.name}: {what} must be rank 0 or have the operand's "
                    f"shape: {value.type} vs {self.operand.type}"
                )
            if element_type(value) != element_type(self.operand):
                raise VerifyException(
                    f"{self.name}: {what} element type differs from the operand's: "
                    f"{value.type} vs {self.operand.type}"
                )
        check_result_type(self, self.result, self.operand)


@irdl_op_definition
class CompareOp(BinaryTensorOp, SortedPropertiesOp):
    """``%r = stablehlo.compare GT, %a, %b, FLOAT : (T, T) -> tensor<..xi1>``."""

    name = "stablehlo.compare"

    comparison_direction_attr = prop_def(
        ComparisonDirectionAttr, prop_name="comparison_direction"
    )
    compare_type_attr = opt_prop_def(ComparisonTypeAttr, prop_name="compare_type")

    assembly_format = (
        "$comparison_direction `,` $lhs `,` $rhs (`,` $compare_type^)? attr-dict "
        "`:` functional-type(operands, results)"
    )

    def __init__(
        self,
        direction: str | ComparisonDirection,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        compare_type: str | ComparisonType | None = None,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        lhs = SSAValue.get(lhs)
        properties: dict[str, Attribute] = {
            "comparison_direction": ComparisonDirectionAttr(
                ComparisonDirection(direction)
            )
        }
        if compare_type is not None:
            kind = ComparisonType(compare_type)
            properties["compare_type"] = ComparisonTypeAttr(kind)
        result_type = result_type or TensorType(i1, shape_of(lhs))
        super().__init__(
            lhs,
            rhs,
            result_type=result_type,
            attributes=attributes,
            properties=properties,
        )

    @property
    def comparison_direction(self) -> str:
        return self.comparison_direction_attr.data.value

    @property
    def compare_type(self) -> str | None:
        attr = self.compare_type_attr
        return None if attr is None else attr.data.value

    def plain_attrs(self) -> dict[str, object]:
        attrs: dict[str, object] = {"comparison_direction": self.comparison_direction}
        if self.compare_type is not None:
            attrs["compare_type"] = self.compare_type
        return attrs

    def verify_(self) -> None:
        check_alike(self, self.lhs, self.rhs, "operand")
        if element_type(self.result) != i1:
            raise VerifyException(
                f"{self.name}: result must be a tensor of i1, got {self.result.type}"
            )
        if shape_of(self.result) != shape_of(self.lhs):
            raise VerifyException(
                f"{self.name}: result shape differs from the operands': "
                f"{self.result.type} vs {self.lhs.type}"
            )


@irdl_op_definition
class SelectOp(TernaryElementwiseOp):
    """``%r = stablehlo.select %pred, %t, %f : tensor<..xi1>, T``."""

    name = "stablehlo.select"

    pred = operand_def(TensorType)
    on_true = operand_def(TensorType)
    on_false = operand_def(TensorType)

    assembly_format = (
        "$pred `,` $on_true `,` $on_false attr-dict `:` "
        "custom<SelectOpType>(type($pred), type($on_true), type($on_false), "
        "type($result))"
    )
    custom_directives = (SelectOpType,)

    def verify_(self) -> None:
        if element_type(self.pred) != i1:
            raise VerifyException(
                f"{self.name}: predicate must be a tensor of i1, got {self.pred.type}"
            )
        if self.on_true.type != self.on_false.type:
            raise VerifyException(
                f"{self.name}: branch types differ: "
                f"{self.on_true.type} vs {self.on_false.type}"
            )
        if shape_of(self.pred) not in ((), shape_of(self.on_true)):
            raise VerifyException(
                f"{self.name}: predicate must be rank 0 or have the branches' shape: "
                f"{self.pred.type} vs {self.on_true.type}"
            )
        check_result_type(self, self.result, self.on_true, "branch")


# --------------------------------------------------------------------------
# Families
# --------------------------------------------------------------------------

UNARY_ELEMENTWISE_OPS: tuple[type[UnaryElementwiseOp], ...] = (
    AbsOp,
    CbrtOp,
    CeilOp,
    ConvertOp,
    CosineOp,
    CountLeadingZerosOp,
    ExpOp,
    Expm1Op,
    FloorOp,
    LogOp,
    Log1pOp,
    LogisticOp,
    NegOp,
    NotOp,
    PopulationCountOp,
    RoundNearestAfzOp,
    RoundNearestEvenOp,
    RsqrtOp,
    SignOp,
    SineOp,
    SqrtOp,
    TanOp,
    TanhOp,
)

BINARY_ELEMENTWISE_OPS: tuple[type[BinaryElementwiseOp], ...] = (
    AddOp,
    SubtractOp,
    MulOp,
    DivOp,
    RemOp,
    MaxOp,
    MinOp,
    PowOp,
    AndOp,
    OrOp,
    XorOp,
    Atan2Op,
    ShiftLeftOp,
    ShiftRightArithmeticOp,
    ShiftRightLogicalOp,
)

# ReduceOp.reduction_kind names and the body op each stands for.
REDUCTION_OPS: dict[str, type[CommutativeBinaryOp]] = {
    "add": AddOp,
    "mul": MulOp,
    "max": MaxOp,
    "min": MinOp,
    "and": AndOp,
    "or": OrOp,
    "xor": XorOp,
}
REDUCTION_KINDS: dict[type[Operation], str] = {
    op: kind for kind, op in REDUCTION_OPS.items()
}

ELEMENTWISE_OPS: tuple[type[IRDLOperation], ...] = (
    *UNARY_ELEMENTWISE_OPS,
    IsFiniteOp,
    *BINARY_ELEMENTWISE_OPS,
    ClampOp,
    CompareOp,
    SelectOp,
)
