"""Boxing planner: the cheapest sequence of collectives between two layouts.

A layout change of an N-D nd_sbp is a sequence of *steps*; each step changes
the entries of some hierarchy dims (one dim, or several equal entries taken
as one group of devices, ordered as the hierarchy) and is one collective on
the groups of devices that differ only along those dims.  ``plan`` runs
Dijkstra over the even-splittable intermediate layouts (as PyTorch's
redistribute planner and OneFlow's boxing collector do), with the cost of
``sbpc.boxing.cost_model`` plus the local work of ``sbpc.boxing.local_work``;
ties go to fewer bytes, then fewer steps, then the lower layout index.  The
step graph is built only where the search goes (``step_space``), the
search stops at its target (``cheapest_paths``), and on large layout spaces
it is bounded by a lower bound on the time left (``time_bound``: A*), which
finds the same plan.

When is one step legal?  With the hierarchical meaning (``sbpc.algebra.layout``),
the devices of a group on dims ``D`` hold, for fixed other coordinates, the
pieces of one tensor ``X`` (what the outer dims leave them, cut further by
the *later* dims ``j > min(D)``, ``j`` not in ``D``).  Write ``s -> t`` for
the change of the entries in ``D``:

* A split that changes (``S(i)`` as ``s`` or ``t``) must be the innermost
  split of tensor dim ``i``: no later dim splits ``i``.  Otherwise the group
  holds interleaved blocks, not the contiguous ones the other layout needs
  (``(S(0), S(0)) -> (B, S(0))`` is no all_gather on dim 0: the group of
  dim 0 holds quarters 0 and 2, but ``(B, S(0))`` needs quarters 0 and 1).
* A reduction (``P(k) -> B`` all_reduce, ``P(k) -> S(i)`` reduce_scatter)
  needs every later partial dim to be of the same kind ``k``: reducing
  ``max`` across devices whose pieces must still be ``sum``-med is wrong.
* ``S(i) -> P(k)`` fills the rest of each piece with the identity of ``k``;
  a later ``P(sum)`` adds copies of that identity, which stays the identity
  for 0 and +-inf but overflows for the integer min/max of ``P(max|min)``.
* ``P(a) -> P(b)`` is no single step (it goes through ``B`` or ``S(i)``).
  Outer dims never matter: a step only re-represents each outer piece.
* Local steps (``local_slice``, ``local_to_partial``) act on one dim at a
  time: on several they would equal per-dim steps at the same (zero) cost.

Across placements, ``plan_between`` adds ``transfer`` steps (see there).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import cast

import numpy as np

from sbpc.algebra.layout import UnevenSplitError, check_axes
from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import (
    Broadcast,
    NdSbp,
    Partial,
    PartialKind,
    Split,
    format_nd_sbp,
)
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import step_space
from sbpc.boxing.cheapest_paths import CheapestPaths, Cost, SearchEdge
from sbpc.boxing.collective_kind import COLLECTIVES, LOCAL_KINDS, CollectiveKind
from sbpc.boxing.cost_model import (
    DEFAULT_COST_MODEL,
    CostModel,
    collective_kind,
    local_bytes,
)
from sbpc.boxing.least_times import StepGraph
from sbpc.boxing.local_work import local_elements, local_time
from sbpc.boxing.step_prices import StepPrices, step_price
from sbpc.boxing.step_space import (
    Legal,
    PricedSteps,
    dim_groups,
    entries,
    fill_survives,
    priced_steps,
    step_kinds,
    tensor_steps,
)
from sbpc.boxing.time_bound import TimeBound, least_totals

Hierarchy = tuple[int, ...]


class BoxingError(ValueError):
    """A layout change that cannot be planned, with a diagnostic message."""


class LayoutSpaceError(ValueError):
    """A tensor with more layouts on its placement than the planner handles
    (not a ``BoxingError``: no single change is at fault, the search is)."""


class _ExactCost:
    """``bytes``/``time``: the floats of a subclass's ``exact_bytes``/``exact_time``."""

    exact_bytes: Fraction
    exact_time: Fraction

    @property
    def bytes(self) -> float:
        return float(self.exact_bytes)

    @property
    def time(self) -> float:
        return float(self.exact_time)


