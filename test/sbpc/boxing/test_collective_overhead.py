"""The fixed per-collective cost (``overhead``): once per launch, whatever
the ring length, and enough to change which collectives the planner picks."""

from __future__ import annotations

from fractions import Fraction

import pytest

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, P, S
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner as boxing
from sbpc.boxing.collective_kind import LOCAL_KINDS
from sbpc.boxing.cost_model import CostModel, Link

OVERHEAD = 3e-4
MESH = Placement("cpu", (2, 4), tuple(range(8)))
T = TensorType((64, 64))  # 16 KiB


def model(overhead: float, latency: float = 1e-5) -> CostModel:
    return CostModel(links=(Link(1e9, latency, overhead),))


@pytest.mark.parametrize("kind", ["all_gather", "all_reduce", "reduce_scatter"])
def test_one_overhead_per_step_whatever_the_ring(kind: str) -> None:
    nbytes = Fraction(3000)
    for dims in [(0,), (1,), (0, 1)]:
        with_it = model(OVERHEAD).step_time(kind, dims, (2, 4), nbytes)
        without = model(0.0).step_time(kind, dims, (2, 4), nbytes)
        assert float(with_it - without) == pytest.approx(OVERHEAD)


def test_local_steps_and_single_devices_pay_none() -> None:
    m = model(OVERHEAD)
    assert m.step_time("local_slice", (0,), (2, 4), Fraction(0)) == 0
    assert m.step_time("local_to_partial", (1,), (2, 4), Fraction(0)) == 0
    assert m.step_time("all_gather", (0,), (1, 4), Fraction(0)) == 0


@pytest.mark.parametrize(
    ("src", "dst"),
    [
        ((S(0), S(1)), (B, B)),
        ((P, S(0)), (B, B)),
        ((P, P), (S(0), B)),
        ((S(0), B), (B, S(1))),
    ],
)
def test_a_plan_of_k_collectives_pays_k_overheads(src, dst) -> None:
    plan = boxing.plan(src, dst, T, MESH, model(OVERHEAD))
    launches = sum(step.kind not in LOCAL_KINDS for step in plan.steps)
    assert launches >= 1
    # The same steps priced without the overhead.
    bare = sum(
        (
            model(0.0).step_time(s.kind, s.dims, s.hierarchy, s.exact_bytes)
            for s in plan.steps
        ),
        Fraction(0),
    )
    assert float(plan.exact_time - bare) == pytest.approx(launches * OVERHEAD)


def test_overhead_picks_one_ring_over_two() -> None:
    """(S(0), S(0)) -> (B, B): two gathers (1 + 3 rounds) or one over all 8
    devices (7 rounds).  Per round the two are cheaper; per launch, one."""
    two = boxing.plan((S(0), S(0)), (B, B), T, MESH, model(0.0, latency=1e-4))
    assert [s.dims for s in two.steps] in ([(1,), (0,)], [(0,), (1,)])
    one = boxing.plan((S(0), S(0)), (B, B), T, MESH, model(1e-3, latency=1e-4))
    assert [s.dims for s in one.steps] == [(0, 1)]


def test_transfer_pays_the_transfer_links_overhead() -> None:
    m = CostModel(transfer=Link(1e9, 1e-5, OVERHEAD))
    t = m.transfer_time(Fraction(1000), fan_out=2)
    assert float(t) == pytest.approx(OVERHEAD + 2 * 1e-5 + 1000 / 1e9)
    assert m.transfer_time(Fraction(0)) == 0


def test_latency_scale_shares_the_overhead_too() -> None:
    scaled = model(OVERHEAD, latency=1e-5).with_latency_scale(0.25)
    assert scaled.links == (Link(1e9, 0.25e-5, 0.25 * OVERHEAD),)


def test_parse_overhead() -> None:
    assert CostModel.parse("bw=1e9,lat=1e-5,overhead=3e-4").links == (
        Link(1e9, 1e-5, 3e-4),
    )
    two = CostModel.parse("bw=1e9:2e9,overhead=1e-4")
    assert [x.overhead for x in two.links] == [1e-4, 1e-4]
    per_dim = CostModel.parse("overhead=1e-4:2e-5")
    assert [x.overhead for x in per_dim.links] == [1e-4, 2e-5]
    # by default 10 us a launch between nodes, 5 us inside one
    assert [x.overhead for x in CostModel.parse("bw=1e9").links] == [10e-6, 5e-6]
    assert CostModel.parse("default").links == CostModel().links
