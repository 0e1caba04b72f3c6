"""IR operations as the plain ``OpSpec``s that sbpc's algorithms work on.

How an op's attributes become plain values is the ``ir_extractor`` facet of
its op kind (``sbpc.ops.kind``), registered here for sbpc's dialects with
``extracts``: StableHLO ops describe their own attributes
(``stablehlo.plain_attrs``), for arith and linalg this module maps xDSL's op
classes onto the attribute keys the op rules expect (documented in
``sbpc.ops.linalg`` and ``sbpc.ops.arith``).  CHLO ops (``chlo.square``,
``chlo.erf`` ...) have no attributes.  Ops without an extractor still get an
``OpSpec`` (name and types): their rules, if any, see no attributes.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    TensorType,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Operation

from sbpc.algebra.tensor_type import TensorType as PlainTensorType
from sbpc.algebra.tensor_type import size_error
from sbpc.dialects import chlo
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects import stablehlo as shlo
from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.stablehlo.sort import arg_reduction_kind
from sbpc.ops.kind import OP_KINDS
from sbpc.ops.spec import OpSpec, scatter_kinds

from .spec_memo import remembered_spec


def op_label(op: Operation) -> str:
    """A readable name for reports: the op name and its first result's name."""
    results = op.results
    name = results[0].name_hint if results else None
    return f"{op.name} %{name}" if name else op.name


class UnsupportedTypeError(ValueError):
    """A value whose type sbpc cannot lay out (not a static ranked tensor)."""


def plain_type(t: Attribute) -> PlainTensorType:
    """``tensor<8x16xf32>`` -> ``TensorType((8, 16), "f32")`` (memoised: a
    module repeats a few types thousands of times)."""
    try:
        return _plain_type_memo(t)
    except TypeError:  # an attribute that cannot be hashed: not memoised
        return _plain_type(t)


@lru_cache(maxsize=4096)
def _plain_type_memo(t: Attribute) -> PlainTensorType:
    return _plain_type(t)


def _plain_type(t: Attribute) -> PlainTensorType:
    if not isinstance(t, TensorType):
        raise UnsupportedTypeError(f"expected a ranked tensor type, got {t}")
    shape = tuple(t.get_shape())
    if any(d < 0 for d in shape):
        raise UnsupportedTypeError(f"dynamic dimensions are not supported: {t}")
    element = str(t.element_type)
    if (why := size_error(shape, element)) is not None:
        raise UnsupportedTypeError(f"{t} is too large: {why}")
    return PlainTensorType(shape, element)


def is_tensor_op(op: Operation) -> bool:
    """Ops that compute on tensors: every operand and result a ranked tensor."""
    values = (*op.operand_types, *op.result_types)
    return bool(op.results) and all(isinstance(t, TensorType) for t in values)


AttrExtractor = Callable[[Operation, OpSpec], dict[str, Any]]


def extracts(*classes: type[Operation]) -> Callable[[AttrExtractor], AttrExtractor]:
    """Register the attribute extractor of some op classes (by their op names)."""

    def register(fn: AttrExtractor) -> AttrExtractor:
        for cls in classes:
            OP_KINDS.set(cls.name, "ir_extractor", fn)
        return fn

    return register


def op_spec_of(op: Operation) -> OpSpec:
    """The ``OpSpec`` of a tensor op (see ``is_tensor_op``), built once per op
    while the op keeps what the spec reads (``spec_memo``)."""
    return remembered_spec(op, built_op_spec)


def built_op_spec(op: Operation) -> OpSpec:
    """The ``OpSpec`` of a tensor op, built from the op (no memo)."""
    spec = OpSpec(
        op.name,
        tuple(plain_type(t) for t in op.operand_types),
        tuple(plain_type(t) for t in op.result_types),
    )
    kind = OP_KINDS.get(op.name)  # no rules needed, so no built-ins loaded
    if kind is None or kind.ir_extractor is None:
        return spec
    return spec.replace(**kind.ir_extractor(op, spec))


# -- stablehlo -----------------------------------------------------------------


@extracts(*shlo.StableHLO.operations)
def _stablehlo(op: Operation, spec: OpSpec) -> dict[str, Any]:
    """The dialect knows its own attributes (see ``stablehlo.plain_attrs``)."""
    return shlo.plain_attrs(op)


@extracts(shlo.ScatterOp)
def _scatter(op: Operation, spec: OpSpec) -> dict[str, Any]:
    """A scatter's attributes, refusing a body sbpc cannot lay out, evaluate or emit."""
    attrs = shlo.plain_attrs(op)
    element = spec.operands[0].element
    kinds = scatter_kinds(element)
    if attrs.get("kind") not in kinds:
        raise LocatedError(
            op,
            f"unsupported scatter combiner on {element}: the body must return the "
            "update or combine both arguments with one of "
            + ", ".join(k for k in kinds if k != "replace"),
        )
    return attrs


@extracts(shlo.ReduceOp)
def _reduce(op: shlo.ReduceOp, spec: OpSpec) -> dict[str, Any]:
    """A reduce's attributes; a two-input body may be JAX's argmax/argmin."""
    attrs = shlo.plain_attrs(op)
    if attrs.get("kind") is None:
        attrs["kind"] = arg_reduction_kind(op.inputs, op.body)
    return attrs


@extracts(sbp_dialect.MicrobatchOp)
def _microbatch(op: sbp_dialect.MicrobatchOp, spec: OpSpec) -> dict[str, Any]:
    return {"dim": op.dim}


@extracts(chlo.TopKOp)
def _top_k(op: chlo.TopKOp, spec: OpSpec) -> dict[str, Any]:
    return {"k": op.k}


# -- arith and linalg ----------------------------------------------------------


@extracts(arith.ConstantOp)
def _arith_constant(op: arith.ConstantOp, spec: OpSpec) -> dict[str, Any]:
    value = op.value
    if isinstance(value, DenseIntOrFPElementsAttr):
        return {"value": shlo.constant_array(value)}
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
