"""A tensor's boxing step graph, built only where a search goes.

A tensor has ``(rank + 4) ** dims`` candidate layouts on a hierarchy of
``dims`` dims: 4,096 for a rank-4 tensor on 4 dims, 32,768 on 5 (sub-axes
make such meshes).  The planner once built every layout's legal steps
before its first plan (2.3 s per tensor type on 4 dims, 0.28 s on 3;
``sbp-lower-boxing`` took 33 s on one such module).  A plan only needs the
layouts cheaper than its target, so here a layout's steps are made the
first time a search reaches it, and kept:

* ``StepKinds`` (per rank, element type and number of dims): the legal
  steps out of one layout by the planner's rules (``planner`` module
  docstring; ``planner._step_kind`` states them one step at a time), the
  target found by arithmetic on the layout's index;
* ``TensorSteps`` (per tensor type and hierarchy): those steps with their
  group bytes and local work, each layout's local shape computed once;
* ``PricedSteps`` (per cost model too): their exact prices, and the same as
  integers over common denominators that grow as new prices appear (a
  search rescales its sums then), so that path sums stay exact and fast.

A layout is its index in ``candidate_layouts``: row-major digits over
``entries(rank)``, the order the planner's Dijkstra breaks ties in.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache

from sbpc.algebra.layout import Shape, local_shape
from sbpc.algebra.sbp import (
    PARTIAL_KINDS,
    Broadcast,
    NdSbp,
    Partial,
    PartialKind,
    Sbp,
    Split,
)
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.collective_kind import COLLECTIVES, CollectiveKind
from sbpc.boxing.cost_model import CostModel, collective_kind, piece_group_bytes
from sbpc.boxing.local_work import elements_written, local_time
from sbpc.boxing.step_prices import StepPrices

Hierarchy = tuple[int, ...]

# Integer element types: their P(max|min) identity overflows under a later P(sum).
INTEGER_ELEMENTS = frozenset({"i8", "ui8", "i16", "i32", "ui32", "i64", "ui64"})


def entries(rank: int) -> tuple[Sbp, ...]:
    """Every SBP of one hierarchy dim for a rank-``rank`` tensor."""
    return (
        *(Split(d) for d in range(rank)),
        Broadcast(),
        *(Partial(k) for k in PARTIAL_KINDS),
    )


@lru_cache(maxsize=16)
def dim_groups(ndim: int) -> tuple[tuple[int, ...], ...]:
    """Every non-empty set of hierarchy dims, single dims first."""
    return tuple(
        dims
        for size in range(1, ndim + 1)
        for dims in itertools.combinations(range(ndim), size)
    )


def fill_survives(kind: PartialKind, later: PartialKind, element: str) -> bool:
    """Whether ``later`` over copies of ``kind``'s identity gives that identity."""
    if later != "sum" or kind == "sum":
        return True
    return element not in INTEGER_ELEMENTS


# A legal step out of a layout: (target's index, dims, kind, reduction).
Step = tuple[int, tuple[int, ...], CollectiveKind, PartialKind | None]

# The same with what its price depends on besides the cost model:
# (target's index, dims, kind, reduction, group bytes, local elements).
Legal = tuple[int, tuple[int, ...], CollectiveKind, PartialKind | None, int, int]

# A priced step: (target's index, its ``Legal``, its price's id in ``PricedSteps``).
Edge = tuple[int, Legal, int]


