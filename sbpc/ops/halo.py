"""Halo exchange: spatial splits of convolutions whose windows overlap.

A 3x3 convolution split along image rows needs, on every device, a few rows
of its neighbours' pieces (the *halo*).  sbpc models this as a pre-step of
the op (as Shardy and MLIR's shard dialect do with ``collective_permute`` /
``update_halo``): under a signature that splits a spatial dimension of the
input and the output alike, every device first receives the last ``low``
rows of the previous device's piece and the first ``high`` rows of the next
one's, the devices at the edges receive the padding value (zeros) instead,
and then all devices run one local convolution without padding along that
dimension on the extended piece.

The exchange is exact when, with input size ``L``, padding ``(lo, hi)``,
stride ``s``, effective window ``W = (k - 1) * rhs_dilation + 1`` and output
size ``O``:

* ``L = s * O`` and no input dilation: output block ``j`` of ``O/n`` rows
  reads input rows ``[j*P - lo, (j+1)*P + W - s - lo)`` with ``P = L/n``, so
  ``low = lo`` and ``high = W - s - lo`` (both >= 0, ``hi >= high``);
* ``n`` divides ``L`` and ``O`` (even pieces), the dimension is split by
  one hierarchy dimension only, and ``low, high <= P`` (only the direct
  neighbours are read).

Anything else has no halo signature (``halo_fits`` is False), so the
strategies never pick it.  This module is plain numpy (the simulator's and
the signature checker's exchange); the JAX form is
``sbpc.jax_backend.halo`` (``lax.ppermute``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sbpc.algebra.pieces import Pieces
from sbpc.algebra.placement import Coord
from sbpc.algebra.sbp import Split
from sbpc.algebra.signature import Signature
from sbpc.ops.spec import OpSpec

CONVOLUTION = "stablehlo.convolution"
REDUCE_WINDOW = "stablehlo.reduce_window"


@dataclass(frozen=True)
class Halo:
    """One exchange: operand ``operand``'s tensor dim ``dim``, split by
    hierarchy dim ``mesh_dim`` into ``pieces`` of ``size`` rows, gets ``low``
    rows from the previous device and ``high`` rows from the next one."""

    operand: int
    dim: int
    mesh_dim: int
    pieces: int
    size: int
    low: int
    high: int
    spatial: int  # index among the op's spatial dims (its padding entry)
    fill: int | None = None  # operand holding the padding value (None: zeros)


def _ints(op: OpSpec, key: str, default: int, k: int) -> tuple[int, ...]:
    value = op.attr(key)
    return (default,) * k if not value else tuple(int(v) for v in value)


def halo_spatial_dims(op: OpSpec) -> list[tuple[int, int, int, int, int]]:
    """(spatial index, input dim, output dim, low, high) of the convolution's
    spatial dims a halo exchange can split (whatever the device count)."""
    spatial = _ints(op, "input_spatial_dimensions", 0, 0)
    k = len(spatial)
    kernel = _ints(op, "kernel_spatial_dimensions", 0, 0)
    outs = _ints(op, "output_spatial_dimensions", 0, 0)
    strides = _ints(op, "window_strides", 1, k)
    lhs_dil = _ints(op, "lhs_dilation", 1, k)
    rhs_dil = _ints(op, "rhs_dilation", 1, k)
    pad = op.attr("padding")
    padding = ((0, 0),) * k if pad is None else tuple((int(a), int(b)) for a, b in pad)
    lhs, rhs, res = op.operands[0].shape, op.operands[1].shape, op.results[0].shape
    dims = []
    for j in range(k):
        s, (lo, hi) = strides[j], padding[j]
        window = (rhs[kernel[j]] - 1) * rhs_dil[j] + 1
        high = window - s - lo
        if (
            lhs_dil[j] == 1
            and lhs[spatial[j]] == s * res[outs[j]]
            and lo >= 0
            and 0 <= high <= hi
        ):
            dims.append((j, spatial[j], outs[j], lo, high))
    return dims


def halo_window_dims(op: OpSpec) -> list[tuple[int, int, int, int, int]]:
    """As ``halo_spatial_dims`` for a one-input ``reduce_window`` (pooling):
    every dim is a window dim, padded with the init value."""
    if len(op.operands) != 2:
        return []
    shape, res = op.operands[0].shape, op.results[0].shape
    k = len(shape)
    window = _ints(op, "window_dimensions", 1, k)
    strides = _ints(op, "window_strides", 1, k)
    base = _ints(op, "base_dilations", 1, k)
    dilation = _ints(op, "window_dilations", 1, k)
    pad = op.attr("padding")
    padding = ((0, 0),) * k if pad is None else tuple((int(a), int(b)) for a, b in pad)
    dims = []
    for d in range(k):
        (lo, hi), s = padding[d], strides[d]
        high = (window[d] - 1) * dilation[d] + 1 - s - lo
        if base[d] == 1 and shape[d] == s * res[d] and lo >= 0 and 0 <= high <= hi:
            dims.append((d, d, d, lo, high))
    return dims


def _halo_dims(op: OpSpec) -> tuple[list[tuple[int, int, int, int, int]], int | None]:
    """The op's halo-able dims and the operand holding its padding value."""
    if op.name == CONVOLUTION:
        return halo_spatial_dims(op), None
    if op.name == REDUCE_WINDOW:
        return halo_window_dims(op), 1
    return [], None


