"""Lower bounds on every plan's total: the optimal strategy's, and with combining."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, NdSbp, P, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner as boxing
from sbpc.boxing.collective_kind import LOCAL_KINDS
from sbpc.boxing.cost_model import CostModel, Device, Link
from sbpc.propagation.combined_cost import combined_cost
from sbpc.propagation.driver import propagate
from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import SbpGraph
from sbpc.propagation.lower_bound import combined_lower_bound, lower_bound
from sbpc.propagation.plan import build_plan, proven_bound
from sbpc.testing.synthetic_graphs import RingCost, random_graph

T = TensorType((64, 64))
PLACEMENT = Placement("cpu", (4,), (0, 1, 2, 3))
MODEL = CostModel(
    links=(Link(bandwidth=1e9, latency=1e-5, overhead=5e-5),), device=Device(1e9, 1e9)
)


def test_the_optimal_strategy_certifies_its_objective_less_its_gap() -> None:
    assert proven_bound({"objective": 10.0, "gap": 0.1}) == pytest.approx(9.0)
    assert proven_bound({"objective": 10.0, "gap": 0.0}) == 10.0
    assert proven_bound({"objective": 10.0}) is None
    assert proven_bound({"objective": 10.0, "gap": math.inf}) is None


@pytest.mark.parametrize("seed", range(8))
def test_no_plan_costs_less_than_the_bound(seed: int) -> None:
    rng = np.random.default_rng(seed)
    hierarchy = (2, 2) if seed % 2 else (4,)
    g = random_graph(rng, hierarchy, n_ops=int(rng.integers(3, 25)), square=True)
    ring = RingCost(hierarchy, latency=(1e-6,) * len(hierarchy))
    bound = lower_bound(g, EdgeCosts(ring.time))
    assert bound is not None
    best = propagate(g, ring.time, "optimal").total_time
    assert bound == pytest.approx(best, rel=1e-6)  # the LP is tight here
    for strategy in ("greedy", "bfs"):
        raw = propagate(g, ring.time, strategy, improve=False)
        assert raw.total_time >= bound * (1 - 1e-9)


def reduce_or_replicate(k: int) -> SbpGraph:
    """``k`` ops that split their work and leave a partial sum (one
    all-reduce each, combinable into one) or run whole on every device."""
    g = SbpGraph((4,))
    for i in range(k):
        x = g.add_argument(f"x{i}", T, layout=(B,))
        cands = [Signature(((S(1),),), ((P,),)), Signature(((B,),), ((B,),))]
        (y,) = g.add_op(f"op{i}", [x], [T], cands, compute_costs=[1e-4, 4e-4])
        g.add_result(f"y{i}", y, (B,))
    return g


def prices(model: CostModel, local_only: bool = False):
    def time(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
        try:
            plan = boxing.plan(src, dst, tensor, PLACEMENT, model)
        except boxing.BoxingError:
            return math.inf
        if local_only and any(s.kind not in LOCAL_KINDS for s in plan.steps):
            return math.inf
        return plan.time

    return time


@pytest.mark.parametrize("k", [1, 2, 6])
def test_with_combining_every_plan_pays_at_least_one_launch(k: int) -> None:
    """Combined, k all-reduces cost one launch: the bound counts one launch
    (or the best plan that runs none) above the latency-free optimum, and
    no plan, split or replicated, costs less."""
    g = reduce_or_replicate(k)
    fixed = float(MODEL.step_latency("all_gather", (0,), (4,)))
    bound = combined_lower_bound(
        g,
        EdgeCosts(prices(MODEL.with_latency_scale(0.0))),
        EdgeCosts(prices(MODEL, local_only=True)),
        fixed,
    )
    assert bound is not None
    totals = []
    for option in (0, 1):  # every op split, or every op replicated
        options = [option if i % 3 == 1 else 0 for i in range(len(g.nodes))]
        plan = build_plan(g, options, EdgeCosts(prices(MODEL)), "x")
        totals.append(
            plan.compute_time + combined_cost(plan, PLACEMENT, MODEL).comm_time
        )
    assert min(totals) >= bound * (1 - 1e-9)
    free = lower_bound(g, EdgeCosts(prices(MODEL.with_latency_scale(0.0))))
    assert free is not None and bound >= free
    replicated = k * 4e-4
    assert bound == pytest.approx(min(free + fixed, replicated))


def test_no_plan_of_finite_cost_bounds_at_infinity() -> None:
    """Gathering a split argument needs a collective: with every collective
    priced infinite no plan exists, and the bound says so (``inf``, not
    unknown), so the combined bound may count a launch."""
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(S(0),))
    cands = [Signature(((S(0),),), ((S(0),),)), Signature(((B,),), ((B,),))]
    (y,) = g.add_op("op", [x], [T], cands, compute_costs=[1e-4, 4e-4])
    g.add_result("y", y, (B,))
    assert lower_bound(g, EdgeCosts(prices(MODEL, local_only=True))) == math.inf
    assert lower_bound(g, EdgeCosts(prices(MODEL))) == pytest.approx(
        propagate(g, prices(MODEL), "optimal").total_time
    )
