"""SBP rules and references of the windowed ops: ``stablehlo.reduce_window``
(pooling, ``cumsum``/``cummax``) and ``stablehlo.select_and_scatter`` (the
max-pooling gradient).

Attributes: ``window_dimensions``, ``window_strides``, ``padding`` ((low,
high) per dim), and for ``reduce_window`` ``base_dilations``,
``window_dilations`` and ``kind`` (the body, as ``reduce``'s: ``add``
``max`` ``min`` ``mul`` ``and`` ``or``); for ``select_and_scatter``
``select`` (``GE``/``GT``/``LE``/``LT``: the compare of the select body, GE
keeps the first maximum of a window) and ``kind`` (the scatter body,
``add``).  Operands: ``reduce_window`` its inputs then their init values;
``select_and_scatter`` operand, source, init value.

Rules: a dimension splits when no window crosses a block boundary: a window
of one element (width 1, stride 1, no padding or dilation), or windows that
tile it (width <= stride, no padding or dilation, size = stride x output
size: 2x2 pooling with stride 2); a one-input ``reduce_window`` also splits
where windows overlap, with a halo exchange (``sbpc.ops.halo``: 3x3
pools).  ``reduce_window`` add is linear in its
input and init together (``P(sum)``); max/min commute with ``P(max)`` /
``P(min)`` of the input (init ``B`` or alike).  ``select_and_scatter`` add
is linear in source and init with the operand ``B`` (the operand picks the
positions, the source values are summed there).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from sbpc.algebra.placement import Coord
from sbpc.algebra.signature import Signature
from sbpc.ops.convolution import dilate_axis, pad_axis
from sbpc.ops.derive import Factor, factor_signatures, joint, linear
from sbpc.ops.halo import halo_local, halo_window_dims, halos
from sbpc.ops.kind import OpKinds
from sbpc.ops.spec import OpSpec
from sbpc.ops.stablehlo import reduce_partial_kind

BUILTINS = OpKinds()

_UFUNCS: dict[str, np.ufunc] = {
    "add": np.add,
    "mul": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
}


def _ints(op: OpSpec, key: str) -> tuple[int, ...]:
    value = op.attr(key)
    rank = op.operands[0].rank
    return (1,) * rank if value is None else tuple(int(v) for v in value)


def _padding(op: OpSpec) -> tuple[tuple[int, int], ...]:
    pad = op.attr("padding")
    if pad is None:
        return ((0, 0),) * op.operands[0].rank
    return tuple((int(lo), int(hi)) for lo, hi in pad)


def untouched_dims(op: OpSpec, output: Sequence[int]) -> list[int]:
    """Dims no window crosses a block boundary of (see the module doc)."""
    shape = op.operands[0].shape
    window, strides = _ints(op, "window_dimensions"), _ints(op, "window_strides")
    base = _ints(op, "base_dilations")
    dilation = _ints(op, "window_dilations")
    pad = _padding(op)
    return [
        d
        for d in range(len(shape))
        if window[d] <= strides[d]
        and pad[d] == (0, 0)
        and base[d] == 1
        and dilation[d] == 1
        and shape[d] == strides[d] * output[d]
    ]


# --- reduce_window ------------------------------------------------------------------


@BUILTINS.rule("stablehlo.reduce_window")
def reduce_window_rule(op: OpSpec) -> list[Signature]:
    n = len(op.operands) // 2
    m = len(op.results)
    dims = list(dict.fromkeys(untouched_dims(op, op.results[0].shape)))
    dims += [d for _, d, _, _, _ in halo_window_dims(op) if d not in dims]
    sigs = factor_signatures(Factor((d,) * n + (None,) * n, (d,) * m) for d in dims)
    partial = reduce_partial_kind(op, op.attr("kind"))
    if partial == "sum":
        sigs += linear(2 * n, m, range(2 * n))
    elif partial is not None:
        sigs += joint(2 * n, m, range(2 * n), (partial,))
        sigs += joint(2 * n, m, range(n), (partial,))
    return sigs


@BUILTINS.local("stablehlo.reduce_window")
def reduce_window_local(
    op: OpSpec, local: OpSpec, sig: Signature, hierarchy: Sequence[int], coord: Coord
) -> OpSpec:
    """Overlapping windows split with a halo run unpadded on extended pieces."""
    return halo_local(op, local, halos(op, sig, hierarchy))


def reduce_window_array(op: OpSpec, x: np.ndarray, init: np.ndarray) -> np.ndarray:
    """One input's windows reduced, padding and holes filled with ``init``."""
    kind = op.attr("kind")
    if kind not in _UFUNCS:
        raise ValueError(f"stablehlo.reduce_window: cannot evaluate body kind {kind!r}")
    ufunc = _UFUNCS[str(kind)]
    window, strides = _ints(op, "window_dimensions"), _ints(op, "window_strides")
    dilation = _ints(op, "window_dilations")
    for d, (lo, hi) in enumerate(_padding(op)):
        x = dilate_axis(x, d, _ints(op, "base_dilations")[d], init)
        x = pad_axis(x, d, lo, hi, init)
    spans = [(w - 1) * r + 1 for w, r in zip(window, dilation, strict=True)]
    views = sliding_window_view(x, spans)
    rank = x.ndim
    views = views[
        tuple(slice(None, None, s) for s in strides)
        + tuple(slice(None, None, r) for r in dilation)
    ]
    axes = tuple(range(rank, 2 * rank))
    reduced = ufunc.reduce(views, axis=axes) if views.size else views.sum(axis=axes)
    return ufunc(init, reduced)