class StepKinds:
    """The legal steps out of each layout of a rank-``rank`` tensor of
    ``element`` on ``ndim`` hierarchy dims (the sizes do not matter)."""

    def __init__(self, rank: int, element: str, ndim: int) -> None:
        self.rank, self.element, self.ndim = rank, element, ndim
        self.entries = entries(rank)
        n = len(self.entries)
        self.size = n**ndim
        self._weights = tuple(n ** (ndim - 1 - d) for d in range(ndim))
        self._where = {e: k for k, e in enumerate(self.entries)}
        self._axis = tuple(e.axis if isinstance(e, Split) else -1 for e in self.entries)
        self._partial = tuple(
            e.kind if isinstance(e, Partial) else None for e in self.entries
        )
        kinds = [[collective_kind(s, t) for t in self.entries] for s in self.entries]
        # Per source entry: (new entry, kind) of each change on one dim, and
        # of each change on several (collectives only).
        self._changes = tuple(
            tuple((t, k) for t, k in enumerate(row) if k is not None) for row in kinds
        )
        self._group_changes = tuple(
            tuple((t, k) for t, k in changes if k in COLLECTIVES)
            for changes in self._changes
        )
        # Per dims group: the later dims it leaves, and the index offset of
        # a change of one entry index on all of its dims.
        self._groups = tuple(
            (
                dims,
                tuple(j for j in range(dims[0] + 1, ndim) if j not in dims),
                sum(self._weights[d] for d in dims),
            )
            for dims in dim_groups(ndim)
        )
        self._steps: dict[int, tuple[Step, ...]] = {}
        self._layouts: dict[int, NdSbp] = {}
        self._indices: dict[NdSbp, int] = {}

    def digits(self, i: int) -> tuple[int, ...]:
        """Layout ``i``'s entries, as indices into ``entries``."""
        out = []
        for w in self._weights:
            d, i = divmod(i, w)
            out.append(d)
        return tuple(out)

    def layout(self, i: int) -> NdSbp:
        """Layout ``i`` itself."""
        found = self._layouts.get(i)
        if found is None:
            found = self._layouts[i] = tuple(self.entries[d] for d in self.digits(i))
        return found

    def index(self, nd: NdSbp) -> int | None:
        """``nd``'s index; None when it is no candidate layout."""
        found = self._indices.get(nd)
        if found is not None or len(nd) != self.ndim:
            return found
        total = 0
        for entry, w in zip(nd, self._weights, strict=True):
            k = self._where.get(entry)
            if k is None:
                return None
            total += k * w
        self._indices[nd] = total  # a plan asks twice per pair: hash once
        return total

    def steps(self, i: int) -> tuple[Step, ...]:
        """Every legal step out of layout ``i``, in the planner's order (dims
        groups as ``dim_groups``, new entries as ``entries``)."""
        found = self._steps.get(i)
        if found is None:
            found = self._steps[i] = self._legal(i)
        return found

    def _legal(self, i: int) -> tuple[Step, ...]:
        g = self.digits(i)
        axis, partial = self._axis, self._partial
        out: list[Step] = []
        for dims, later_at, offset in self._groups:
            s = g[dims[0]]
            if len(dims) == 1:
                changes = self._changes[s]
            elif all(g[d] == s for d in dims):
                changes = self._group_changes[s]
            else:
                continue
            later_axes = {axis[g[j]] for j in later_at}
            later_kinds = {partial[g[j]] for j in later_at}
            later_axes.discard(-1)
            later_kinds.discard(None)
            if axis[s] in later_axes:
                continue  # the split that changes is not the innermost
            reduce = partial[s]
            if reduce is not None and later_kinds - {reduce}:
                continue  # a later partial of another kind
            for t, kind in changes:
                if axis[t] in later_axes:
                    continue
                fill = partial[t]
                if (
                    fill is not None
                    and axis[s] >= 0
                    and not all(
                        fill_survives(fill, k, self.element) for k in later_kinds
                    )
                ):
                    continue
                out.append((i + (t - s) * offset, dims, kind, reduce))
        return tuple(out)


@lru_cache(maxsize=64)
def step_kinds(rank: int, element: str, ndim: int) -> StepKinds:
    """The ``StepKinds`` a model's tensors of one rank and element share."""
    return StepKinds(rank, element, ndim)


class TensorSteps:
    """The legal steps of ``tensor`` on ``hierarchy``, with group bytes and
    local work."""

    def __init__(self, tensor: TensorType, hierarchy: Hierarchy) -> None:
        self.tensor, self.hierarchy = tensor, hierarchy
        self.kinds = step_kinds(tensor.rank, tensor.element, len(hierarchy))
        self._shapes: dict[int, Shape] = {}
        self._groups: dict[tuple[int, tuple[int, ...]], int] = {}
        self._legal: dict[int, tuple[Legal, ...]] = {}

    @property
    def expanded(self) -> int:
        """How many layouts' steps have been made so far."""
        return len(self._legal)

    def shape(self, i: int) -> Shape:
        """Layout ``i``'s local shape."""
        found = self._shapes.get(i)
        if found is None:
            nd = self.kinds.layout(i)
            found = self._shapes[i] = local_shape(self.tensor.shape, nd, self.hierarchy)
        return found

    def group_bytes(self, i: int, dims: tuple[int, ...]) -> int:
        """``cost_model.group_bytes`` of layout ``i`` on ``dims``."""
        found = self._groups.get((i, dims))
        if found is None:
            nd = self.kinds.layout(i)
            found = self._groups[(i, dims)] = piece_group_bytes(
                self.shape(i), nd, dims, self.tensor, self.hierarchy
            )
        return found

    def legal(self, i: int) -> tuple[Legal, ...]:
        """Every legal step out of layout ``i``, as ``StepKinds.steps``."""
        found = self._legal.get(i)
        if found is None:
            found = self._legal[i] = tuple(
                (
                    j,
                    dims,
                    kind,
                    reduce,
                    max(self.group_bytes(i, dims), self.group_bytes(j, dims)),
                    self._local(kind, dims, i, j),
                )
                for j, dims, kind, reduce in self.kinds.steps(i)
            )
        return found

    def _local(
        self, kind: CollectiveKind, dims: tuple[int, ...], i: int, j: int
    ) -> int:
        src, dst = self.kinds.layout(i), self.kinds.layout(j)
        return elements_written(
            kind, dims, src, dst, lambda nd: self.shape(i if nd is src else j)
        )