@dataclass(frozen=True)
class BoxingStep(_ExactCost):
    """One collective (or local op, or transfer) of a boxing plan.

    ``dims`` are the hierarchy dims whose device groups run it (ordered; a
    transfer names every dim).  ``src``/``dst`` are the whole nd_sbp before
    and after; ``hierarchy`` is the mesh the step runs on (for a transfer,
    the source's; ``dst_placement`` gives the target's).  ``reduce`` is the
    partial kind of a reduction.  ``sources[j]`` of a transfer is the
    row-major index of the source device the ``j``-th target device receives
    from.  ``exact_bytes`` are the bytes each device sends, ``exact_time``
    the modeled seconds (``bytes``/``time``: their floats).
    """

    kind: CollectiveKind
    dims: tuple[int, ...]
    src: NdSbp
    dst: NdSbp
    hierarchy: Hierarchy
    exact_bytes: Fraction = Fraction(0)
    exact_time: Fraction = Fraction(0)
    reduce: PartialKind | None = None
    src_placement: Placement | None = None
    dst_placement: Placement | None = None
    sources: tuple[int, ...] = ()

    def __str__(self) -> str:
        kind = f"{self.kind}({self.reduce})" if self.reduce else self.kind
        where = f"dims {list(self.dims)}"
        if self.kind == CollectiveKind.TRANSFER:
            where = f"{self.src_placement} -> {self.dst_placement}"
        return (
            f"{kind} {where}: {format_nd_sbp(self.src)} -> {format_nd_sbp(self.dst)}"
            f" ({self.bytes:g} B, {self.time:.3g} s)"
        )


@dataclass(frozen=True)
class BoxingPlan(_ExactCost):
    """Steps from ``src`` to ``dst``, with their total bytes per device and time.

    For ``plan_between``, the steps before the transfer run on
    ``src_placement`` and those after it on ``dst_placement``.
    """

    src: NdSbp
    dst: NdSbp
    steps: tuple[BoxingStep, ...]
    exact_bytes: Fraction = Fraction(0)
    exact_time: Fraction = Fraction(0)
    src_placement: Placement | None = None
    dst_placement: Placement | None = None

    def __str__(self) -> str:
        head = (
            f"{format_nd_sbp(self.src)} -> {format_nd_sbp(self.dst)}: "
            f"{len(self.steps)} step(s), {self.bytes:g} B, {self.time:.3g} s"
        )
        return "\n".join([head, *(f"  {s}" for s in self.steps)])


def _plan_of(
    src: NdSbp,
    dst: NdSbp,
    steps: Sequence[BoxingStep],
    src_placement: Placement | None = None,
    dst_placement: Placement | None = None,
) -> BoxingPlan:
    return BoxingPlan(
        src,
        dst,
        tuple(steps),
        sum((s.exact_bytes for s in steps), Fraction(0)),
        sum((s.exact_time for s in steps), Fraction(0)),
        src_placement,
        dst_placement,
    )


# ---------------------------------------------------------------- validation


def _hierarchy_of(placement: Placement | Sequence[int]) -> Hierarchy:
    if isinstance(placement, Placement):
        return placement.hierarchy
    return tuple(int(n) for n in placement)


def _check_layout(
    nd: NdSbp, tensor: TensorType, hierarchy: Hierarchy, what: str
) -> None:
    if len(nd) != len(hierarchy):
        raise BoxingError(
            f"{what} layout {format_nd_sbp(nd)} has {len(nd)} entries but the "
            f"placement hierarchy {list(hierarchy)} has {len(hierarchy)} dims"
        )
    try:
        check_axes(tensor.shape, nd)
    except UnevenSplitError as err:
        raise BoxingError(
            f"{what} layout {format_nd_sbp(nd)} of {tensor} on hierarchy "
            f"{list(hierarchy)}: {err}"
        ) from None


# ------------------------------------------------------------ legal steps