def halos(op: OpSpec, sig: Signature, hierarchy: Sequence[int]) -> list[Halo]:
    """The exchanges ``op`` needs before it runs under ``sig``; raises
    ``ValueError`` for a split no exchange makes exact."""
    dims, fill = _halo_dims(op)
    if not dims or not sig.inputs:
        return []
    nd = sig.inputs[0]
    out = []
    for j, dim, _, low, high in dims:
        if low == 0 and high == 0:
            continue  # windows tile the pieces: nothing to trade
        mesh_dims = [m for m, s in enumerate(nd) if s == Split(dim)]
        if not mesh_dims:
            continue
        if len(mesh_dims) > 1:
            raise ValueError(f"halo of dim {dim} split by {len(mesh_dims)} mesh dims")
        n = hierarchy[mesh_dims[0]]
        length = op.operands[0].shape[dim]
        if length % n:
            raise ValueError(f"halo of dim {dim}: {length} rows in {n} uneven pieces")
        size = length // n
        if max(low, high) > size:
            raise ValueError(f"halo of dim {dim} wider than a piece of {size} rows")
        out.append(Halo(0, dim, mesh_dims[0], n, size, low, high, j, fill))
    return out


def halo_fits(op: OpSpec, sig: Signature, hierarchy: Sequence[int]) -> bool:
    """Whether every exchange ``sig`` needs is exact (see the module doc)."""
    try:
        halos(op, sig, hierarchy)
    except ValueError:
        return False
    return True


def halo_local(op: OpSpec, local: OpSpec, hs: Sequence[Halo]) -> OpSpec:
    """The local op on extended pieces: no padding along the exchanged dims."""
    if not hs:
        return local
    pad = op.attr("padding")
    k = op.operands[0].rank
    if op.name == CONVOLUTION:
        k = len(_ints(op, "input_spatial_dimensions", 0, 0))
    padding = [(0, 0)] * k if pad is None else [(int(a), int(b)) for a, b in pad]
    operands = list(local.operands)
    for h in hs:
        padding[h.spatial] = (0, 0)
        t = operands[h.operand]
        shape = list(t.shape)
        shape[h.dim] += h.low + h.high
        operands[h.operand] = type(t)(tuple(shape), t.element)
    return local.replace(operands=operands, padding=tuple(padding))


def _take(x: np.ndarray, dim: int, start: int, stop: int) -> np.ndarray:
    index = [slice(None)] * x.ndim
    index[dim] = slice(start, stop)
    return x[tuple(index)]


def _neighbour(coord: Coord, mesh_dim: int, step: int) -> Coord:
    c = list(coord)
    c[mesh_dim] += step
    return tuple(c)


def exchange(
    op: OpSpec, sig: Signature, hierarchy: Sequence[int], pieces: Sequence[Pieces]
) -> list[Pieces]:
    """Every device's operand pieces after the halo exchange (numpy)."""
    out = [dict(p) for p in pieces]
    for h in halos(op, sig, hierarchy):
        src = out[h.operand]  # chained: corners come with the second exchange
        extended: Pieces = {}
        for coord, x in src.items():
            i = coord[h.mesh_dim]
            fill = 0 if h.fill is None else pieces[h.fill][coord]
            parts = []
            if h.low:
                prev = _neighbour(coord, h.mesh_dim, -1)
                rows = (
                    _take(src[prev], h.dim, h.size - h.low, h.size) if i > 0 else None
                )
                parts.append(
                    _fill_rows(x, h.dim, h.low, fill) if rows is None else rows
                )
            parts.append(x)
            if h.high:
                nxt = _neighbour(coord, h.mesh_dim, 1)
                last = i == h.pieces - 1
                rows = None if last else _take(src[nxt], h.dim, 0, h.high)
                parts.append(
                    _fill_rows(x, h.dim, h.high, fill) if rows is None else rows
                )
            extended[coord] = np.concatenate(parts, axis=h.dim)
        out[h.operand] = extended
    return out


def _fill_rows(
    x: np.ndarray, dim: int, rows: int, fill: float | np.ndarray
) -> np.ndarray:
    """The padding an edge device stands in for its missing neighbour."""
    shape = list(x.shape)
    shape[dim] = rows
    return np.full(shape, fill, x.dtype)


def halo_bytes(
    op: OpSpec, sig: Signature, hierarchy: Sequence[int]
) -> list[tuple[int, int]]:
    """(mesh dim, bytes one device receives) of each exchange, for the cost model."""
    out = []
    for h in halos(op, sig, hierarchy):
        t = op.operands[h.operand]
        nd = sig.inputs[h.operand]
        local = list(t.shape)
        for m, s in enumerate(nd):
            if isinstance(s, Split):
                local[s.axis] //= hierarchy[m]
        local[h.dim] = h.low + h.high
        out.append((h.mesh_dim, type(t)(tuple(local), t.element).nbytes))
    return out