@BUILTINS.evaluator("stablehlo.reduce_window")
def _reduce_window(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    n = len(xs) // 2
    return [reduce_window_array(op, x, i) for x, i in zip(xs[:n], xs[n:], strict=True)]


# --- select_and_scatter ------------------------------------------------------------


@BUILTINS.rule("stablehlo.select_and_scatter")
def select_and_scatter_rule(op: OpSpec) -> list[Signature]:
    dims = untouched_dims(op, op.operands[1].shape)
    sigs = factor_signatures(Factor((d, d, None), (d,)) for d in dims)
    if op.attr("kind") == "add":
        sigs += linear(3, 1, (1, 2))
    return sigs


_SELECT = {
    "GE": np.greater_equal,
    "GT": np.greater,
    "LE": np.less_equal,
    "LT": np.less,
}


@BUILTINS.evaluator("stablehlo.select_and_scatter")
def _select_and_scatter(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    """Each window keeps its current pick while ``select(pick, next)`` holds
    (row-major order); the source element is added at the pick."""
    operand, source, init = xs
    select = _SELECT.get(str(op.attr("select")))
    if select is None or op.attr("kind") != "add":
        raise ValueError(
            "stablehlo.select_and_scatter: only GE/GT/LE/LT selects with an add "
            "scatter can be evaluated"
        )
    if any(p != (0, 0) for p in _padding(op)):
        raise ValueError("stablehlo.select_and_scatter: padding is not evaluated")
    window, strides = _ints(op, "window_dimensions"), _ints(op, "window_strides")
    rank = operand.ndim
    views = sliding_window_view(operand, window)[
        tuple(slice(None, None, s) for s in strides)
    ]
    flat = views.reshape(*views.shape[:rank], -1)
    pick = np.zeros(flat.shape[:rank], np.int64)
    best = flat[..., 0]
    for k in range(1, flat.shape[-1]):
        keep = select(best, flat[..., k])
        pick = np.where(keep, pick, k)
        best = np.where(keep, best, flat[..., k])
    offsets = np.unravel_index(pick, window)
    grid = np.indices(source.shape)
    target = tuple(grid[d] * strides[d] + offsets[d] for d in range(rank))
    out = np.full(operand.shape, init, dtype=np.result_type(source, init))
    np.add.at(out, target, source)
    return [out]
