"""``planner.time_matrix``: every pair's ``plan(...).time`` at once (float
sums of the exact steps: within a few units in the last place), ``inf``
where no collectives get there."""

from __future__ import annotations

import math

import pytest

from sbpc.algebra.sbp import Broadcast, Split
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner
from sbpc.boxing.collective_kind import LOCAL_KINDS
from sbpc.boxing.cost_model import CostModel


@pytest.mark.parametrize(
    ("shape", "hierarchy"),
    [
        ((8, 16), (2, 4)),
        ((6, 4), (2, 2)),
        ((3, 8), (4,)),
        ((2, 2, 8), (2, 2, 2)),
        ((4, 8, 16), (2, 4)),
    ],
)
@pytest.mark.parametrize("scale", [1.0, 0.5, 0.0])
def test_time_matrix_equals_plan_time_for_every_pair(
    shape: tuple[int, ...], hierarchy: tuple[int, ...], scale: float
) -> None:
    tensor = TensorType(shape, "f32")
    model = CostModel.parse("default").with_latency_scale(scale)
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
            assert got == pytest.approx(want, rel=1e-12, abs=0), (src, dst)
    assert all(times[i][i] == 0.0 for i in range(len(states)))


@pytest.mark.parametrize(("shape", "hierarchy"), [((8, 16), (2, 4)), ((3, 8), (4,))])
def test_local_matrix_holds_every_pair_a_local_plan_connects(
    shape: tuple[int, ...], hierarchy: tuple[int, ...]
) -> None:
    """A pair the planner connects with local steps only is in
    ``local_matrix``; a pair it does not connect at all is not."""
    tensor = TensorType(shape, "f32")
    model = CostModel.parse("default")
    index, reach = planner.local_matrix(tensor, hierarchy, model)
    states = planner.candidate_layouts(tensor, hierarchy)
    locals_seen = 0
    for src in states:
        for dst in states:
            try:
                steps = planner.plan(src, dst, tensor, hierarchy, model).steps
            except planner.BoxingError:
                assert not reach[index[src]][index[dst]], (src, dst)
                continue
            if all(s.kind in LOCAL_KINDS for s in steps):
                locals_seen += src != dst
                assert reach[index[src]][index[dst]], (src, dst)
    assert locals_seen > 0
    # gathering a split needs communication
    b = (Broadcast(),) * len(hierarchy)
    s0 = (Split(0), *b[1:])
    assert reach[index[b]][index[s0]] and not reach[index[s0]][index[b]]
