"""``StepPrices``: the step graph prices each distinct input once, with the
same exact values as pricing every step from scratch."""

from __future__ import annotations

import math

import pytest

from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner
from sbpc.boxing.cost_model import (
    CostModel,
    collective_bytes,
    collective_kind,
    group_bytes,
)
from sbpc.boxing.step_prices import StepPrices

CASES = [((8, 16), (2, 4)), ((6, 5), (2, 2)), ((3, 8), (4,))]


@pytest.fixture(params=CASES, ids=str)
def case(request) -> tuple[TensorType, tuple[int, ...], CostModel]:
    """An f32 tensor, a device hierarchy and the default cost model."""
    shape, hierarchy = request.param
    return TensorType(shape, "f32"), hierarchy, CostModel.parse("default")


def test_prices_equal_the_cost_models(case) -> None:
    tensor, hierarchy, model = case
    prices = StepPrices(tensor, hierarchy, model)
    entries = planner.entries(tensor.rank)
    kinds = {collective_kind(s, t) for s in entries for t in entries if s != t}
    groups: set[tuple[tuple[int, ...], int]] = set()
    for nd in planner.candidate_layouts(tensor, hierarchy):
        for dims in planner._dim_groups(len(hierarchy)):
            got = prices.group_bytes(nd, dims)
            assert got == group_bytes(nd, dims, tensor, hierarchy)
            groups.add((dims, got))
    for dims, group in sorted(groups):
        n = math.prod(hierarchy[d] for d in dims)
        for kind in kinds - {None}:
            nbytes = collective_bytes(kind, n, group)
            want = (nbytes, model.step_time(kind, dims, hierarchy, nbytes))
            assert prices.step(kind, dims, group) == want


def test_step_graph_equals_steps_priced_one_by_one(case) -> None:
    tensor, hierarchy, model = case
    graph = planner._graph(tensor, hierarchy, model)
    for edges in graph.edges:
        for _, step, _, _ in edges:
            alone = planner._single_step(
                step.src, step.dst, step.dims, tensor, hierarchy, model
            )
            assert alone == step
            assert (alone.exact_bytes, alone.exact_time) == (
                step.exact_bytes,
                step.exact_time,
            )
