"""IR operations as the plain ``OpSpec``s that sbpc's algorithms work on.

This is the one place that knows both xDSL's op classes and the attribute
keys the op rules expect (documented in ``sbpc.ops_stablehlo``,
``sbpc.ops_linalg`` and ``sbpc.ops_arith``).  Ops whose attributes are not
listed here still get an ``OpSpec`` (name and types): their rules, if any,
see no attributes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    TensorType,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Operation

from sbpc.dialects import stablehlo as shlo
from sbpc.op_spec import OpSpec
from sbpc.tensor_type import NUMPY_DTYPE
from sbpc.tensor_type import TensorType as PlainTensorType


class UnsupportedTypeError(ValueError):
    """A value whose type sbpc cannot lay out (not a static ranked tensor)."""


def plain_type(t: Attribute) -> PlainTensorType:
    """``tensor<8x16xf32>`` -> ``TensorType((8, 16), "f32")``."""
    if not isinstance(t, TensorType):
        raise UnsupportedTypeError(f"expected a ranked tensor type, got {t}")
    shape = tuple(t.get_shape())
    if any(d < 0 for d in shape):
        raise UnsupportedTypeError(f"dynamic dimensions are not supported: {t}")
    return PlainTensorType(shape, str(t.element_type))


def is_tensor_op(op: Operation) -> bool:
    """Ops that compute on tensors: every operand and result a ranked tensor."""
    values = (*op.operand_types, *op.result_types)
    return bool(op.results) and all(isinstance(t, TensorType) for t in values)


def dense_to_numpy(attr: DenseIntOrFPElementsAttr, t: PlainTensorType) -> np.ndarray:
    """The value of a dense elements attribute (splats expanded)."""
    dtype = NUMPY_DTYPE.get(t.element, "float32")
    values = attr.get_values()
    if dtype == "bfloat16":
        import ml_dtypes

        dtype = ml_dtypes.bfloat16
    array = np.array(values, dtype=dtype)
    if array.size == 1 and t.num_elements != 1:
        return np.full(t.shape, array.reshape(()), dtype=array.dtype)
    return array.reshape(t.shape)


AttrExtractor = Callable[[Operation, OpSpec], dict[str, Any]]

_EXTRACTORS: dict[type[Operation], AttrExtractor] = {}


def extracts(*classes: type[Operation]) -> Callable[[AttrExtractor], AttrExtractor]:
    """Register the attribute extractor of some op classes."""

    def register(fn: AttrExtractor) -> AttrExtractor:
        for cls in classes:
            _EXTRACTORS[cls] = fn
        return fn

    return register


def op_spec_of(op: Operation) -> OpSpec:
    """The ``OpSpec`` of a tensor op (see ``is_tensor_op``)."""
    spec = OpSpec(
        op.name,
        tuple(plain_type(t) for t in op.operand_types),
        tuple(plain_type(t) for t in op.result_types),
    )
    for cls in type(op).__mro__:
        if cls in _EXTRACTORS:
            return spec.replace(**_EXTRACTORS[cls](op, spec))
    return spec


# -- stablehlo ---------------------------------------------------------------


@extracts(shlo.ConstantOp)
def _constant(op: shlo.ConstantOp, spec: OpSpec) -> dict[str, Any]:
    return {"value": dense_to_numpy(op.value, spec.results[0])}


@extracts(shlo.IotaOp)
def _iota(op: shlo.IotaOp, spec: OpSpec) -> dict[str, Any]:
    return {"iota_dimension": op.iota_dimension}


@extracts(shlo.CompareOp)
def _compare(op: shlo.CompareOp, spec: OpSpec) -> dict[str, Any]:
    return {"comparison_direction": op.comparison_direction}


@extracts(shlo.BroadcastInDimOp)
def _broadcast(op: shlo.BroadcastInDimOp, spec: OpSpec) -> dict[str, Any]:
    return {"broadcast_dimensions": op.broadcast_dimensions}


@extracts(shlo.TransposeOp)
def _transpose(op: shlo.TransposeOp, spec: OpSpec) -> dict[str, Any]:
    return {"permutation": op.permutation}


@extracts(shlo.DotGeneralOp)
def _dot_general(op: shlo.DotGeneralOp, spec: OpSpec) -> dict[str, Any]:
    return {
        "lhs_batching_dimensions": op.lhs_batching_dimensions,
        "rhs_batching_dimensions": op.rhs_batching_dimensions,
        "lhs_contracting_dimensions": op.lhs_contracting_dimensions,
        "rhs_contracting_dimensions": op.rhs_contracting_dimensions,
    }


@extracts(shlo.ReduceOp)
def _reduce(op: shlo.ReduceOp, spec: OpSpec) -> dict[str, Any]:
    attrs: dict[str, Any] = {"dimensions": op.dimensions}
    if op.reduction_kind is not None:
        attrs["kind"] = op.reduction_kind
    return attrs


@extracts(shlo.ConcatenateOp)
def _concatenate(op: shlo.ConcatenateOp, spec: OpSpec) -> dict[str, Any]:
    return {"dimension": op.dimension}


@extracts(shlo.SliceOp)
def _slice(op: shlo.SliceOp, spec: OpSpec) -> dict[str, Any]:
    return {
        "start_indices": op.start_indices,
        "limit_indices": op.limit_indices,
        "strides": op.strides,
    }


@extracts(shlo.DynamicSliceOp)
def _dynamic_slice(op: shlo.DynamicSliceOp, spec: OpSpec) -> dict[str, Any]:
    return {"slice_sizes": op.slice_sizes}


@extracts(shlo.GatherOp)
def _gather(op: shlo.GatherOp, spec: OpSpec) -> dict[str, Any]:
    dn = op.dimension_numbers
    return {
        "offset_dims": dn.offset_dims,
        "collapsed_slice_dims": dn.collapsed_slice_dims,
        "operand_batching_dims": dn.operand_batching_dims,
        "start_indices_batching_dims": dn.start_indices_batching_dims,
        "start_index_map": dn.start_index_map,
        "index_vector_dim": dn.index_vector_dim,
        "slice_sizes": op.slice_sizes,
    }


@extracts(shlo.PadOp)
def _pad(op: shlo.PadOp, spec: OpSpec) -> dict[str, Any]:
    return {
        "edge_padding_low": op.edge_padding_low,
        "edge_padding_high": op.edge_padding_high,
        "interior_padding": op.interior_padding,
    }


@extracts(shlo.ReverseOp)
def _reverse(op: shlo.ReverseOp, spec: OpSpec) -> dict[str, Any]:
    return {"dimensions": op.dimensions}


# -- arith and linalg ----------------------------------------------------------


@extracts(arith.ConstantOp)
def _arith_constant(op: arith.ConstantOp, spec: OpSpec) -> dict[str, Any]:
    value = op.value
    if isinstance(value, DenseIntOrFPElementsAttr):
        return {"value": dense_to_numpy(value, spec.results[0])}
    return {}


@extracts(arith.CmpfOp, arith.CmpiOp)
def _arith_cmp(op: Operation, spec: OpSpec) -> dict[str, Any]:
    predicate = op.properties.get("predicate")
    if isinstance(predicate, IntegerAttr):
        return {"predicate": predicate.value.data}
    return {}


def _ints(attr: Attribute | None) -> tuple[int, ...]:
    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())
    return ()


@extracts(linalg.TransposeOp)
def _linalg_transpose(op: linalg.TransposeOp, spec: OpSpec) -> dict[str, Any]:
    return {"permutation": _ints(op.properties.get("permutation"))}


@extracts(linalg.BroadcastOp)
def _linalg_broadcast(op: linalg.BroadcastOp, spec: OpSpec) -> dict[str, Any]:
    return {"dimensions": _ints(op.properties.get("dimensions"))}