@lru_cache(maxsize=256)
def candidate_layouts(tensor: TensorType, hierarchy: Hierarchy) -> tuple[NdSbp, ...]:
    """The planner's search space: every nd_sbp of ``tensor`` (splits may be
    uneven: balanced pieces, ``sbpc.algebra.layout``)."""
    return tuple(itertools.product(entries(tensor.rank), repeat=len(hierarchy)))


# The most layouts one tensor may have on a placement for the price tables
# (``time_matrix``): they need every layout's steps and every pair (a rank-4
# tensor on five mesh axes, as sub-axes can make, has 32,768: gigabytes and
# minutes).  ``plan`` alone builds only what its search reaches.
MAX_LAYOUTS = 8192


def check_layout_space(tensor: TensorType, hierarchy: Sequence[int]) -> None:
    """Raise ``LayoutSpaceError`` when ``tensor`` has more than
    ``MAX_LAYOUTS`` candidate layouts on ``hierarchy``."""
    n = len(entries(tensor.rank)) ** len(hierarchy)
    if n > MAX_LAYOUTS:
        raise LayoutSpaceError(
            f"a rank-{tensor.rank} tensor on the {len(hierarchy)}-dim mesh "
            f"{list(hierarchy)} has {n} layouts, more than sbpc plans "
            f"({MAX_LAYOUTS}); use fewer mesh axes (each sub-axis counts as one)"
        )


_dim_groups = dim_groups  # the planner's names for them
_fill_survives = fill_survives


def single_step(
    src: NdSbp,
    dst: NdSbp,
    dims: Sequence[int],
    tensor: TensorType,
    placement: Placement | Sequence[int],
    cost_model: CostModel = DEFAULT_COST_MODEL,
) -> BoxingStep | None:
    """The one step on ``dims`` turning ``src`` into ``dst``; None if there is none.

    ``dst`` must differ from ``src`` exactly on ``dims``, every dim of
    ``dims`` making the same change (else None).  The rules are in the
    module docstring; ``dst`` must be even-splittable.
    """
    return _single_step(
        tuple(src),
        tuple(dst),
        tuple(dims),
        tensor,
        _hierarchy_of(placement),
        cost_model,
    )


def _single_step(
    src: NdSbp,
    dst: NdSbp,
    dims: tuple[int, ...],
    tensor: TensorType,
    hierarchy: Hierarchy,
    cost_model: CostModel,
) -> BoxingStep | None:
    """``single_step``: the legal step (``_step_kind``), priced."""
    legal = _step_kind(src, dst, dims, tensor, hierarchy)
    if legal is None:
        return None
    kind, reduce = legal
    prices = StepPrices(tensor, hierarchy, cost_model)
    group = max(prices.group_bytes(src, dims), prices.group_bytes(dst, dims))
    local = local_elements(kind, dims, src, dst, tensor, hierarchy)
    return _step_at(kind, reduce, src, dst, dims, hierarchy, group, local, prices)


def _step_kind(
    src: NdSbp,
    dst: NdSbp,
    dims: tuple[int, ...],
    tensor: TensorType,
    hierarchy: Hierarchy,
) -> tuple[CollectiveKind, PartialKind | None] | None:
    """The kind of the one step on ``dims`` from ``src`` to ``dst`` and the
    reduction it runs, or None when the rules allow no such step: what a
    step is, whatever the cost model prices it at."""
    ndim = len(hierarchy)
    if (
        not dims
        or len(src) != ndim
        or len(dst) != ndim
        or list(dims) != sorted(set(dims))
        or not all(0 <= d < ndim for d in dims)
    ):
        return None
    s, t = src[dims[0]], dst[dims[0]]
    for d in range(ndim):
        if d in dims:
            if src[d] != s or dst[d] != t:
                return None
        elif src[d] != dst[d]:
            return None
    kind = collective_kind(s, t)
    if kind is None or (len(dims) > 1 and kind not in COLLECTIVES):
        return None
    later = [src[j] for j in range(dims[0] + 1, ndim) if j not in dims]
    later_axes = {x.axis for x in later if isinstance(x, Split)}
    later_kinds = {x.kind for x in later if isinstance(x, Partial)}
    if any(isinstance(x, Split) and x.axis in later_axes for x in (s, t)):
        return None
    reduce: PartialKind | None = None
    if isinstance(s, Partial):
        reduce = s.kind
        if later_kinds - {s.kind}:
            return None
    if (
        isinstance(s, Split)
        and isinstance(t, Partial)
        and not all(_fill_survives(t.kind, k, tensor.element) for k in later_kinds)
    ):
        return None
    return kind, reduce


