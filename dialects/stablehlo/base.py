"""What StableHLO's ops (and CHLO's, which read and print alike) share.

Type accessors for verifiers (``shape_of``, ``element_type``), the
``Elementwise`` trait passes key on, and the abstract elementwise ops: one
or two tensor operands, one tensor result, a builder that defaults the result
type to the (first) operand's.  Each dialect family adds its syntax
(``assembly_format``) and its verifier on top.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Self, cast

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, operand_def, result_def, traits_def
from xdsl.traits import OpTrait, Pure
from xdsl.utils.exceptions import VerifyException

from .syntax import dims_text

# --------------------------------------------------------------------------
# Types, for verifiers
# --------------------------------------------------------------------------


def tensor_type(value: SSAValue | Attribute) -> TensorType:
    """The ranked tensor type of a value (or the type itself)."""
    type_ = value.type if isinstance(value, SSAValue) else value
    if not isinstance(type_, TensorType):
        raise VerifyException(f"expected a ranked tensor, got {type_}")
    return cast(TensorType, type_)


def shape_of(value: SSAValue | Attribute) -> tuple[int, ...]:
    """The shape of a ranked tensor value (or type)."""
    return tuple(tensor_type(value).get_shape())


def element_type(value: SSAValue | Attribute) -> Attribute:
    """The element type of a ranked tensor value (or type)."""
    return tensor_type(value).get_element_type()


def check_unique_in_range(op: str, what: str, dims: Sequence[int], rank: int) -> None:
    """Every entry of ``dims`` a distinct dimension of a rank-``rank`` tensor."""
    for d in dims:
        if not 0 <= d < rank:
            raise VerifyException(f"{op}: {what} {d} is out of range for rank {rank}")
    if len(set(dims)) != len(dims):
        raise VerifyException(f"{op}: {what}s are not unique: {dims_text(dims)}")


# --------------------------------------------------------------------------
# Traits and abstract ops
# --------------------------------------------------------------------------


class Elementwise(OpTrait):
    """The op maps operand elements to result elements position by position.

    Every tensor operand has the result's shape, except rank-0 operands that
    ``clamp``/``select`` broadcast; SBP rules treat such ops uniformly.
    """


class SortedPropertiesOp(IRDLOperation):
    """An op whose properties are kept sorted by name, whoever builds it.

    MLIR stores properties in a sorted dictionary, so its generic form lists
    them by name; the declarative format would store them in the order the
    pretty syntax spells them (``compare``'s direction before its type).
    """

    @classmethod
    def build(
        cls, *, properties: Mapping[str, Attribute | None] | None = None, **kwargs: Any
    ) -> Self:
        if properties:
            properties = dict(sorted(properties.items()))
        return super().build(properties=properties, **kwargs)


class UnaryTensorOp(IRDLOperation):
    """``operand -> result``, both tensors, elementwise and pure."""

    operand = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure(), Elementwise())

    def __init__(
        self,
        operand: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        operand = SSAValue.get(operand)
        super().__init__(
            operands=[operand],
            result_types=[result_type or operand.type],
            attributes=attributes,
        )


class BinaryTensorOp(IRDLOperation):
    """``lhs, rhs -> result``, all tensors, elementwise and pure."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure(), Elementwise())

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        super().__init__(
            operands=[lhs, rhs],
            result_types=[result_type or lhs.type],
            attributes=attributes,
        )
