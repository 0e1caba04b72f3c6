"""``planner.time_matrix``: every pair's ``plan(...).time`` at once, the same
floats, ``inf`` where no collectives get there."""

from __future__ import annotations

import math

import pytest

from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner
from sbpc.boxing.cost_model import CostModel


@pytest.mark.parametrize(
    ("shape", "hierarchy"),
    [((8, 16), (2, 4)), ((6, 4), (2, 2)), ((3, 8), (4,)), ((2, 2, 8), (2, 2, 2))],
)
def test_time_matrix_equals_plan_time_for_every_pair(
    shape: tuple[int, ...], hierarchy: tuple[int, ...]
) -> None:
    tensor = TensorType(shape, "f32")
    model = CostModel.parse("default")
    index, times = planner.time_matrix(tensor, hierarchy, model)
    states = planner.candidate_layouts(tensor, hierarchy)
    assert sorted(index.values()) == list(range(len(states)))
    assert set(index) == set(states)
    for src in states:
        for dst in states:
            got = times[index[src]][index[dst]]
            try:
                want = planner.plan(src, dst, tensor, hierarchy, model).time
            except planner.BoxingError:
                want = math.inf
            assert got == want, (src, dst)  # exactly the same float
    assert all(times[i][i] == 0.0 for i in range(len(states)))