def _step_at(
    kind: CollectiveKind,
    reduce: PartialKind | None,
    src: NdSbp,
    dst: NdSbp,
    dims: tuple[int, ...],
    hierarchy: Hierarchy,
    group: int,
    local: int,
    prices: StepPrices,
) -> BoxingStep:
    """A step whose group bytes and local elements are known, at ``prices``."""
    nbytes, time = prices.step(kind, dims, group)
    time += local_time(local, prices.cost_model)
    return BoxingStep(kind, dims, src, dst, hierarchy, nbytes, time, reduce)


# --------------------------------------------------------------- search

# An edge of ``_graph``: (next node, its step, time and bytes as integers
# over the graph's common denominators).  Nodes are integers: the index of
# a layout in ``candidate_layouts`` (``step_space``).
_Edge = tuple[int, BoxingStep, int, int]


@dataclass(frozen=True)
class _Graph:
    states: tuple[NdSbp, ...]
    index: dict[NdSbp, int]
    edges: tuple[tuple[_Edge, ...], ...]
    time_den: int
    bytes_den: int


# A legal step from one layout: (dst, dims, kind, reduction, group bytes,
# local elements): what its price depends on besides the cost model.
_Legal = tuple[NdSbp, tuple[int, ...], CollectiveKind, PartialKind | None, int, int]


# A legal step's kind, whatever the tensor's shape: (dst, dims, kind, reduction).
_Step = tuple[NdSbp, tuple[int, ...], CollectiveKind, PartialKind | None]


@lru_cache(maxsize=64)
def _step_structure(
    rank: int, element: str, hierarchy: Hierarchy
) -> tuple[tuple[NdSbp, ...], tuple[tuple[_Step, ...], ...]]:
    """The candidate layouts and the kind of every legal single step from
    each (``step_space.StepKinds``, for every layout): they depend on the
    tensor's rank and element type alone, so a model's tensors of one rank
    share them."""
    tensor = TensorType((1,) * rank, element)  # only its rank and element read
    states = candidate_layouts(tensor, hierarchy)
    kinds = step_kinds(rank, element, len(hierarchy))
    steps = tuple(
        tuple(
            (states[j], dims, kind, reduce) for j, dims, kind, reduce in kinds.steps(i)
        )
        for i in range(len(states))
    )
    return states, steps


@lru_cache(maxsize=128)
def _legal_steps(
    tensor: TensorType, hierarchy: Hierarchy
) -> tuple[tuple[NdSbp, ...], tuple[tuple[_Legal, ...], ...]]:
    """The candidate layouts and every legal single step from each: what
    the step graph is under any cost model (every layout's
    ``step_space.TensorSteps``: only the time tables, which price every
    pair, need them all)."""
    states = candidate_layouts(tensor, hierarchy)
    steps = tensor_steps(tensor, hierarchy)
    legal = tuple(
        tuple(
            (states[j], dims, kind, reduce, group, local)
            for j, dims, kind, reduce, group, local in steps.legal(i)
        )
        for i in range(len(states))
    )
    return states, legal


def _step_of(
    priced: PricedSteps, src: int, dst: int, legal: Legal, price: int
) -> BoxingStep:
    """The ``BoxingStep`` of a priced step from layout ``src`` to ``dst``
    (made once: the plans of a table share their steps)."""
    found = priced.made.get((src, dst))
    if found is None:
        _, dims, kind, reduce, _, _ = legal
        kinds = priced.steps.kinds
        time, nbytes = priced.exact[price]
        found = priced.made[(src, dst)] = BoxingStep(
            kind,
            dims,
            kinds.layout(src),
            kinds.layout(dst),
            priced.steps.hierarchy,
            nbytes,
            time,
            reduce,
        )
    return cast(BoxingStep, found)


