"""The planner's searches (``cheapest_paths``: Dijkstra resumed from one
source, A* bounded by ``time_bound`` on large layout spaces) find exactly
the plan of a plain Dijkstra over the whole step graph.

The reference here builds its own graph of every candidate layout's single
steps with the public ``single_step`` (not ``step_space``), and runs a
textbook Dijkstra on exact ``Fraction`` costs (time, bytes, steps), ties to
the lower layout index: the planner's rule before its search went lazy.
Every plan must equal the reference's: the same steps, the same exact cost.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections.abc import Callable, Iterable
from fractions import Fraction
from functools import cache

import pytest

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import Broadcast, NdSbp, Split
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner, step_space
from sbpc.boxing.cost_model import DEFAULT_COST_MODEL, CostModel, Link

MODELS = {
    "default": DEFAULT_COST_MODEL,
    "bytes": CostModel(links=(Link(1.0, 0.0),), transfer=Link(1.0, 0.0)),  # ties
    "a2a-half-latency": CostModel.parse("a2a=1").with_latency_scale(0.5),
}
# (shape, element, hierarchy): 3 and 4 dims, uneven splits, an integer type.
CASES = [
    ((8, 6), "f32", (2, 2, 2)),
    ((6, 5), "i32", (2, 3, 2)),
    ((4, 6, 8), "f32", (2, 2, 2)),
    ((12,), "f32", (2, 2, 2, 2)),
    ((6,), "i32", (3, 2, 2, 2)),
    ((8, 4), "f32", (2, 2, 2, 2)),
]
SOURCES, TARGETS = 3, 25

_Node = int
_Step = tuple[_Node, planner.BoxingStep]


def reference_dijkstra(
    start: _Node, steps: Callable[[_Node], Iterable[_Step]]
) -> dict[_Node, tuple[list[planner.BoxingStep], Fraction, Fraction]]:
    """The cheapest path to every node by (time, bytes, steps), ties to the
    lower node: (steps, bytes, time) by node."""
    zero = (Fraction(0), Fraction(0), 0)
    best = {start: zero}
    prev: dict[_Node, tuple[_Node, planner.BoxingStep]] = {}
    done: dict[_Node, tuple[Fraction, Fraction, int]] = {}
    heap = [(zero, start)]
    while heap:
        cost, node = heapq.heappop(heap)
        if node in done:
            continue
        done[node] = cost
        for nxt, step in steps(node):
            new = (cost[0] + step.exact_time, cost[1] + step.exact_bytes, cost[2] + 1)
            if nxt not in done and (nxt not in best or new < best[nxt]):
                best[nxt] = new
                prev[nxt] = (node, step)
                heapq.heappush(heap, (new, nxt))
    out = {}
    for target, (time, nbytes, _) in done.items():
        path, node = [], target
        while node in prev:
            node, step = prev[node]
            path.append(step)
        out[target] = (path[::-1], nbytes, time)
    return out


class ReferenceGraph:
    """Every single step between ``tensor``'s candidate layouts, found with
    ``single_step`` (made the first time the reference reaches a layout)."""

    def __init__(self, tensor: TensorType, hierarchy: tuple[int, ...], model) -> None:
        self.tensor, self.hierarchy, self.model = tensor, hierarchy, model
        self.states = planner.candidate_layouts(tensor, hierarchy)
        self.index = {nd: i for i, nd in enumerate(self.states)}
        ndim = len(hierarchy)
        self.groups = [
            dims
            for size in range(1, ndim + 1)
            for dims in itertools.combinations(range(ndim), size)
        ]
        self._steps: dict[int, list[_Step]] = {}

    def steps(self, node: int) -> list[_Step]:
        if node not in self._steps:
            src = self.states[node]
            out = []
            for dims in self.groups:
                for entry in planner.entries(self.tensor.rank):
                    dst = tuple(entry if d in dims else e for d, e in enumerate(src))
                    step = planner.single_step(
                        src, dst, dims, self.tensor, self.hierarchy, self.model
                    )
                    if step is not None:
                        out.append((self.index[dst], step))
            self._steps[node] = out
        return self._steps[node]

    def plans(self, src: NdSbp) -> dict:
        """The reference's plan from ``src`` to each layout it reaches."""
        found = reference_dijkstra(self.index[src], self.steps)
        return {self.states[i]: plan for i, plan in found.items()}


@cache
def reference_graph(
    shape: tuple[int, ...], element: str, hierarchy: tuple[int, ...], model: str
) -> ReferenceGraph:
    return ReferenceGraph(TensorType(shape, element), hierarchy, MODELS[model])


def assert_same(got: planner.BoxingPlan | None, want) -> None:
    if want is None:
        assert got is None
        return
    steps, nbytes, time = want
    assert got is not None
    assert got.steps == tuple(steps)
    assert (got.exact_bytes, got.exact_time) == (nbytes, time)


