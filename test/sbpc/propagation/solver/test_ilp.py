"""The LP relaxation's HiGHS settings: the lighter cost perturbation where
only the primal answer is read, and the same plans with it."""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.propagation.driver import propagate
from sbpc.propagation.optimal import Optimal
from sbpc.propagation.solver import ilp as ilp_module
from sbpc.propagation.solver.ilp import COST_PERTURBATION, Ilp
from sbpc.propagation.solver.pairwise import Factor, PairwiseProblem
from sbpc.testing.synthetic_graphs import RingCost, mixed_graphs

MULTIPLIER = "dual_simplex_cost_perturbation_multiplier"


def chain() -> PairwiseProblem:
    """Three nodes of three labels, each neighbour pair paying for a change."""
    problem = PairwiseProblem([np.array([0.0, 1.0, 2.0])] * 3)
    change = 1.0 - np.eye(3)
    for a, b in [(0, 1), (1, 2)]:
        problem.add_factor(Factor(a, b, np.arange(3), np.arange(3), change))
    return problem


def _multiplier(ilp: Ilp) -> float:
    found = ilp.relaxed.getOptionValue(MULTIPLIER)
    return found[1] if isinstance(found, tuple) else found


def test_the_relaxation_perturbs_costs_lightly_unless_its_duals_are_reused() -> None:
    plain = Ilp(chain(), [0, 1, 2], None, None)
    assert plain.solve_relaxation(None, 1e-9, None).labels == [0, 0, 0]
    assert _multiplier(plain) == COST_PERTURBATION < 1.0
    # a window's duals become messages: HiGHS's default, as before
    window = Ilp(chain(), [0, 1, 2], None, None)
    assert window.solve_relaxation(None, 1e-9, None, 1e-10).labels == [0, 0, 0]
    assert _multiplier(window) == 1.0


@pytest.mark.parametrize("hier", [(2, 2), (2, 4)])
def test_the_lighter_perturbation_keeps_the_plans(
    hier: tuple[int, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(5)
    cost = RingCost(hier, latency=(1e-6,) * len(hier)).time
    for g in mixed_graphs(rng, hier, 60, (3, 10), 4):
        light = propagate(g, cost, Optimal())
        monkeypatch.setattr(ilp_module, "COST_PERTURBATION", 1.0)
        default = propagate(g, cost, Optimal())
        monkeypatch.undo()
        assert light.options == default.options
        assert light.total_time == default.total_time
        assert light.stats["proven"] and default.stats["proven"]