@lru_cache(maxsize=256)  # a few dozen tensor types at several latency scales
def _graph(tensor: TensorType, hierarchy: Hierarchy, cost_model: CostModel) -> _Graph:
    """Every legal single step between the candidate layouts, priced (the
    whole of what ``plan`` searches only as far as it needs)."""
    priced = priced_steps(tensor, hierarchy, cost_model)
    states = candidate_layouts(tensor, hierarchy)
    found = [priced.edges(i) for i in range(len(states))]
    times, nbytes = priced.times, priced.nbytes  # every price is in now
    edges = tuple(
        tuple(
            (j, _step_of(priced, i, j, legal, price), times[price], nbytes[price])
            for j, legal, price in out
        )
        for i, out in enumerate(found)
    )
    index = {nd: i for i, nd in enumerate(states)}
    return _Graph(states, index, edges, priced.time_den, priced.bytes_den)


def _plan_of_path(
    search: CheapestPaths,
    target: int,
    cost: Cost,
    src: NdSbp,
    dst: NdSbp,
    priced: PricedSteps,
    placements: tuple[Placement | None, Placement | None] = (None, None),
) -> BoxingPlan:
    """The plan of ``search``'s cheapest path to ``target`` (of ``cost``).

    A path's labels are ``Legal`` steps of ``priced`` or ready transfers;
    its nodes are layout indices (plus ``side * size`` across placements).
    """
    size = priced.steps.kinds.size
    steps = []
    for a, b, label, price in search.path(target):
        if isinstance(label, BoxingStep):  # a transfer
            steps.append(label)
        else:
            legal = cast(Legal, label)
            steps.append(_step_of(priced, a % size, b % size, legal, price))
    t, b, _ = cost
    return BoxingPlan(
        src,
        dst,
        tuple(steps),
        Fraction(b, search.bytes_den),
        Fraction(t, search.time_den),
        *placements,
    )


# Up to this many layouts, the plans from one source share one search (all
# pairs of a small mesh cost one search per source); above, each plan runs
# its own, bounded by its target (``time_bound``: the all-B target of a
# rank-4 tensor on 5 dims settles a few hundred of its 32,768 layouts).
SHARED_SEARCH_LAYOUTS = 1024


@lru_cache(maxsize=256)
def _time_bound(
    target: int, tensor: TensorType, hierarchy: Hierarchy, cost_model: CostModel
) -> TimeBound:
    kinds = step_kinds(tensor.rank, tensor.element, len(hierarchy))
    return TimeBound(kinds, target, least_totals(tensor, hierarchy, cost_model))


@lru_cache(maxsize=4096)
def _search(
    src: NdSbp, tensor: TensorType, hierarchy: Hierarchy, cost_model: CostModel
) -> tuple[CheapestPaths, PricedSteps]:
    """The cheapest paths from ``src``, searched as far as plans have asked,
    and the prices whose ids they hold (``priced_steps`` may since have
    made others)."""
    priced = priced_steps(tensor, hierarchy, cost_model)
    start = priced.steps.kinds.index(src)
    if start is None:
        raise KeyError(src)
    return CheapestPaths(start, priced.edges, priced), priced


def plan(
    src: NdSbp,
    dst: NdSbp,
    tensor: TensorType,
    placement: Placement | Sequence[int],
    cost_model: CostModel = DEFAULT_COST_MODEL,
) -> BoxingPlan:
    """The cheapest steps turning ``src`` into ``dst`` within one placement.

    ``placement`` is a ``Placement`` or just its hierarchy.  Raises
    ``BoxingError`` for a layout that does not fit the hierarchy or cannot be
    split evenly, or when no sequence of steps exists.
    """
    return _plan(tuple(src), tuple(dst), tensor, _hierarchy_of(placement), cost_model)


