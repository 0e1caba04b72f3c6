"""What one device spends computing an op under a signature (the compute term
of the cost model).

Communication alone would make any plan that replicates work look free: a
data-parallel step could all-gather the batch and compute the whole step on
every device to save a gradient all-reduce.  Pricing each op by its *local*
work under the signature (a split divides it, ``B`` everywhere repeats it)
lets the strategies weigh replicated compute against the bytes it saves.

Work is a roofline on local shapes: ``max(flops / device flop rate, bytes /
memory bandwidth)``.  Contractions (``stablehlo.dot_general``,
``linalg.matmul``) do ``2 * result * contracted`` flops and touch their local
operands and result.  Every other op is priced at one flop per result element
and no memory traffic of its own: XLA fuses chains of elementwise ops,
broadcasts, reshapes and reductions into loops that read their inputs once,
so charging each op its operands and results would count the same bytes
many times (an Adam update, ~15 elementwise ops per parameter, would look
15x costlier than it runs).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from sbpc.algebra.layout import UnevenSplitError
from sbpc.algebra.signature import Signature
from sbpc.boxing.cost_model import CostModel
from sbpc.ops.halo import halo_bytes, halos
from sbpc.ops.registry import localize_type, op_key
from sbpc.ops.spec import OpSpec

FlopsFn = Callable[[OpSpec], float]


def _elements(shape: Sequence[int]) -> int:
    return math.prod(shape)


def _dot_general_flops(local: OpSpec) -> float:
    lhs = local.operands[0].shape
    contracted = _elements(
        [lhs[d] for d in local.attr("lhs_contracting_dimensions", ())]
    )
    return 2.0 * _elements(local.results[0].shape) * contracted


def _matmul_flops(local: OpSpec) -> float:
    """``linalg.matmul``/``batch_matmul``: ``C[.., m, n] += A[.., m, k] B[.., k, n]``."""
    return 2.0 * _elements(local.results[0].shape) * local.operands[0].shape[-1]


def _convolution_flops(local: OpSpec) -> float:
    """``2 * result * (kernel input features x kernel window)``."""
    rhs = local.operands[1].shape
    window = _elements([rhs[d] for d in local.attr("kernel_spatial_dimensions", ())])
    features = rhs[int(local.attr("kernel_input_feature_dimension", 0))]
    return 2.0 * _elements(local.results[0].shape) * features * window


_FLOPS: dict[str, FlopsFn] = {
    "stablehlo.convolution": _convolution_flops,
    "stablehlo.dot_general": _dot_general_flops,
    "linalg.matmul": _matmul_flops,
    "linalg.batch_matmul": _matmul_flops,
}


def local_work(
    op: OpSpec, sig: Signature, hierarchy: Sequence[int]
) -> tuple[float, float]:
    """(flops, bytes) one device spends on ``op`` under ``sig``."""
    operands = [
        localize_type(t, nd, hierarchy)
        for t, nd in zip(op.operands, sig.inputs, strict=True)
    ]
    results = [
        localize_type(t, nd, hierarchy)
        for t, nd in zip(op.results, sig.outputs, strict=True)
    ]
    local = op.replace(operands=operands, results=results)
    flops_fn = _FLOPS.get(op.name)
    if flops_fn is None:  # fused by XLA: its memory traffic is its consumer's
        return float(sum(_elements(t.shape) for t in results)), 0.0
    nbytes = float(sum(t.nbytes for t in (*operands, *results)))
    return flops_fn(local), nbytes


_CACHE: dict[tuple[Any, ...], tuple[Sequence[Signature], tuple[float, ...]]] = {}


def _halo_time(
    op: OpSpec, sig: Signature, hierarchy: Sequence[int], model: CostModel
) -> float:
    """A halo exchange (``sbpc.ops.halo``): two neighbour sends per exchanged
    dim (one latency each, overlapping; one launch overhead per ``ppermute``)
    and the halo rows over the link."""
    total = 0.0
    exchanges = zip(
        halos(op, sig, hierarchy), halo_bytes(op, sig, hierarchy), strict=True
    )
    for h, (mesh_dim, nbytes) in exchanges:
        link = model.link(mesh_dim, len(hierarchy))
        launches = (h.low > 0) + (h.high > 0)
        total += launches * link.overhead + link.latency + nbytes / link.bandwidth
    return total


def compute_costs(
    op: OpSpec,
    candidates: Sequence[Signature],
    hierarchy: Sequence[int],
    model: CostModel,
) -> tuple[float, ...]:
    """Modeled seconds of ``op`` under each candidate (memoized like the
    candidates themselves: models repeat the same ops)."""
    # Keyed by the candidates' identity (the registry hands equal ops one
    # memoized tuple; hashing its signatures cost more than the lookup
    # saves).  The cache holds the candidates, so their id is not reused.
    # A list may change after the call: it is keyed by its contents.
    ident = id(candidates) if isinstance(candidates, tuple) else tuple(candidates)
    key = (op_key(op), ident, tuple(hierarchy), model.device, model.links)
    hit = _CACHE.get(key)
    fresh = hit is not None and (hit[0] is candidates or not isinstance(ident, int))
    cached = hit[1] if fresh and hit is not None else None
    if cached is None:
        if len(_CACHE) > 4096:
            _CACHE.clear()
        costs = []
        for sig in candidates:
            try:
                flops, nbytes = local_work(op, sig, hierarchy)
            except UnevenSplitError:
                costs.append(math.inf)
                continue
            costs.append(
                model.compute_time(flops, nbytes)
                + _halo_time(op, sig, hierarchy, model)
            )
        cached = tuple(costs)
        _CACHE[key] = (candidates, cached)
    return cached
