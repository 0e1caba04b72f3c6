"""What one device spends computing an op under a signature (the compute term
of the cost model).

Communication alone would make any plan that replicates work look free: a
data-parallel step could all-gather the batch and compute the whole step on
every device to save a gradient all-reduce.  Pricing each op by its *local*
work under the signature (a split divides it, ``B`` everywhere repeats it)
lets the strategies weigh replicated compute against the bytes it saves.

Work is a roofline on local shapes: ``max(flops / device flop rate, bytes /
memory bandwidth)``.  Contractions (``stablehlo.dot_general``,
``linalg.matmul``, ``stablehlo.convolution``) do ``2 * result * contracted``
flops and touch their local operands and result; they run at the rate of
their operands' element type (``product_dtypes``, ``Device.rates``: a bf16
product runs on an H100's tensor cores; a model without ``flops_<dtype>``
keys has one rate for all); their flop rate falls with
their smallest local extent when the cost model sets ``flops_half``
(``sbpc.boxing.cost_model.Device``): splitting the rows of a product keeps
its flops per device but not its rate.  Every other op is priced at one
flop per result element and no memory traffic of its own: XLA fuses chains
of elementwise ops, broadcasts, reshapes and reductions into loops that read
their inputs once, so charging each op its operands and results would count
the same bytes many times (an Adam update, ~15 elementwise ops per parameter, would look
15x costlier than it runs).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from sbpc.algebra.layout import UnevenSplitError
from sbpc.algebra.signature import Signature
from sbpc.boxing.cost_model import CostModel
from sbpc.ops.dot_algorithm import DotAlgorithm
from sbpc.ops.halo import halo_bytes, halos
from sbpc.ops.registry import localize_type, op_key
from sbpc.ops.spec import OpSpec


class LocalWork(NamedTuple):
    """What one device does for an op under a signature."""

    flops: float
    nbytes: float  # memory traffic of its own (0 for fused ops)
    extent: float = math.inf  # a product's smallest extent; inf: not a product


# A product's flops and its smallest extent (rows, columns, contracted length).
ProductFn = Callable[[OpSpec], tuple[float, float]]


def _elements(shape: Sequence[int]) -> int:
    return math.prod(shape)


def _product(m: int, n: int, k: int, batch: int = 1) -> tuple[float, float]:
    """``batch`` products of ``m x k`` by ``k x n``."""
    return 2.0 * batch * m * n * k, float(min(m, n, k))


def _dot_general(local: OpSpec) -> tuple[float, float]:
    lhs, rhs = local.operands[0].shape, local.operands[1].shape
    lc = local.attr("lhs_contracting_dimensions", ())
    lb = local.attr("lhs_batching_dimensions", ())
    rc = local.attr("rhs_contracting_dimensions", ())
    rb = local.attr("rhs_batching_dimensions", ())
    m = _elements([d for i, d in enumerate(lhs) if i not in lc and i not in lb])
    n = _elements([d for i, d in enumerate(rhs) if i not in rc and i not in rb])
    k = _elements([lhs[i] for i in lc])
    return _product(m, n, k, _elements([lhs[i] for i in lb]))


def _matmul(local: OpSpec) -> tuple[float, float]:
    """``linalg.matmul``/``batch_matmul``: ``C[.., m, n] += A[.., m, k] B[.., k, n]``."""
    *batch, m, n = local.results[0].shape
    return _product(m, n, local.operands[0].shape[-1], _elements(batch))


def _convolution(local: OpSpec) -> tuple[float, float]:
    """``2 * result * (kernel input features x kernel window)`` flops; as a
    product (im2col) each group has result elements per output feature as
    rows, its output features as columns and features x window contracted."""
    rhs, out = local.operands[1].shape, local.results[0].shape
    window = _elements([rhs[d] for d in local.attr("kernel_spatial_dimensions", ())])
    features = rhs[int(local.attr("kernel_input_feature_dimension", 0))]
    outputs = out[int(local.attr("output_feature_dimension", len(out) - 1))]
    groups = int(local.attr("feature_group_count", 1)) * int(
        local.attr("batch_group_count", 1)
    )
    k = features * window
    flops = 2.0 * _elements(out) * k
    if outputs == 0:
        return flops, 0.0
    return flops, float(min(_elements(out) // outputs, outputs // groups or 1, k))


_PRODUCTS: dict[str, ProductFn] = {
    "stablehlo.convolution": _convolution,
    "stablehlo.dot_general": _dot_general,
    "linalg.matmul": _matmul,
    "linalg.batch_matmul": _matmul,
}


def product_dtypes(op: OpSpec) -> tuple[str, ...]:
    """The element types an op's work is priced at (``Device.flop_rate``:
    the slowest of their rates): a product's two operands'; () for other
    ops (the device's ``flops``).

    A ``dot_general`` with an ``algorithm`` runs in its precision types
    (f32 operands as tf32, or as bf16 passes: ``local_work`` counts each
    pass).  Without one, an f32 product's ``precision_config`` (the higher
    of its operands', DEFAULT where none is written) names its class:
    ``f32_default``, ``f32_high`` or, at HIGHEST, ``f32``."""
    if op.name not in _PRODUCTS:
        return ()
    algorithm: DotAlgorithm | None = op.attr("algorithm")
    if algorithm is not None:
        return algorithm.work_dtypes
    dtypes = tuple(t.element for t in op.operands[:2])
    if dtypes == ("f32", "f32"):
        level = max(
            (_PRECISION.index(p) for p in op.attr("precision") or ()), default=0
        )
        return (_PRECISION_CLASS[level],) * 2
    return dtypes


# StableHLO's precision names, lowest first, and the rate class of an f32
# product at each (``RATE_CLASSES``).
_PRECISION = ("DEFAULT", "HIGH", "HIGHEST")
_PRECISION_CLASS = ("f32_default", "f32_high", "f32")


def local_work(op: OpSpec, sig: Signature, hierarchy: Sequence[int]) -> LocalWork:
    """What one device spends on ``op`` under ``sig``."""
    operands = [
        localize_type(t, nd, hierarchy)
        for t, nd in zip(op.operands, sig.inputs, strict=True)
    ]
    results = [
        localize_type(t, nd, hierarchy)
        for t, nd in zip(op.results, sig.outputs, strict=True)
    ]
    product = _PRODUCTS.get(op.name)
    if product is None:  # fused by XLA: its memory traffic is its consumer's
        return LocalWork(float(sum(_elements(t.shape) for t in results)), 0.0)
    flops, extent = product(op.replace(operands=operands, results=results))
    algorithm: DotAlgorithm | None = op.attr("algorithm")
    if algorithm is not None:  # an f32 product as 3 bf16 products: 3x the work
        flops *= algorithm.num_primitive_operations
    nbytes = float(sum(t.nbytes for t in (*operands, *results)))
    return LocalWork(flops, nbytes, extent)


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
        link = model.link(mesh_dim, hierarchy)
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
    key = (op_key(op), ident, tuple(hierarchy), model.device, model.links, model.levels)
    hit = _CACHE.get(key)
    fresh = hit is not None and (hit[0] is candidates or not isinstance(ident, int))
    cached = hit[1] if fresh and hit is not None else None
    if cached is None:
        if len(_CACHE) > 4096:
            _CACHE.clear()
        costs = []
        dtypes = product_dtypes(op)
        for sig in candidates:
            try:
                work = local_work(op, sig, hierarchy)
            except UnevenSplitError:
                costs.append(math.inf)
                continue
            costs.append(
                model.compute_time(*work, dtypes)
                + _halo_time(op, sig, hierarchy, model)
            )
        cached = tuple(costs)
        _CACHE[key] = (candidates, cached)
    return cached
