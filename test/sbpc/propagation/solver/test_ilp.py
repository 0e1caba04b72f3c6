"""The LP relaxation's HiGHS settings: the lighter cost perturbation where
only the primal answer is read, and the same plans with it."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from sbpc.propagation.driver import propagate
from sbpc.propagation.optimal import Optimal
from sbpc.propagation.progress import Progress, reporting
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


class _Solved:
    """What ``Ilp._integral_result`` reads of a solved HiGHS: an optimal
    status, the column values and the objective (here given, not solved)."""

    def __init__(self, columns: list[float], objective: float) -> None:
        self.col_value = columns
        self.objective_function_value = objective

    def getModelStatus(self):
        return ilp_module.highspy.HighsModelStatus.kOptimal

    def getSolution(self):
        return self

    def getInfo(self):
        return self


def agreeing_pair() -> tuple[PairwiseProblem, Ilp]:
    """Two nodes of two labels that pay 1 to differ: the optimum (0) is
    either labelling that agrees, and so is any even mixture of them, a
    fractional point of the same cost as the LP's bound."""
    problem = PairwiseProblem([np.zeros(2), np.zeros(2)])
    problem.add_factor(Factor(0, 1, np.arange(2), np.arange(2), 1.0 - np.eye(2)))
    return problem, Ilp(problem, [0, 1], None, None)


def test_a_fractional_optimum_rounded_to_the_bound_is_proven_without_the_mip() -> None:
    """The simplex can end on a fractional vertex of a degenerate optimal
    face: its rounding (each node's largest label, then single-node moves
    from the fractional nodes) that costs the bound is a proven optimum."""
    _, ilp = agreeing_pair()
    # node 0 leans to label 0, node 1 to label 1: rounded they differ (cost
    # 1), and one move makes them agree at the bound, 0
    lp = _Solved([0.5, 0.5, 0.49, 0.51, 0.0, 0.0, 0.0, 0.0], objective=0.0)
    result = ilp._integral_result(lp, 0.0, 1e-9)
    assert result is not None
    assert result.labels in ([0, 0], [1, 1])
    assert result.objective == 0.0
    assert result.stats["status"] == "Optimal (rounded LP relaxation)"
    assert result.stats["proven"]


def test_a_rounding_above_the_bound_leaves_the_decision_to_the_mip() -> None:
    """A bound the rounding cannot reach (here a made-up one below every
    labelling's cost) proves nothing: no result, so the MIP runs."""
    problem, ilp = agreeing_pair()
    problem.unary[0] = np.array([0.5, 0.5])  # every labelling costs at least 0.5
    lp = _Solved([0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0], objective=0.25)
    assert ilp._integral_result(lp, 0.0, 1e-9) is None


def test_a_rounding_within_the_callers_gap_is_kept_but_not_proven() -> None:
    """The memory price needs a good plan, not a proof: a rounding within
    its ``rounded_gap`` of the bound is kept without the MIP, and says it
    is not proven; one outside it still leaves the decision to the MIP."""
    problem, ilp = agreeing_pair()
    problem.unary[0] = np.array([0.5, 0.5])  # every labelling costs at least 0.5
    lp = _Solved([0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0], objective=0.49)
    assert ilp._integral_result(lp, 0.0, 1e-9) is None
    kept = ilp._integral_result(lp, 0.0, 1e-9, rounded_gap=0.05)
    assert kept is not None and kept.objective == 0.5
    assert kept.stats["proven"] is False
    assert kept.stats["gap"] == pytest.approx(0.02)
    assert kept.stats["status"] == "rounded LP relaxation (within 2% of its bound)"
    assert ilp._integral_result(lp, 0.0, 1e-9, rounded_gap=0.01) is None


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_does_not_call_an_unproven_rounding_proven(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    problem, ilp = agreeing_pair()
    problem.unary[0] = np.array([0.5, 0.5])
    lp = _Solved([0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0], objective=0.49)
    kept = ilp._integral_result(lp, 0.0, 1e-9, rounded_gap=0.05)
    monkeypatch.setattr(ilp, "_integral_result", lambda *_: kept)
    out = _Terminal()
    with reporting(Progress.for_terminal(stream=out)):
        assert ilp.solve_relaxation(None, 1e-9, None, rounded_gap=0.05) is kept
    line = re.search(r"optimal: LP relaxation \((.*?)\) +[\d.]+ s", out.getvalue())
    assert line, out.getvalue()
    assert line.group(1) == "rounded LP relaxation (within 2% of its bound)"
