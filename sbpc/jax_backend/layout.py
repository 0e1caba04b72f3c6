"""JAX forms of the ops that make or move data: constants and iota, broadcasts,
reshapes, transposes, slices, padding, gather and scatter.

``stablehlo.constant`` and ``stablehlo.iota`` take a device's block from the
emitter's device-dependent attributes (``dyn``), as do gather and scatter on
an operand split along a dim they index (``dyn['index_offsets']``,
``sbpc.ops.indexed_blocks``); the others need only the op.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from sbpc.jax_backend.ops import (
    Context,
    UnsupportedOpError,
    emits,
    ints,
    py_tuple,
    register_emitter,
    result,
)
from sbpc.ops.spec import OpSpec, numpy_dtype

# --- constants and iota -----------------------------------------------------------


@register_emitter("stablehlo.constant")
@register_emitter("arith.constant")
def _constant(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    """The whole value; a device's block arrives in ``dyn['value']``."""
    if "value" in dyn:
        return [dyn["value"]]
    shape, dtype = result(op)
    element = op.results[0].element
    value = np.asarray(op.attr("value")).astype(numpy_dtype(element))
    name = ctx.const(value, element)
    if value.shape == shape:
        return [f"jnp.asarray({name}, {dtype})"]
    return [f"jnp.broadcast_to(jnp.asarray({name}, {dtype}), {py_tuple(shape)})"]


