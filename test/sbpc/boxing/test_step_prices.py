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


@pytest.mark.parametrize("element", ["f32", "i32"])
def test_legal_steps_are_every_single_step_the_rules_allow(case, element) -> None:
    """The step structure is shared by the tensors of one rank and element
    (``_step_structure``); each tensor's legal steps are still every pair
    of layouts one step apart by ``_step_kind``, with that tensor's group
    bytes and local work."""
    shape, hierarchy = case[0].shape, case[1]
    tensor = TensorType(shape, element)
    other = TensorType(tuple(2 * n for n in shape), element)  # same rank
    states, legal = planner._legal_steps(tensor, hierarchy)
    assert states == planner.candidate_layouts(tensor, hierarchy)
    assert planner._step_structure(tensor.rank, element, hierarchy) is (
        planner._step_structure(other.rank, other.element, hierarchy)
    )
    want = []
    for src in states:
        steps = []
        for dims in planner._dim_groups(len(hierarchy)):
            for nd in states:
                found = planner._step_kind(src, nd, dims, tensor, hierarchy)
                if found is None:
                    continue
                group = max(
                    group_bytes(src, dims, tensor, hierarchy),
                    group_bytes(nd, dims, tensor, hierarchy),
                )
                local = planner.local_elements(
                    found[0], dims, src, nd, tensor, hierarchy
                )
                steps.append((nd, dims, *found, group, local))
        want.append(sorted(steps, key=repr))
    assert [sorted(steps, key=repr) for steps in legal] == want