def plan_or_none(*args) -> planner.BoxingPlan | None:
    try:
        return planner.plan(*args)
    except planner.BoxingError:
        return None


@pytest.mark.parametrize("bounded", [False, True], ids=["shared", "bounded"])
@pytest.mark.parametrize("model", list(MODELS), ids=str)
@pytest.mark.parametrize(("shape", "element", "hierarchy"), CASES, ids=str)
def test_plans_equal_a_whole_graph_dijkstra(
    shape, element, hierarchy, model, bounded, monkeypatch
) -> None:
    """Random pairs, planned by the resumed search (``shared``) or by A*
    (``bounded``: every layout space counted as large)."""
    if bounded:
        monkeypatch.setattr(planner, "SHARED_SEARCH_LAYOUTS", 0)
    else:
        monkeypatch.setattr(planner, "SHARED_SEARCH_LAYOUTS", 10**9)
    planner.clear_cache()
    tensor = TensorType(shape, element)
    cost_model = MODELS[model]
    reference = reference_graph(shape, element, hierarchy, model)
    rng = random.Random(f"{shape}{element}{hierarchy}{model}")
    for src in rng.sample(reference.states, SOURCES):
        want = reference.plans(src)
        for dst in rng.sample(reference.states, TARGETS):
            got = plan_or_none(src, dst, tensor, hierarchy, cost_model)
            if src == dst:
                assert got is not None and got.steps == ()
                continue
            assert_same(got, want.get(dst))
    planner.clear_cache()


@pytest.mark.parametrize("bounded", [False, True], ids=["shared", "bounded"])
def test_plans_between_placements_equal_a_whole_graph_dijkstra(
    bounded, monkeypatch
) -> None:
    """Two placements of one hierarchy: Dijkstra over (side, layout), side 0
    the source's, with a transfer from each layout to itself on the other."""
    if bounded:
        monkeypatch.setattr(planner, "SHARED_SEARCH_LAYOUTS", 0)
    else:
        monkeypatch.setattr(planner, "SHARED_SEARCH_LAYOUTS", 10**9)
    planner.clear_cache()
    tensor, hierarchy = TensorType((8, 6), "f32"), (2, 2, 2)
    src_p = Placement("cpu", hierarchy, tuple(range(8)))
    dst_p = Placement("cpu", hierarchy, tuple(range(4, 12)))
    model = DEFAULT_COST_MODEL
    reference = reference_graph(tensor.shape, tensor.element, hierarchy, "default")
    size = len(reference.states)

    def steps(node: int) -> list[_Step]:
        side, i = divmod(node, size)
        out = [(side * size + j, step) for j, step in reference.steps(i)]
        if side == 0:
            nd = reference.states[i]
            move = planner.transfer_step(nd, nd, src_p, dst_p, tensor, model)
            out.append((size + i, move))
        return out

    rng = random.Random(7)
    for src in rng.sample(reference.states, SOURCES):
        want = reference_dijkstra(reference.index[src], steps)
        for dst in rng.sample(reference.states, TARGETS):
            got = planner.plan_between(src, src_p, dst, dst_p, tensor, model)
            assert_same(got, want.get(size + reference.index[dst]))
    planner.clear_cache()


def test_a_gather_on_32768_layouts_expands_few_of_them() -> None:
    """A rank-4 tensor on 5 hierarchy dims (sub-axes make such meshes):
    gathering it to all-B once made every layout's steps (32,768 of them,
    5 s); the bounded search makes those of a few hundred."""
    planner.clear_cache()
    tensor, hierarchy = TensorType((16, 8, 4, 4), "f32"), (2, 2, 2, 2, 2)
    src = (Split(3), Broadcast(), Split(2), Split(1), Split(1))
    dst = (Broadcast(),) * 5
    got = planner.plan(src, dst, tensor, hierarchy)
    assert [step.kind for step in got.steps] == ["all_gather"] * 4
    assert got.steps[0].src == src and got.steps[-1].dst == dst
    space = step_space.tensor_steps(tensor, hierarchy)
    assert space.kinds.size == 32768
    assert 0 < space.expanded < space.kinds.size // 20
    planner.clear_cache()


def test_a_resumed_search_keeps_its_own_prices() -> None:
    """A source's search outlives the price table it was made with (the
    table's cache is smaller): a later plan from that source reads the
    search's table, not a new one with other price ids."""
    planner.clear_cache()
    tensor, hierarchy = TensorType((8, 6), "f32"), (2, 2)
    src = (Split(0), Split(1))
    first = planner.plan(src, (Broadcast(), Broadcast()), tensor, hierarchy)
    step_space.priced_steps.cache_clear()  # as if evicted
    later = planner.plan(src, (Split(1), Split(0)), tensor, hierarchy)
    planner.clear_cache()
    assert later == planner.plan(src, (Split(1), Split(0)), tensor, hierarchy)
    assert first == planner.plan(src, (Broadcast(), Broadcast()), tensor, hierarchy)
    planner.clear_cache()