@lru_cache(maxsize=1 << 17)
def _plan(
    src: NdSbp,
    dst: NdSbp,
    tensor: TensorType,
    hierarchy: Hierarchy,
    cost_model: CostModel,
) -> BoxingPlan:
    kinds = step_kinds(tensor.rank, tensor.element, len(hierarchy))
    start, target = kinds.index(src), kinds.index(dst)
    if start is None:
        _check_layout(src, tensor, hierarchy, "source")
    if target is None:
        _check_layout(dst, tensor, hierarchy, "target")
    if src == dst:
        return BoxingPlan(src, dst, ())
    if start is None or target is None:
        raise KeyError(src if start is None else dst)
    if kinds.size <= SHARED_SEARCH_LAYOUTS:
        search, priced = _search(src, tensor, hierarchy, cost_model)
    else:
        priced = priced_steps(tensor, hierarchy, cost_model)
        bound = _time_bound(target, tensor, hierarchy, cost_model)
        search = CheapestPaths(start, priced.edges, priced, bound)
    cost = search.cost(target)
    if cost is None:
        raise BoxingError(
            f"no sequence of collectives turns {format_nd_sbp(src)} into "
            f"{format_nd_sbp(dst)} for {tensor} on hierarchy {list(hierarchy)}"
        )
    return _plan_of_path(search, target, cost, src, dst, priced)


@lru_cache(maxsize=256)
def time_matrix(
    tensor: TensorType, hierarchy: Hierarchy, cost_model: CostModel
) -> tuple[dict[NdSbp, int], tuple[tuple[float, ...], ...]]:
    """Every pair's ``plan(src, dst, ...).time`` at once, as floats (float
    sums of its steps' exact times: within a few units in the last place).

    Returns the index of each candidate layout and ``times[i][j]`` (``inf``
    where no sequence of collectives exists).  Pricing a whole table of
    layout pairs then costs one lookup per pair instead of a cached call
    keyed by layouts, tensor and cost model (the propagation strategies ask
    for hundreds of thousands of pairs over a few dozen tensor types).
    """
    index = layout_index(tensor, hierarchy, cost_model)
    times = time_rows(tensor, hierarchy, cost_model, range(len(index)))
    rows = tuple(tuple(row) for row in times.tolist())
    return index, rows


def layout_index(
    tensor: TensorType, hierarchy: Hierarchy, cost_model: CostModel
) -> dict[NdSbp, int]:
    """The index of each candidate layout in ``time_matrix``'s rows (the
    same under every cost model)."""
    return _layout_index(tensor, hierarchy)


@lru_cache(maxsize=128)
def _layout_index(tensor: TensorType, hierarchy: Hierarchy) -> dict[NdSbp, int]:
    return {nd: i for i, nd in enumerate(candidate_layouts(tensor, hierarchy))}


def time_rows(
    tensor: TensorType,
    hierarchy: Hierarchy,
    cost_model: CostModel,
    starts: Sequence[int],
) -> np.ndarray:
    """Rows ``starts`` of ``time_matrix`` as one array, found together
    (``least_times.StepGraph``: float sums of the exact step times, within
    a few units in the last place of ``plan(...).time``): a graph's edges
    leave only a few of a tensor's layouts, and the combining search prices
    every tensor at several latency scales."""
    return _step_graph(tensor, hierarchy, cost_model).least(starts)


# A step's price depends on these alone: (kind, dims, group bytes, local elements).
_PriceKey = tuple[CollectiveKind, tuple[int, ...], int, int]


@lru_cache(maxsize=128)
def _step_arrays(
    tensor: TensorType, hierarchy: Hierarchy
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, tuple[_PriceKey, ...]]:
    """Every layout's legal steps (``step_space.TensorSteps``) as arrays,
    under any cost model: the number of layouts, each step's source and
    target layout and the index of its price key among the keys."""
    steps = tensor_steps(tensor, hierarchy)
    size = steps.kinds.size
    keys: dict[_PriceKey, int] = {}
    src: list[int] = []
    dst: list[int] = []
    key: list[int] = []
    for i in range(size):
        for j, dims, kind, _, group, local in steps.legal(i):
            src.append(i)
            dst.append(j)
            key.append(keys.setdefault((kind, dims, group, local), len(keys)))
    return (
        size,
        np.array(src, dtype=np.int64),
        np.array(dst, dtype=np.int64),
        np.array(key, dtype=np.int64),
        tuple(keys),
    )


