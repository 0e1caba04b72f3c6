"""What StableHLO's ops (and CHLO's, which read and print alike) share.

Type accessors for verifiers (``shape_of``, ``element_type``) and the checks
several op families make (``check_alike``, ``check_result_type``,
``check_slice_sizes``, ``check_body_args``, ``check_return``), the
``Elementwise`` trait passes key on, and the abstract ops: pure ops on one
or two tensors (``TensorOp``, ``TwoTensorOp``: one tensor result, a builder
that defaults the result type to the first operand's) and their elementwise
forms, ops whose properties stay sorted, contractions with a
``precision_config``.  Each dialect family adds its syntax
(``assembly_format``) and its verifier on top.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Self, cast

from xdsl.dialects.builtin import ArrayAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import IRDLOperation, operand_def, opt_prop_def, result_def, traits_def
from xdsl.traits import OpTrait, Pure
from xdsl.utils.exceptions import VerifyException

from .attrs import Precision, PrecisionAttr
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


def check_alike(
    op: Operation,
    a: SSAValue,
    b: SSAValue,
    what: str,
    *,
    shapes: bool = True,
    elements: bool = True,
) -> None:
    """``a`` and ``b`` have one shape and one element type (``what`` names
    them, e.g. ``operand and result``)."""
    if shapes and shape_of(a) != shape_of(b):
        raise VerifyException(f"{op.name}: {what} shapes differ: {a.type} vs {b.type}")
    if elements and element_type(a) != element_type(b):
        raise VerifyException(
            f"{op.name}: {what} element types differ: {a.type} vs {b.type}"
        )


def check_result_type(
    op: Operation, result: SSAValue, source: SSAValue, what: str = "operand"
) -> None:
    """The result has the type of ``source`` (the ``what``)."""
    if result.type != source.type:
        raise VerifyException(
            f"{op.name}: result type {result.type} differs from {what} "
            f"type {source.type}"
        )


def check_result_shape(
    op: Operation, result: SSAValue, expected: Sequence[int], what: str = ""
) -> None:
    """The result has shape ``expected`` (``what`` says what that is)."""
    if shape_of(result) != tuple(expected):
        raise VerifyException(
            f"{op.name}: result shape {dims_text(shape_of(result))} should "
            f"be {what}{dims_text(expected)}"
        )


def check_slice_sizes(
    op: Operation, sizes: Sequence[int], shape: Sequence[int]
) -> None:
    """One slice size per operand dimension, each within the dimension."""
    if len(sizes) != len(shape):
        raise VerifyException(
            f"{op.name}: slice_sizes has {len(sizes)} entries but the operand "
            f"has rank {len(shape)}"
        )
    for d, (size, bound) in enumerate(zip(sizes, shape, strict=True)):
        if not 0 <= size <= bound:
            raise VerifyException(
                f"{op.name}: slice size {size} of dimension {d} exceeds the "
                f"operand size {bound}"
            )


def check_body_args(op: Operation, block: Block) -> None:
    """A reduction body's arguments are rank-0 tensors."""
    for arg in block.args:
        if shape_of(arg.type) != ():
            raise VerifyException(
                f"{op.name}: body arguments must be rank-0 tensors, got {arg.type}"
            )


def check_return(op: Operation, block: Block, n: int, what: str = "body") -> None:
    """``block`` (the ``what``) ends in a ``stablehlo.return`` of ``n`` values."""
    ret = block.last_op
    if ret is None or ret.name.split(".")[-1] != "return":
        raise VerifyException(f"{op.name}: {what} must end in stablehlo.return")
    if len(ret.operands) != n:
        raise VerifyException(
            f"{op.name}: {what} returns {len(ret.operands)} values, expected {n}"
        )


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

    def __init__(
        self, *, properties: Mapping[str, Attribute | None] | None = None, **kwargs: Any
    ) -> None:
        if properties:
            properties = dict(sorted(properties.items()))
        super().__init__(properties=properties, **kwargs)

    @classmethod
    def build(
        cls, *, properties: Mapping[str, Attribute | None] | None = None, **kwargs: Any
    ) -> Self:
        if properties:
            properties = dict(sorted(properties.items()))
        return super().build(properties=properties, **kwargs)


class _TensorResultOp(IRDLOperation):
    """A pure op with one tensor ``result`` whose type defaults to its first
    operand's; each subclass names its operands."""

    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(
        self,
        *operands: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
        properties: Mapping[str, Attribute | None] | None = None,
    ):
        """The result type defaults to the first operand's."""
        values = [SSAValue.get(v) for v in operands]
        super().__init__(
            operands=values,
            result_types=[result_type or values[0].type],
            properties=properties,
            attributes=attributes,
        )


class TensorOp(_TensorResultOp):
    """A pure op on a tensor ``operand`` with one tensor ``result``: the
    shape ops, ``fft``."""

    operand = operand_def(TensorType)


class UnaryTensorOp(TensorOp):
    """``operand -> result``, both tensors, elementwise and pure."""

    traits = traits_def(Pure(), Elementwise())


class TwoTensorOp(_TensorResultOp):
    """A pure op on tensors ``lhs`` and ``rhs`` with one tensor ``result``."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)


class BinaryTensorOp(TwoTensorOp):
    """``lhs, rhs -> result``, all tensors, elementwise and pure."""

    traits = traits_def(Pure(), Elementwise())


class PrecisionConfigOp(TwoTensorOp, SortedPropertiesOp):
    """A contraction (``lhs, rhs -> result``) with StableHLO's optional
    per-operand ``precision_config``."""

    precision_config = opt_prop_def(ArrayAttr[PrecisionAttr])

    def _build(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute,
        properties: dict[str, Attribute],
        precision: Sequence[str | Precision] | None,
        attributes: dict[str, Attribute] | None,
    ) -> None:
        """Build with ``properties``, plus the ``precision_config`` of
        ``precision`` names when given."""
        if precision is not None:
            config = ArrayAttr(PrecisionAttr(Precision(p)) for p in precision)
            properties = {**properties, "precision_config": config}
        TwoTensorOp.__init__(
            self,
            lhs,
            rhs,
            result_type=result_type,
            attributes=attributes,
            properties=properties,
        )

    @property
    def precision(self) -> tuple[str, ...] | None:
        if self.precision_config is None:
            return None
        return tuple(p.data.value for p in self.precision_config.data)

    def verify_precision_config(self) -> None:
        """One entry per operand, or none (the default for both)."""
        precision = self.precision
        if precision is not None and len(precision) not in (0, 2):
            raise VerifyException(
                f"{self.name}: precision_config needs 0 or 2 entries, "
                f"got {len(precision)}"
            )