@lru_cache(maxsize=128)
def tensor_steps(tensor: TensorType, hierarchy: Hierarchy) -> TensorSteps:
    """The ``TensorSteps`` of one tensor type, under every cost model."""
    return TensorSteps(tensor, hierarchy)


class PricedSteps:
    """``TensorSteps`` priced under ``cost_model``.

    Each distinct price (time, bytes) has an id; ``exact[id]`` is it as
    ``Fraction``\\ s, ``times[id]``/``nbytes[id]`` as integers over
    ``time_den``/``bytes_den``, the least common denominators so far.  A new
    price whose denominator they lack multiplies them (and every integer)
    by the missing factor: only a handful of times per cost model.
    """

    def __init__(self, steps: TensorSteps, cost_model: CostModel) -> None:
        self.steps = steps
        self.cost_model = cost_model
        self._prices = StepPrices(steps.tensor, steps.hierarchy, cost_model)
        self._ids: dict[tuple[Fraction, Fraction], int] = {}
        self._keyed: dict[tuple[CollectiveKind, tuple[int, ...], int, int], int] = {}
        self.exact: list[tuple[Fraction, Fraction]] = []
        self.times: list[int] = []
        self.nbytes: list[int] = []
        self.time_den = 1
        self.bytes_den = 1
        self._edges: dict[int, tuple[Edge, ...]] = {}
        # The planner's step objects, by (source, target) index: made once.
        self.made: dict[tuple[int, int], object] = {}

    def price(self, time: Fraction, nbytes: Fraction) -> int:
        """The id of the price (``time`` seconds, ``nbytes`` bytes per device)."""
        key = (time, nbytes)
        found = self._ids.get(key)
        if found is not None:
            return found
        found = self._ids[key] = len(self.exact)
        self.exact.append(key)
        k = time.denominator // math.gcd(self.time_den, time.denominator)
        if k > 1:
            self.time_den *= k
            self.times = [v * k for v in self.times]
        k = nbytes.denominator // math.gcd(self.bytes_den, nbytes.denominator)
        if k > 1:
            self.bytes_den *= k
            self.nbytes = [v * k for v in self.nbytes]
        self.times.append(time.numerator * (self.time_den // time.denominator))
        self.nbytes.append(nbytes.numerator * (self.bytes_den // nbytes.denominator))
        return found

    def edges(self, i: int) -> tuple[Edge, ...]:
        """Every legal step out of layout ``i``, priced."""
        found = self._edges.get(i)
        if found is None:
            found = self._edges[i] = tuple(
                (legal[0], legal, self._price_of(legal))
                for legal in self.steps.legal(i)
            )
        return found

    def _price_of(self, legal: Legal) -> int:
        _, dims, kind, _, group, local = legal
        key = (kind, dims, group, local)
        found = self._keyed.get(key)
        if found is None:  # the price, whatever the layouts
            nbytes, time = self._prices.step(kind, dims, group)
            time += local_time(local, self.cost_model)
            found = self._keyed[key] = self.price(time, nbytes)
        return found


@lru_cache(maxsize=256)  # a few dozen tensor types at several latency scales
def priced_steps(
    tensor: TensorType, hierarchy: Hierarchy, cost_model: CostModel
) -> PricedSteps:
    """The ``PricedSteps`` of one tensor type under one cost model."""
    return PricedSteps(tensor_steps(tensor, hierarchy), cost_model)


def clear_cache() -> None:
    """Forget every step space built (for benchmarks)."""
    for fn in (step_kinds, tensor_steps, priced_steps):
        fn.cache_clear()
