"""``TimeBound``: a lower bound on the time from each layout to a target
that A* may use: never above the plan's time, and consistent (no step
lowers it by more than the step costs)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from sbpc.algebra.sbp import Broadcast
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner
from sbpc.boxing.cost_model import DEFAULT_COST_MODEL, CostModel, Link
from sbpc.boxing.step_space import step_kinds
from sbpc.boxing.time_bound import TimeBound, least_totals

MODELS = [
    DEFAULT_COST_MODEL,
    CostModel(links=(Link(1.0, 0.0),), transfer=Link(1.0, 0.0)),
    CostModel.parse("bw=1e9:4e9:2e10,lat=3e-6:1e-6:0,overhead=0"),
]


@pytest.mark.parametrize("model", MODELS, ids=["default", "bytes", "per-dim"])
@pytest.mark.parametrize(
    ("shape", "element", "hierarchy"),
    [
        ((8, 6), "f32", (2, 2, 2)),
        ((6, 5), "i32", (3, 2, 2)),
        ((12,), "f32", (2, 2, 2, 2)),
    ],
    ids=str,
)
def test_the_bound_is_consistent_and_below_every_plan(
    shape, element, hierarchy, model
) -> None:
    tensor = TensorType(shape, element)
    graph = planner._graph(tensor, hierarchy, model)
    kinds = step_kinds(tensor.rank, element, len(hierarchy))
    least = least_totals(tensor, hierarchy, model)
    all_b = (Broadcast(),) * len(hierarchy)
    rng = random.Random(3)
    targets = [all_b, *rng.sample(graph.states, 3)]
    for dst in targets:
        target = graph.index[dst]
        bound = TimeBound(kinds, target, least)

        def seconds(node: int, bound: TimeBound = bound) -> Fraction:
            return bound.seconds[bound.state(node)]

        assert seconds(target) == 0
        for i, edges in enumerate(graph.edges):
            for j, step, _, _ in edges:
                assert seconds(i) <= step.exact_time + seconds(j), (step, dst)
        for src in rng.sample(graph.states, 20):
            try:
                found = planner.plan(src, dst, tensor, hierarchy, model)
            except planner.BoxingError:
                continue
            assert seconds(graph.index[src]) <= found.exact_time
        if dst == all_b and model is not MODELS[1]:
            assert any(seconds(i) > 0 for i in range(len(graph.states)))
