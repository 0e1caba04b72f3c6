"""Uneven splits in the JAX lowering: padded pieces, masks and re-layouts.

Inside ``shard_map`` every piece of a value has one static shape, the
padded (largest) piece (``sbpc.algebra.layout.local_shape``); rows past a
device's own piece size hold garbage.  This module emits the source text
that keeps that garbage out of results:

* ``mask_lines``: before an op that folds a split dim away (a reduction, a
  contracting dot: ``sbpc.ops.uneven.consumed_dims``), padding is replaced by
  the fold's identity with ``jnp.where(iota < size[block], x, fill)``;
* ``uneven_step_expr``: a boxing step that changes the split of an unevenly
  split dim goes through the whole dim: gather the padded pieces, drop the
  padding rows (a static ``jnp.take``), then pad and cut for the target.
  A partial reduced onto an uneven split of a dim it holds whole is padded
  first and reduce-scattered as an even step;
* ``arg_pads`` / ``result_unpads``: the static row indices the emitted
  wrapper uses to turn logical global arrays into the padded global layout
  before ``shard_map`` and back after it.
"""

from __future__ import annotations

from collections.abc import Sequence

from sbpc.algebra.layout import (
    block_sizes,
    local_shape,
    padded_size,
    padding_index,
    unpadding_index,
)
from sbpc.algebra.sbp import Broadcast, NdSbp, Partial, Split
from sbpc.algebra.signature import Signature
from sbpc.boxing.collective_kind import CollectiveKind
from sbpc.jax_backend.collectives import axes_expr, step_expr
from sbpc.ops.spec import OpSpec
from sbpc.ops.uneven import consumed_dims

Shape = tuple[int, ...]


def uneven_dims(shape: Shape, nd: NdSbp, hierarchy: Sequence[int]) -> list[int]:
    """Tensor dims whose split under ``nd`` leaves padding."""
    return [
        d for d, n in enumerate(shape) if padding_index(n, nd, hierarchy, d) is not None
    ]


def _split_axes(nd: NdSbp, dim: int) -> list[int]:
    return [k for k, s in enumerate(nd) if isinstance(s, Split) and s.axis == dim]


def _index(values: Sequence[int]) -> str:
    return f"jnp.asarray({list(values)}, jnp.int32)"


def valid_expr(shape: Shape, nd: NdSbp, hierarchy: Sequence[int], dim: int) -> str:
    """Boolean mask of the rows along ``dim`` that belong to this device's piece."""
    local = local_shape(shape, nd, hierarchy)
    sizes = block_sizes(shape[dim], nd, hierarchy, dim)
    block = f"lax.axis_index({axes_expr(_split_axes(nd, dim))})"
    iota = f"lax.broadcasted_iota(jnp.int32, {tuple(local)!r}, {dim})"
    return f"({iota} < {_index(sizes)}[{block}])"


def mask_lines(
    op: OpSpec, sig: Signature, hierarchy: Sequence[int], args: list[str], tag: str
) -> tuple[list[str], list[str]]:
    """Lines filling padding with the identity where ``op`` folds a split dim."""
    lines: list[str] = []
    args = list(args)
    for k, dims, fill in consumed_dims(op):
        t, nd = op.operands[k], sig.inputs[k]
        padded = [d for d in dims if d in uneven_dims(t.shape, nd, hierarchy)]
        if not padded:
            continue
        name = f"{tag}_m{k}"
        value = args[k]
        filler = f"jnp.zeros_like({value})" if fill is None else args[fill]
        for d in padded:
            cond = valid_expr(t.shape, nd, hierarchy, d)
            lines.append(f"    {name} = jnp.where({cond}, {value}, {filler})")
            value = name
        args[k] = value
    if lines:
        lines.insert(0, "    # uneven split: padding holds the fold's identity")
    return lines, args


