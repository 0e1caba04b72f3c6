"""StableHLO's data-movement ops: broadcast, reshape, transpose, reverse,
concatenate, slices and pad.

None is elementwise; each moves elements by a rule its verifier checks on
shapes (``broadcast_in_dim``'s dimension map, ``slice``'s ranges, ...).
Syntax is StableHLO's declarative format, e.g.
``stablehlo.transpose %x, dims = [1, 0] : (A) -> B``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    I64,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .attrs import i64_array, i64_array_prop, int_view, ints_view
from .base import (
    SortedPropertiesOp,
    TensorOp,
    check_alike,
    check_result_shape,
    check_result_type,
    check_slice_sizes,
    check_unique_in_range,
    element_type,
    shape_of,
)
from .syntax import (
    SameOperandsAndResultType,
    SliceRanges,
    VariadicOperandWithAttribute,
    dims_text,
)

_FUNCTIONAL_TYPE = "attr-dict `:` functional-type(operands, results)"


def _check_same_element_type(op: Operation, operand: SSAValue, result: SSAValue):
    check_alike(op, operand, result, "operand and result", shapes=False)


@irdl_op_definition
class BroadcastInDimOp(TensorOp):
    """``%r = stablehlo.broadcast_in_dim %x, dims = [0] : (A) -> B``.

    Operand dimension ``i`` becomes result dimension ``broadcast_dimensions[i]``;
    its size is either the result's or 1 (then it is broadcast).
    """

    name = "stablehlo.broadcast_in_dim"

    broadcast_dimensions_attr = i64_array_prop("broadcast_dimensions")

    assembly_format = "$operand `,` `dims` `=` $broadcast_dimensions " + (
        _FUNCTIONAL_TYPE
    )

    def __init__(
        self,
        operand: SSAValue | Operation,
        broadcast_dimensions: Sequence[int],
        result_type: Attribute,
        attributes: dict[str, Attribute] | None = None,
    ):
        properties = {"broadcast_dimensions": i64_array(broadcast_dimensions)}
        super().__init__(
            operand,
            result_type=result_type,
            attributes=attributes,
            properties=properties,
        )

    broadcast_dimensions = ints_view("broadcast_dimensions_attr")

    def verify_(self) -> None:
        dims = self.broadcast_dimensions
        operand_shape, result_shape = shape_of(self.operand), shape_of(self.result)
        if len(dims) != len(operand_shape):
            raise VerifyException(
                f"{self.name}: broadcast_dimensions has {len(dims)} entries but the "
                f"operand has rank {len(operand_shape)}"
            )
        check_unique_in_range(self.name, "broadcast dimension", dims, len(result_shape))
        for i, (size, dim) in enumerate(zip(operand_shape, dims, strict=True)):
            if size not in (1, result_shape[dim]):
                raise VerifyException(
                    f"{self.name}: operand dimension {i} of size {size} cannot be "
                    f"broadcast to result dimension {dim} of size {result_shape[dim]}"
                )
        _check_same_element_type(self, self.operand, self.result)


@irdl_op_definition
class ReshapeOp(TensorOp):
    """``%r = stablehlo.reshape %x : (tensor<8x16xf32>) -> tensor<128xf32>``."""

    name = "stablehlo.reshape"

    assembly_format = "$operand " + _FUNCTIONAL_TYPE

    def verify_(self) -> None:
        before = math.prod(shape_of(self.operand))
        after = math.prod(shape_of(self.result))
        if before != after:
            raise VerifyException(
                f"{self.name}: element counts differ: {self.operand.type} has "
                f"{before}, {self.result.type} has {after}"
            )
        _check_same_element_type(self, self.operand, self.result)


@irdl_op_definition
class TransposeOp(TensorOp):
    """``%r = stablehlo.transpose %x, dims = [1, 0] : (A) -> B``.

    Result dimension ``i`` is operand dimension ``permutation[i]``.
    """

    name = "stablehlo.transpose"

    permutation_attr = i64_array_prop("permutation")

    assembly_format = "$operand `,` `dims` `=` $permutation " + _FUNCTIONAL_TYPE

    def __init__(
        self,
        operand: SSAValue | Operation,
        permutation: Sequence[int],
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        operand = SSAValue.get(operand)
        if result_type is None:
            shape = shape_of(operand)
            result_type = TensorType(
                element_type(operand), [shape[p] for p in permutation]
            )
        properties = {"permutation": i64_array(permutation)}
        super().__init__(
            operand,
            result_type=result_type,
            attributes=attributes,
            properties=properties,
        )

    permutation = ints_view("permutation_attr")

    def verify_(self) -> None:
        perm = self.permutation
        shape = shape_of(self.operand)
        if sorted(perm) != list(range(len(shape))):
            raise VerifyException(
                f"{self.name}: {dims_text(perm)} is not a permutation of the "
                f"operand's {len(shape)} dimensions"
            )
        check_result_shape(self, self.result, [shape[p] for p in perm])
        _check_same_element_type(self, self.operand, self.result)


@irdl_op_definition
class ReverseOp(TensorOp):
    """``%r = stablehlo.reverse %x, dims = [0] : T``."""

    name = "stablehlo.reverse"

    dimensions_attr = i64_array_prop("dimensions")

    assembly_format = (
        "$operand `,` `dims` `=` $dimensions attr-dict `:` "
        "custom<SameOperandsAndResultType>(type(operands), type(results))"
    )
    custom_directives = (SameOperandsAndResultType,)

    dimensions = ints_view("dimensions_attr")

    def verify_(self) -> None:
        check_unique_in_range(
            self.name, "dimension", self.dimensions, len(shape_of(self.operand))
        )
        check_result_type(self, self.result, self.operand)


@irdl_op_definition
class ConcatenateOp(IRDLOperation):
    """``%r = stablehlo.concatenate %a, %b, dim = 0 : (A, B) -> R``."""

    name = "stablehlo.concatenate"

    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)
    dimension_attr = prop_def(IntegerAttr[I64], prop_name="dimension")

    traits = traits_def(Pure())

    assembly_format = (
        "custom<VariadicOperandWithAttribute>($inputs) `dim` `=` $dimension "
        + _FUNCTIONAL_TYPE
    )
    custom_directives = (VariadicOperandWithAttribute,)

    dimension = int_view("dimension_attr")

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException(f"{self.name}: expects at least one input")
        first = shape_of(self.inputs[0])
        rank, dim = len(first), self.dimension
        if not 0 <= dim < rank:
            raise VerifyException(
                f"{self.name}: dimension {dim} is out of range for rank {rank}"
            )
        total = 0
        for i, value in enumerate(self.inputs):
            shape = shape_of(value)
            if len(shape) != rank:
                raise VerifyException(
                    f"{self.name}: input {i} has rank {len(shape)}, expected {rank}"
                )
            for d in range(rank):
                if d != dim and shape[d] != first[d]:
                    raise VerifyException(
                        f"{self.name}: input {i} has size {shape[d]} in dimension "
                        f"{d}, expected {first[d]}"
                    )
            if element_type(value) != element_type(self.result):
                raise VerifyException(
                    f"{self.name}: input {i} element type differs from the result's"
                )
            total += shape[dim]
        check_result_shape(self, self.result, (*first[:dim], total, *first[dim + 1 :]))


@irdl_op_definition
class SliceOp(TensorOp):
    """``%r = stablehlo.slice %x [1:3, 0:16:2] : (A) -> B`` (start:limit[:stride])."""

    name = "stablehlo.slice"

    start_indices_attr = i64_array_prop("start_indices")
    limit_indices_attr = i64_array_prop("limit_indices")
    strides_attr = i64_array_prop("strides")

    assembly_format = (
        "$operand custom<SliceRanges>($start_indices, $limit_indices, $strides) "
        + _FUNCTIONAL_TYPE
    )
    custom_directives = (SliceRanges,)

    start_indices = ints_view("start_indices_attr")
    limit_indices = ints_view("limit_indices_attr")
    strides = ints_view("strides_attr")

    def verify_(self) -> None:
        shape = shape_of(self.operand)
        starts, limits, strides = self.start_indices, self.limit_indices, self.strides
        if not len(starts) == len(limits) == len(strides) == len(shape):
            raise VerifyException(
                f"{self.name}: start_indices, limit_indices and strides need one "
                f"entry per operand dimension ({len(shape)})"
            )
        expected = []
        for d, (start, limit, stride, size) in enumerate(
            zip(starts, limits, strides, shape, strict=True)
        ):
            if not 0 <= start <= limit <= size:
                raise VerifyException(
                    f"{self.name}: range {start}:{limit} of dimension {d} is out of "
                    f"bounds for size {size}"
                )
            if stride < 1:
                raise VerifyException(
                    f"{self.name}: stride {stride} of dimension {d} must be positive"
                )
            expected.append(-(-(limit - start) // stride))
        check_result_shape(self, self.result, expected)
        _check_same_element_type(self, self.operand, self.result)


def _check_start_indices(op: Operation, indices: Sequence[SSAValue], rank: int) -> None:
    if len(indices) != rank:
        raise VerifyException(
            f"{op.name}: expects {rank} start indices (one per operand dimension), "
            f"got {len(indices)}"
        )
    for i, index in enumerate(indices):
        if shape_of(index) != () or not isinstance(element_type(index), IntegerType):
            raise VerifyException(
                f"{op.name}: start index {i} must be a rank-0 integer tensor, "
                f"got {index.type}"
            )


@irdl_op_definition
class DynamicSliceOp(IRDLOperation):
    """``%r = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 4] : (...) -> R``."""

    name = "stablehlo.dynamic_slice"

    operand = operand_def(TensorType)
    start_indices = var_operand_def(TensorType)
    result = result_def(TensorType)
    slice_sizes_attr = i64_array_prop("slice_sizes")

    traits = traits_def(Pure())

    assembly_format = (
        "$operand `,` custom<VariadicOperandWithAttribute>($start_indices) "
        "`sizes` `=` $slice_sizes " + _FUNCTIONAL_TYPE
    )
    custom_directives = (VariadicOperandWithAttribute,)

    slice_sizes = ints_view("slice_sizes_attr")

    def verify_(self) -> None:
        shape = shape_of(self.operand)
        _check_start_indices(self, self.start_indices, len(shape))
        sizes = self.slice_sizes
        check_slice_sizes(self, sizes, shape)
        check_result_shape(self, self.result, sizes, "the slice sizes ")


@irdl_op_definition
class DynamicUpdateSliceOp(IRDLOperation):
    """``%r = stablehlo.dynamic_update_slice %x, %u, %i, %j : (...) -> R``."""

    name = "stablehlo.dynamic_update_slice"

    operand = operand_def(TensorType)
    update = operand_def(TensorType)
    start_indices = var_operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    assembly_format = "operands " + _FUNCTIONAL_TYPE

    def verify_(self) -> None:
        shape, update = shape_of(self.operand), shape_of(self.update)
        _check_start_indices(self, self.start_indices, len(shape))
        if len(update) != len(shape):
            raise VerifyException(
                f"{self.name}: update has rank {len(update)}, operand has rank "
                f"{len(shape)}"
            )
        for d, (u, s) in enumerate(zip(update, shape, strict=True)):
            if u > s:
                raise VerifyException(
                    f"{self.name}: update size {u} of dimension {d} exceeds the "
                    f"operand size {s}"
                )
        check_alike(self, self.update, self.operand, "update and operand", shapes=False)
        check_result_type(self, self.result, self.operand)


@irdl_op_definition
class PadOp(SortedPropertiesOp):
    """``%r = stablehlo.pad %x, %v, low = [..], high = [..], interior = [..] : ..``."""

    name = "stablehlo.pad"

    operand = operand_def(TensorType)
    padding_value = operand_def(TensorType)
    result = result_def(TensorType)
    edge_padding_low_attr = i64_array_prop("edge_padding_low")
    edge_padding_high_attr = i64_array_prop("edge_padding_high")
    interior_padding_attr = i64_array_prop("interior_padding")

    traits = traits_def(Pure())

    assembly_format = (
        "$operand `,` $padding_value `,` `low` `=` $edge_padding_low `,` "
        "`high` `=` $edge_padding_high `,` `interior` `=` $interior_padding "
        + _FUNCTIONAL_TYPE
    )

    edge_padding_low = ints_view("edge_padding_low_attr")
    edge_padding_high = ints_view("edge_padding_high_attr")
    interior_padding = ints_view("interior_padding_attr")

    def verify_(self) -> None:
        shape = shape_of(self.operand)
        low, high, interior = (
            self.edge_padding_low,
            self.edge_padding_high,
            self.interior_padding,
        )
        if not len(low) == len(high) == len(interior) == len(shape):
            raise VerifyException(
                f"{self.name}: low, high and interior padding need one entry per "
                f"operand dimension ({len(shape)})"
            )
        if shape_of(self.padding_value) != ():
            raise VerifyException(f"{self.name}: padding value must be rank 0")
        if element_type(self.padding_value) != element_type(self.operand):
            raise VerifyException(
                f"{self.name}: padding value element type differs from the operand's"
            )
        expected = []
        for d, (size, lo, hi, it) in enumerate(
            zip(shape, low, high, interior, strict=True)
        ):
            if it < 0:
                raise VerifyException(
                    f"{self.name}: interior padding {it} of dimension {d} is negative"
                )
            expected.append(lo + hi + size + max(size - 1, 0) * it)
        check_result_shape(self, self.result, expected)


SHAPE_OPS: tuple[type[IRDLOperation], ...] = (
    BroadcastInDimOp,
    ReshapeOp,
    TransposeOp,
    ReverseOp,
    ConcatenateOp,
    SliceOp,
    DynamicSliceOp,
    DynamicUpdateSliceOp,
    PadOp,
)
