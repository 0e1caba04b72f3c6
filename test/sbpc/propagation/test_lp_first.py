"""The optimal strategy's LP-first path: an integral relaxation is taken as
the proven optimum, a fractional one falls back to the MIP, and both paths
give plans of the same cost."""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.propagation.driver import propagate
from sbpc.propagation.optimal import Optimal
from sbpc.propagation.solver.ilp import Ilp
from sbpc.propagation.solver.pairwise import Factor, PairwiseProblem
from sbpc.testing.synthetic_graphs import RingCost, mixed_graphs


def frustrated_triangle() -> PairwiseProblem:
    """Three two-label nodes, each pair paying 1 for equal labels: every
    labelling pays at least 1, while the relaxation x = 1/2 pays 0 (an odd
    cycle, the textbook non-integral local polytope)."""
    problem = PairwiseProblem([np.zeros(2)] * 3)
    equal = np.array([[1.0, 0.0], [0.0, 1.0]])
    for a, b in [(0, 1), (1, 2), (0, 2)]:
        problem.add_factor(Factor(a, b, np.arange(2), np.arange(2), equal))
    return problem


def test_fractional_relaxation_is_refused_and_the_mip_solves_it() -> None:
    ilp = Ilp(frustrated_triangle(), [0, 1, 2], None, None)
    assert ilp.solve_relaxation(None, 1e-7, None) is None
    result = ilp.solve(None, 1e-7, None)
    assert result.stats["proven"]
    assert result.objective == pytest.approx(1.0)


def test_integral_relaxation_is_the_proven_optimum() -> None:
    problem = frustrated_triangle()
    # Break the cycle's frustration: node 0 strongly prefers label 0, and
    # (0, 2) now pays for *different* labels, so (0, 1, 0) costs 0.
    problem.unary[0] = np.array([0.0, 5.0])
    f = problem.remove_factor(0, 2)
    problem.add_factor(Factor(0, 2, f.ga, f.gb, 1.0 - f.full()))
    ilp = Ilp(problem, [0, 1, 2], None, None)
    result = ilp.solve_relaxation(None, 1e-7, None)
    assert result is not None
    assert result.labels == [0, 1, 0]
    assert result.stats["proven"] and result.stats["branch_nodes"] == 0
    assert result.objective == pytest.approx(0.0)


@pytest.mark.parametrize("hier", [(4,), (2, 2), (2, 4)])
def test_lp_first_and_mip_plans_cost_the_same(hier: tuple[int, ...]) -> None:
    rng = np.random.default_rng(11)
    cost = RingCost(hier, latency=(1e-6,) * len(hier)).time
    lp_paths = 0
    for g in mixed_graphs(rng, hier, 40, (2, 8), 3):
        lp = propagate(g, cost, Optimal())
        mip = propagate(g, cost, Optimal(lp_first=False))
        assert lp.stats["proven"] and mip.stats["proven"]
        assert lp.total_time == pytest.approx(mip.total_time, rel=1e-7, abs=1e-15)
        lp_paths += "integral LP" in str(lp.stats.get("status", ""))
        assert "integral LP" not in str(mip.stats.get("status", ""))
    assert lp_paths > 0  # the LP path was taken at least once