def _gather_whole(x: str, dim: int, nd: NdSbp, shape: Shape, h: Sequence[int]) -> str:
    axes = _split_axes(nd, dim)
    if not axes:
        return x
    y = f"lax.all_gather({x}, {axes_expr(axes)}, axis={dim}, tiled=True)"
    index = unpadding_index(shape[dim], nd, h, dim)
    return y if index is None else f"jnp.take({y}, {_index(index)}, axis={dim})"


def _cut(x: str, dim: int, nd: NdSbp, shape: Shape, h: Sequence[int]) -> str:
    axes = _split_axes(nd, dim)
    if not axes:
        return x
    index = padding_index(shape[dim], nd, h, dim)
    if index is not None:
        x = f"jnp.take({x}, {_index(index)}, axis={dim})"
    size = padded_size(shape[dim], nd, h, dim)
    start = f"lax.axis_index({axes_expr(axes)}) * {size}"
    return f"lax.dynamic_slice_in_dim({x}, {start}, {size}, {dim})"


def _unpartial(nd: NdSbp, dims: Sequence[int]) -> NdSbp:
    return tuple(
        Broadcast() if k in dims and isinstance(s, Partial) else s
        for k, s in enumerate(nd)
    )


def uneven_step_expr(
    dims: Sequence[int],
    src: NdSbp,
    dst: NdSbp,
    x: str,
    shape: Shape,
    element: str,
    hierarchy: Sequence[int],
) -> str | None:
    """A boxing step that re-splits an unevenly split dim; ``None`` when the
    step changes no uneven dim (the even lowering is then exact)."""
    s, t = src[dims[0]], dst[dims[0]]
    changed = sorted({e.axis for e in (s, t) if isinstance(e, Split)})
    if not any(
        d in uneven_dims(shape, nd, hierarchy) for d in changed for nd in (src, dst)
    ):
        return None
    if isinstance(s, Partial) and isinstance(t, Split) and not _split_axes(src, t.axis):
        # P -> S(d) onto an uneven split of a dim the source holds whole: the
        # partial piece is laid out as the target's padded global dim (a
        # static ``jnp.take``), which divides evenly, then reduce-scattered as
        # an even step, so it moves the padded bytes the cost model prices.
        index = padding_index(shape[t.axis], dst, hierarchy, t.axis)
        assert index is not None
        padded = list(shape)
        padded[t.axis] = len(index)
        return step_expr(
            CollectiveKind.REDUCE_SCATTER,
            dims,
            src,
            dst,
            f"jnp.take({x}, {_index(index)}, axis={t.axis})",
            local_shape(tuple(padded), src, hierarchy),
            local_shape(shape, dst, hierarchy),
            element,
        )
    mid_src, mid_dst = _unpartial(src, dims), _unpartial(dst, dims)
    if isinstance(s, Partial):
        x = step_expr(CollectiveKind.ALL_REDUCE, dims, src, mid_src, x, (), (), element)
    for d in changed:
        x = _gather_whole(x, d, mid_src, shape, hierarchy)
    for d in changed:
        x = _cut(x, d, mid_dst, shape, hierarchy)
    if isinstance(t, Partial):
        x = step_expr(
            CollectiveKind.LOCAL_TO_PARTIAL, dims, mid_dst, dst, x, (), (), element
        )
    return x


def arg_pads(
    shape: Shape, nd: NdSbp, hierarchy: Sequence[int]
) -> list[tuple[int, list[int]]]:
    """(dim, rows) taking a logical global array to the padded global layout."""
    out = []
    for d in uneven_dims(shape, nd, hierarchy):
        index = padding_index(shape[d], nd, hierarchy, d)
        assert index is not None
        out.append((d, index))
    return out


def result_unpads(
    shape: Shape, nd: NdSbp, hierarchy: Sequence[int], lead: int
) -> list[tuple[int, list[int]]]:
    """(array axis, rows) taking a padded global result back to its logical
    shape; ``lead`` stacked partial axes come first."""
    out = []
    for d in uneven_dims(shape, nd, hierarchy):
        index = unpadding_index(shape[d], nd, hierarchy, d)
        assert index is not None
        out.append((d + lead, index))
    return out