@lru_cache(maxsize=256)  # a few dozen tensor types at several latency scales
def _step_graph(
    tensor: TensorType, hierarchy: Hierarchy, cost_model: CostModel
) -> StepGraph:
    """``_graph``'s edges with their times only (no steps, no bytes), in
    seconds: one exact price per distinct (kind, dims, group bytes, local
    work), without a ``BoxingStep`` per edge.  The combining search prices
    every tensor at several latency scales, and ``time_rows`` needs no more."""
    size, src, dst, key, keys = _step_arrays(tensor, hierarchy)
    seconds = np.array(
        [
            _step_seconds(kind, dims, group, local, hierarchy, cost_model)
            for kind, dims, group, local in keys
        ],
        dtype=float,
    )
    return StepGraph(size, src, dst, seconds[key])


@lru_cache(maxsize=1 << 14)
def _step_seconds(
    kind: CollectiveKind,
    dims: tuple[int, ...],
    group: int,
    local: int,
    hierarchy: Hierarchy,
    cost_model: CostModel,
) -> float:
    """One step's exact modeled time, as a float: the same for every tensor
    whose groups hold ``group`` bytes (a model's tensors share a few sizes)."""
    exact = step_price(kind, dims, group, hierarchy, cost_model)[1]
    return float(exact + local_time(local, cost_model))


@lru_cache(maxsize=256)
def local_matrix(
    tensor: TensorType, hierarchy: Hierarchy, cost_model: CostModel
) -> tuple[dict[NdSbp, int], tuple[tuple[bool, ...], ...]]:
    """Which pairs local steps alone connect (``LOCAL_KINDS``: no
    communication), indexed as ``time_matrix``: a plan that runs no
    collective changes a layout only along these."""
    kinds = step_kinds(tensor.rank, tensor.element, len(hierarchy))
    rows: list[tuple[bool, ...]] = []
    for start in range(kinds.size):
        seen = {start}
        stack = [start]
        while stack:
            for nxt, _, kind, _ in kinds.steps(stack.pop()):
                if kind in LOCAL_KINDS and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        rows.append(tuple(j in seen for j in range(kinds.size)))
    return _layout_index(tensor, hierarchy), tuple(rows)


# -------------------------------------------------------- across placements


def _device(placement: Placement, index: int) -> tuple[str, int]:
    return placement.device, placement.ranks[index]


def transfer_step(
    nd_src: NdSbp,
    nd_dst: NdSbp,
    src_placement: Placement,
    dst_placement: Placement,
    tensor: TensorType,
    cost_model: CostModel,
) -> BoxingStep:
    """Move every target device's piece from its source device.

    Same hierarchy: the device at each coordinate sends its piece (same
    layout on both sides) to the device at the same coordinate.  Otherwise
    both sides are all-B: each target device gets a copy from itself when it
    is also a source device, else from source device ``j mod N``.
    """
    n_src, n_dst = len(src_placement.ranks), len(dst_placement.ranks)
    if src_placement.hierarchy == dst_placement.hierarchy:
        sources = tuple(range(n_dst))
    else:
        index = {_device(src_placement, i): i for i in range(n_src)}
        sources = tuple(
            index.get(_device(dst_placement, j), j % n_src) for j in range(n_dst)
        )
    fan_out = [0] * n_src
    for j, i in enumerate(sources):
        if _device(src_placement, i) != _device(dst_placement, j):
            fan_out[i] += 1
    piece = local_bytes(nd_src, tensor, src_placement.hierarchy)
    nbytes = Fraction(piece * max(fan_out))
    return BoxingStep(
        CollectiveKind.TRANSFER,
        tuple(range(src_placement.ndim)),
        nd_src,
        nd_dst,
        src_placement.hierarchy,
        nbytes,
        cost_model.transfer_time(nbytes, max(fan_out)),
        src_placement=src_placement,
        dst_placement=dst_placement,
        sources=sources,
    )


