"""StableHLO ops' attributes as plain Python values, for code that works on
values rather than IR (``sbpc.ops`` rules, the numpy simulator)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute, Operation

from .constants import ConstantOp, IotaOp
from .elementwise import CompareOp
from .gather_scatter import GatherOp, ScatterOp
from .reduction import DotGeneralOp, ReduceOp
from .shape import (
    BroadcastInDimOp,
    ConcatenateOp,
    DynamicSliceOp,
    PadOp,
    ReverseOp,
    SliceOp,
    TransposeOp,
)


def _numpy_dtype(element: Attribute) -> Any:
    if isinstance(element, IntegerType):
        width = element.width.data
        if width == 1:
            return np.bool_
        unsigned = element.signedness.data == Signedness.UNSIGNED
        return np.dtype(f"{'u' if unsigned else ''}int{width}")
    if isinstance(element, BFloat16Type):
        import ml_dtypes  # a jax dependency; numpy has no bfloat16

        return ml_dtypes.bfloat16
    names = {Float16Type: "float16", Float32Type: "float32", Float64Type: "float64"}
    if type(element) in names:
        return np.dtype(names[type(element)])
    raise NotImplementedError(f"no numpy dtype for {element}")


def constant_array(value: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The elements of a dense attribute as a numpy array of its shape."""
    element = value.get_element_type()
    values = value.get_values()
    if isinstance(element, IntegerType) and element.width.data > 1:
        mask = (1 << element.width.data) - 1
        if element.signedness.data == Signedness.UNSIGNED:
            values = tuple(int(v) & mask for v in values)
    array = np.array(values, dtype=_numpy_dtype(element))
    return array.reshape(tuple(value.get_shape()))


def plain_attrs(op: Operation) -> dict[str, Any]:
    """A StableHLO op's attributes as plain values, under StableHLO's names.

    Ints, tuples of ints, strings and (for ``constant``) a numpy array: what
    ``sbpc.ops.spec.OpSpec.attrs`` expects (see ``sbpc.ops.stablehlo``). A
    reduce gets ``kind`` (``ReduceOp.reduction_kind``, None for other bodies),
    a scatter too (``ScatterOp.combiner_kind``: also ``replace``).
    Ops without attributes, and ops of other dialects, give ``{}``.
    """
    match op:
        case ConstantOp():
            return {"value": constant_array(op.value)}
        case IotaOp():
            return {"iota_dimension": op.iota_dimension}
        case CompareOp():
            attrs: dict[str, Any] = {"comparison_direction": op.comparison_direction}
            if op.compare_type is not None:
                attrs["compare_type"] = op.compare_type
            return attrs
        case BroadcastInDimOp():
            return {"broadcast_dimensions": op.broadcast_dimensions}
        case TransposeOp():
            return {"permutation": op.permutation}
        case DotGeneralOp():
            attrs = {
                "lhs_batching_dimensions": op.lhs_batching_dimensions,
                "rhs_batching_dimensions": op.rhs_batching_dimensions,
                "lhs_contracting_dimensions": op.lhs_contracting_dimensions,
                "rhs_contracting_dimensions": op.rhs_contracting_dimensions,
            }
            if op.precision is not None:
                attrs["precision"] = op.precision
            return attrs
        case ReduceOp():
            return {"dimensions": op.dimensions, "kind": op.reduction_kind}
        case ConcatenateOp():
            return {"dimension": op.dimension}
        case SliceOp():
            return {
                "start_indices": op.start_indices,
                "limit_indices": op.limit_indices,
                "strides": op.strides,
            }
        case DynamicSliceOp():
            return {"slice_sizes": op.slice_sizes}
        case GatherOp():
            numbers = op.dimension_numbers
            return {
                "offset_dims": numbers.offset_dims,
                "collapsed_slice_dims": numbers.collapsed_slice_dims,
                "operand_batching_dims": numbers.operand_batching_dims,
                "start_indices_batching_dims": numbers.start_indices_batching_dims,
                "start_index_map": numbers.start_index_map,
                "index_vector_dim": numbers.index_vector_dim,
                "slice_sizes": op.slice_sizes,
                "indices_are_sorted": op.indices_are_sorted,
            }
        case ScatterOp():
            numbers = op.scatter_dimension_numbers
            return {
                "update_window_dims": numbers.update_window_dims,
                "inserted_window_dims": numbers.inserted_window_dims,
                "input_batching_dims": numbers.input_batching_dims,
                "scatter_indices_batching_dims": numbers.scatter_indices_batching_dims,
                "scatter_dims_to_operand_dims": numbers.scatter_dims_to_operand_dims,
                "index_vector_dim": numbers.index_vector_dim,
                "indices_are_sorted": op.indices_are_sorted,
                "unique_indices": op.unique_indices,
                "kind": op.combiner_kind,
            }
        case PadOp():
            return {
                "edge_padding_low": op.edge_padding_low,
                "edge_padding_high": op.edge_padding_high,
                "interior_padding": op.interior_padding,
            }
        case ReverseOp():
            return {"dimensions": op.dimensions}
        case _:
            # Ops of their own modules (convolution, windows, sort) say it themselves.
            own = getattr(op, "plain_attrs", None)
            return own() if callable(own) else {}