@register_emitter("stablehlo.iota")
def _iota(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    """Counts from ``iota_offset`` (an expression on a device holding a block)."""
    shape, dtype = result(op)
    dim = int(op.attr("iota_dimension"))
    base = f"lax.broadcasted_iota({dtype}, {py_tuple(shape)}, {dim})"
    offset = dyn.get("iota_offset", str(int(op.attr("iota_offset", 0))))
    if offset == "0":
        return [base]
    return [f"({base} + jnp.asarray({offset}, {dtype}))"]


# --- layout ops ---------------------------------------------------------------------


def _broadcast_expr(x: str, shape: Sequence[int], dims: Sequence[int]) -> str:
    dims = [int(d) for d in dims]
    if dims != sorted(dims):
        order = [int(i) for i in np.argsort(dims)]
        x = f"lax.transpose({x}, {py_tuple(order)})"
        dims = sorted(dims)
    return f"lax.broadcast_in_dim({x}, {py_tuple(shape)}, {py_tuple(dims)})"


@emits("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(op: OpSpec, args: list[str]) -> str:
    shape, _ = result(op)
    return _broadcast_expr(args[0], shape, ints(op, "broadcast_dimensions"))


@emits("linalg.broadcast")
def _linalg_broadcast(op: OpSpec, args: list[str]) -> str:
    shape, _ = result(op)
    added = set(ints(op, "dimensions"))
    kept = [d for d in range(len(shape)) if d not in added]
    return _broadcast_expr(args[0], shape, kept)


@emits("linalg.fill")
def _fill(op: OpSpec, args: list[str]) -> str:
    shape, dtype = result(op)
    return f"jnp.broadcast_to(jnp.asarray({args[0]}, {dtype}), {py_tuple(shape)})"


@emits("stablehlo.reshape")
def _reshape(op: OpSpec, args: list[str]) -> str:
    shape, _ = result(op)
    return f"jnp.reshape({args[0]}, {py_tuple(shape)})"


@emits("stablehlo.transpose", "linalg.transpose")
def _transpose(op: OpSpec, args: list[str]) -> str:
    return f"lax.transpose({args[0]}, {py_tuple(ints(op, 'permutation'))})"


@emits("stablehlo.reverse")
def _reverse(op: OpSpec, args: list[str]) -> str:
    dims = ints(op, "dimensions")
    return f"lax.rev({args[0]}, {py_tuple(dims)})" if dims else args[0]


@emits("stablehlo.concatenate")
def _concatenate(op: OpSpec, args: list[str]) -> str:
    return f"lax.concatenate([{', '.join(args)}], {int(op.attr('dimension'))})"


@emits("stablehlo.slice")
def _slice(op: OpSpec, args: list[str]) -> str:
    start = ints(op, "start_indices")
    limit = ints(op, "limit_indices")
    strides = ints(op, "strides") or (1,) * len(start)
    return f"lax.slice({args[0]}, {py_tuple(start)}, {py_tuple(limit)}, {py_tuple(strides)})"


def _clamped(starts: Sequence[str], shape: Sequence[int], sizes: Sequence[int]) -> str:
    """StableHLO clamps starts into range (jax would wrap negative ones)."""
    parts = [
        f"jnp.clip({s}, 0, {int(d) - int(n)})"
        for s, d, n in zip(starts, shape, sizes, strict=True)
    ]
    return "[" + ", ".join(parts) + "]"


@emits("stablehlo.dynamic_slice")
def _dynamic_slice(op: OpSpec, args: list[str]) -> str:
    sizes = ints(op, "slice_sizes")
    starts = _clamped(args[1:], op.operands[0].shape, sizes)
    return f"lax.dynamic_slice({args[0]}, {starts}, {py_tuple(sizes)})"


@emits("stablehlo.dynamic_update_slice")
def _dynamic_update_slice(op: OpSpec, args: list[str]) -> str:
    starts = _clamped(args[2:], op.operands[0].shape, op.operands[1].shape)
    return f"lax.dynamic_update_slice({args[0]}, {args[1]}, {starts})"


@emits("stablehlo.pad")
def _pad(op: OpSpec, args: list[str]) -> str:
    lo, hi = ints(op, "edge_padding_low"), ints(op, "edge_padding_high")
    interior = ints(op, "interior_padding") or (0,) * len(lo)
    config = ", ".join(
        f"({a}, {b}, {i})" for a, b, i in zip(lo, hi, interior, strict=True)
    )
    return f"lax.pad({args[0]}, {args[1]}, [{config}])"


# --- gather and scatter ---------------------------------------------------------------


def _index_vector_last(
    op: OpSpec, indices: str, batching_attr: str
) -> tuple[str, list[int]]:
    """``indices`` (operand 1) with its index vector dim moved last, as
    ``lax.gather``/``lax.scatter`` want, and the batching dims renumbered."""
    rank = op.operands[1].rank
    ivd = int(op.attr("index_vector_dim"))
    batching = list(ints(op, batching_attr))
    if ivd == rank:
        return f"{indices}[..., None]", batching
    if ivd != rank - 1:
        indices = f"jnp.moveaxis({indices}, {ivd}, -1)"
        batching = [d - 1 if d > ivd else d for d in batching]
    return indices, batching


def _block_bounds(op: OpSpec, dyn: Mapping[str, str], index_map: str) -> tuple:
    """(offsets expression, the operand's dims along the index vector)."""
    offsets = dyn.get("index_offsets", py_tuple(ints(op, "index_offsets")))
    return offsets, [op.operands[0].shape[d] for d in ints(op, index_map)]


@register_emitter("stablehlo.gather")
def _gather(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    """``lax.gather`` wants the index vector last; starts clamp (mode CLIP).
    From a block of the operand: ``_gather_rows`` (the runtime's)."""
    x, indices = args
    indices, batching = _index_vector_last(op, indices, "start_indices_batching_dims")
    dnums = (
        "lax.GatherDimensionNumbers("
        f"offset_dims={py_tuple(ints(op, 'offset_dims'))}, "
        f"collapsed_slice_dims={py_tuple(ints(op, 'collapsed_slice_dims'))}, "
        f"start_index_map={py_tuple(ints(op, 'start_index_map'))}, "
        f"operand_batching_dims={py_tuple(ints(op, 'operand_batching_dims'))}, "
        f"start_indices_batching_dims={py_tuple(batching)})"
    )
    sizes = ints(op, "slice_sizes")
    call = f"lax.gather({x}, {{}}, {dnums}, {py_tuple(sizes)}, mode=lax.GatherScatterMode.CLIP)"
    if op.attr("index_offsets") is None:
        return [call.format(indices)]
    offsets, local = _block_bounds(op, dyn, "start_index_map")
    index_map = ints(op, "start_index_map")
    whole = [
        n - sizes[d] for n, d in zip(ints(op, "index_limits"), index_map, strict=True)
    ]
    inner = [n - sizes[d] for n, d in zip(local, index_map, strict=True)]
    offset_dims = set(ints(op, "offset_dims"))
    rows = [d for d in range(op.results[0].rank) if d not in offset_dims]
    return [
        f"_gather_rows({indices}, {offsets}, {py_tuple(whole)}, {py_tuple(inner)}, "
        f"{py_tuple(rows)}, lambda i: {call.format('i')})"
    ]


# scatter body kind -> lax function (or/and on booleans are max/min)
_SCATTER = {
    "add": "lax.scatter_add",
    "mul": "lax.scatter_mul",
    "max": "lax.scatter_max",
    "min": "lax.scatter_min",
    "or": "lax.scatter_max",
    "and": "lax.scatter_min",
    "replace": "lax.scatter",
}


@register_emitter("stablehlo.scatter")
def _scatter(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    """``lax.scatter_*`` want the index vector last; windows that do not fit
    are dropped, as StableHLO (XLA) does (mode FILL_OR_DROP).  Into a block
    of the operand: ``_scatter_rows`` (the runtime's)."""
    x, indices, updates = args
    kind = op.attr("kind")
    if kind not in _SCATTER:
        raise UnsupportedOpError(f"'{op.name}' with body kind {kind!r} has no JAX form")
    indices, batching = _index_vector_last(op, indices, "scatter_indices_batching_dims")
    dnums = (
        "lax.ScatterDimensionNumbers("
        f"update_window_dims={py_tuple(ints(op, 'update_window_dims'))}, "
        f"inserted_window_dims={py_tuple(ints(op, 'inserted_window_dims'))}, "
        "scatter_dims_to_operand_dims="
        f"{py_tuple(ints(op, 'scatter_dims_to_operand_dims'))}, "
        f"operand_batching_dims={py_tuple(ints(op, 'input_batching_dims'))}, "
        f"scatter_indices_batching_dims={py_tuple(batching)})"
    )
    flags = (
        f"indices_are_sorted={bool(op.attr('indices_are_sorted', False))}, "
        f"unique_indices={bool(op.attr('unique_indices', False))}"
    )
    call = (
        f"{_SCATTER[str(kind)]}({x}, {{}}, {updates}, {dnums}, {flags}, "
        "mode=lax.GatherScatterMode.FILL_OR_DROP)"
    )
    if op.attr("index_offsets") is None:
        return [call.format(indices)]
    offsets, _ = _block_bounds(op, dyn, "scatter_dims_to_operand_dims")
    window = dict(_window_sizes(op))
    index_map = ints(op, "scatter_dims_to_operand_dims")
    whole = [
        n - window.get(d, 1)
        for n, d in zip(ints(op, "index_limits"), index_map, strict=True)
    ]
    return [
        f"_scatter_rows({indices}, {offsets}, {py_tuple(whole)}, "
        f"lambda i: {call.format('i')})"
    ]


def _window_sizes(op: OpSpec) -> list[tuple[int, int]]:
    """(operand dim, update window size) of a scatter's window dims."""
    dropped = set(ints(op, "inserted_window_dims")) | set(
        ints(op, "input_batching_dims")
    )
    window = [d for d in range(op.operands[0].rank) if d not in dropped]
    updates = op.operands[2].shape
    return [
        (d, updates[u])
        for d, u in zip(window, ints(op, "update_window_dims"), strict=True)
    ]