def plan_between(
    src_nd: NdSbp,
    src_placement: Placement,
    dst_nd: NdSbp,
    dst_placement: Placement,
    tensor: TensorType,
    cost_model: CostModel = DEFAULT_COST_MODEL,
) -> BoxingPlan:
    """The cheapest steps moving ``tensor`` between placements (pipeline stages).

    Same hierarchy: box on the source placement to some layout ``X``,
    transfer ``X`` device to device, box on the target placement; ``X`` (any
    layout, partial ones included, since both sides then share it) is chosen
    for the cheapest total.  Different hierarchies: gather to all-B on the
    source (finishing partial values), transfer full copies, slice on the
    target.  Same placement: ``plan``.
    """
    return _plan_between(
        tuple(src_nd), src_placement, tuple(dst_nd), dst_placement, tensor, cost_model
    )


@lru_cache(maxsize=4096)
def _plan_between(
    src_nd: NdSbp,
    src_placement: Placement,
    dst_nd: NdSbp,
    dst_placement: Placement,
    tensor: TensorType,
    cost_model: CostModel,
) -> BoxingPlan:
    src_h, dst_h = src_placement.hierarchy, dst_placement.hierarchy
    _check_layout(src_nd, tensor, src_h, "source")
    _check_layout(dst_nd, tensor, dst_h, "target")
    if src_placement == dst_placement:
        return _plan(src_nd, dst_nd, tensor, src_h, cost_model)
    if src_h != dst_h:
        src_b = (Broadcast(),) * len(src_h)
        dst_b = (Broadcast(),) * len(dst_h)
        gather = _plan(src_nd, src_b, tensor, src_h, cost_model)
        move = transfer_step(
            src_b, dst_b, src_placement, dst_placement, tensor, cost_model
        )
        scatter = _plan(dst_b, dst_nd, tensor, dst_h, cost_model)
        steps = [*gather.steps, move, *scatter.steps]
        return _plan_of(src_nd, dst_nd, steps, src_placement, dst_placement)
    # Same hierarchy: Dijkstra over (side, layout), side 0 the source placement.
    priced = priced_steps(tensor, src_h, cost_model)
    kinds = priced.steps.kinds
    size = kinds.size
    start, end = kinds.index(src_nd), kinds.index(dst_nd)
    if start is None or end is None:
        raise KeyError(src_nd if start is None else dst_nd)

    def neighbours(node: int) -> list[SearchEdge]:
        side, i = divmod(node, size)
        edges = priced.edges(i)
        if side:
            return [(size + j, legal, price) for j, legal, price in edges]
        nd = kinds.layout(i)
        move = transfer_step(nd, nd, src_placement, dst_placement, tensor, cost_model)
        price = priced.price(move.exact_time, move.exact_bytes)
        return [*edges, (size + i, move, price)]

    bound = None
    if size > SHARED_SEARCH_LAYOUTS:
        bound = _time_bound(end, tensor, src_h, cost_model)
    search = CheapestPaths(start, neighbours, priced, bound)
    cost = search.cost(size + end)
    if cost is None:
        raise BoxingError(
            f"no sequence of steps moves {format_nd_sbp(src_nd)} on "
            f"{src_placement} to {format_nd_sbp(dst_nd)} on {dst_placement}"
        )
    return _plan_of_path(
        search,
        size + end,
        cost,
        src_nd,
        dst_nd,
        priced,
        (src_placement, dst_placement),
    )


def clear_cache() -> None:
    """Forget every cached plan and search graph (for benchmarks)."""
    step_space.clear_cache()
    least_totals.cache_clear()
    for fn in (
        candidate_layouts,
        _step_structure,
        _legal_steps,
        _graph,
        _search,
        _time_bound,
        _plan,
        _plan_between,
        time_matrix,
        _layout_index,
        _step_arrays,
        _step_graph,
        _step_seconds,
        local_matrix,
    ):
        fn.cache_clear()
