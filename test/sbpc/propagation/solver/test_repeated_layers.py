"""The optimal strategy through repeated layers: a clustered plan is proven
only when it meets the whole core's bound, and then costs exactly what the
LP of the whole core costs; otherwise the whole core's LP decides."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from sbpc.propagation import optimal
from sbpc.propagation.optimal import Optimal
from sbpc.propagation.solver import exact, repeated_layers
from sbpc.propagation.solver.exact import solve_exact
from sbpc.propagation.solver.later_proof import PROOF_KEY, ProofFailed, settle_stats
from sbpc.propagation.solver.pairwise import PairwiseProblem, lp_columns
from sbpc.propagation.solver.repeated_layers import _residual_bound, clustered
from sbpc.propagation.strategy import Problem
from sbpc.testing.repeated_problems import layered_paths, repeated_chain

SEEDS = range(8)


def full_optimum(problem: PairwiseProblem) -> float:
    solved = solve_exact(copy.deepcopy(problem), 1e-9, None)
    assert solved is not None
    return problem.energy(solved[0])


def _proven_seeds() -> int:
    """How many of the seeds' chains clustering proves; each proven plan
    costs the whole core's optimum, each other one has a real gap."""
    proven = 0
    for seed in SEEDS:
        problem, _ = repeated_chain(np.random.default_rng(seed), 8)
        result = clustered(
            copy.deepcopy(problem), list(range(len(problem))), 1e-7, None
        )
        assert result.stats["cluster"] != "too few repeated factors"
        best = full_optimum(problem)
        if result.stats.get("proven"):
            proven += 1
            assert result.labels is not None
            assert problem.energy(result.labels) == pytest.approx(best, rel=1e-9)
            assert result.stats["gap"] <= 1e-7
        else:
            # not proven: the gap is real (the bound is below the optimum)
            assert result.labels is None and result.stats["cluster_gap"] > 1e-7
            assert result.stats["cluster"].startswith("gap ")
    return proven


def test_a_certified_plan_costs_the_whole_cores_optimum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    widened = _proven_seeds()
    # A narrow window's edges pull its middle copy's labels away from the
    # optimum's: widening it proves more chains.
    monkeypatch.setattr(repeated_layers, "WINDOW_HOPS", repeated_layers.WINDOW_HOPS[:1])
    narrow = _proven_seeds()
    assert widened > narrow >= 2 and widened >= 5


def choose(monkeypatch: pytest.MonkeyPatch, problem: PairwiseProblem, **knobs):
    """``Optimal.choose`` on a pairwise problem given directly."""
    monkeypatch.setattr(
        optimal.PairwiseProblem,
        "from_graph",
        lambda graph, costs: copy.deepcopy(problem),
    )
    return Optimal(**knobs).choose(Problem(graph=None, costs=None))  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", SEEDS)
def test_strategy_with_and_without_clustering_agree(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    problem, _ = repeated_chain(np.random.default_rng(seed), 8)
    # unshrunk, so that the core keeps its copies and clustering is tried
    on = choose(monkeypatch, problem, shrink_graph=False)
    off = choose(monkeypatch, problem, shrink_graph=False, cluster=False)
    assert on.stats["proven"] and off.stats["proven"]
    assert on.stats["cluster_copies"] >= 6 and "cluster_copies" not in off.stats
    assert on.stats["cluster"] == "proven" or "gap" in on.stats["cluster"]
    assert problem.energy(on.options) == pytest.approx(
        problem.energy(off.options), rel=1e-9
    )


def test_a_loose_bound_falls_back_to_the_whole_core(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    problem, _ = repeated_chain(np.random.default_rng(3), 8)
    rng = np.random.default_rng(0)

    def garbage(problem, copies, source, duals):
        return {
            k: (rng.normal(size=a.shape), rng.normal(size=b.shape))
            for k, (a, b) in duals.items()
        }

    monkeypatch.setattr(repeated_layers, "copy_messages", garbage)
    loose = choose(monkeypatch, problem, shrink_graph=False)
    assert loose.stats["cluster_gap"] > 1e-7 and "gap" in loose.stats["cluster"]
    assert loose.stats["proven"] and "integral LP" in loose.stats["status"]
    assert problem.energy(loose.options) == pytest.approx(full_optimum(problem))


def test_the_strategy_returns_a_certified_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    problem, _ = repeated_chain(np.random.default_rng(4), 8)
    choice = choose(monkeypatch, problem, shrink_graph=False)
    assert choice.stats["cluster"] == "proven"
    assert choice.stats["status"] == "Optimal (repeated layers, certified)"
    assert "ilp_columns" not in choice.stats  # the whole core's LP never ran
    assert problem.energy(choice.options) == pytest.approx(
        full_optimum(problem), rel=1e-9
    )


def test_a_residuals_own_copies_bound_it_from_below() -> None:
    """``_residual_bound`` through a problem's own copies (a repeated chain
    stands in for a residual that repeats) never exceeds its optimum."""
    by_copies = 0
    for seed in range(4):
        # denser layers: enough of them survives the shrink for copies
        problem, _ = repeated_chain(np.random.default_rng(seed), 8, chords=12)
        bound, own = _residual_bound(copy.deepcopy(problem), 1e-7, None)
        best = full_optimum(problem)
        assert bound <= best + 1e-9 * abs(best)
        by_copies += own
    assert by_copies > 0


def test_a_loose_residual_bound_falls_back_to_its_lp(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    problem, _ = repeated_chain(np.random.default_rng(4), 8)
    own = repeated_layers._residual_bound

    def loose(
        rest: PairwiseProblem, rel_gap: float, threads: int | None
    ) -> tuple[float, bool]:
        return own(rest, rel_gap, threads)[0] - 1.0, True

    monkeypatch.setattr(repeated_layers, "_residual_bound", loose)
    choice = choose(monkeypatch, problem, shrink_graph=False)
    assert choice.stats["cluster"] == "proven"
    assert choice.stats["cluster_residual_bound"] == "its LP"
    assert problem.energy(choice.options) == pytest.approx(
        full_optimum(problem), rel=1e-9
    )


def test_a_large_core_keeps_the_layers_plan_within_its_proven_gap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A core too large for its whole LP (every core, with the threshold at
    0) keeps the repeated layers' plan when its proven gap is under
    ``LARGE_CORE_GAP``: unproven, its gap in the stats, and truly within
    that gap of the whole core's optimum."""
    monkeypatch.setattr(exact, "LARGE_CORE_COLUMNS", 0)
    kept = 0
    for seed in SEEDS:
        problem, _ = repeated_chain(np.random.default_rng(seed), 8)
        choice = choose(monkeypatch, problem, shrink_graph=False)
        best = full_optimum(problem)
        energy = problem.energy(choice.options)
        assert energy >= best - 1e-9 * abs(best)
        if choice.stats["proven"]:
            continue
        kept += 1
        gap = choice.stats["gap"]
        assert 1e-7 < gap <= exact.LARGE_CORE_GAP
        assert choice.stats["status"].startswith("repeated layers, within ")
        assert "ilp_columns" not in choice.stats  # the whole core's LP never ran
        assert (energy - best) / energy <= gap + 1e-9
    assert kept >= 2


def test_only_large_cores_accept_a_gap(monkeypatch: pytest.MonkeyPatch) -> None:
    problem, _ = repeated_chain(np.random.default_rng(0), 8)
    core = list(range(len(problem)))
    columns = lp_columns(problem, core)
    labels = sum(len(problem.unary[v]) for v in core)
    assert columns == labels + sum(f.table.size for f in problem.factors.values())
    assert exact.accepted_gap(problem, core, 1e-7) == 1e-7
    monkeypatch.setattr(exact, "LARGE_CORE_COLUMNS", columns - 1)
    assert exact.accepted_gap(problem, core, 1e-7) == exact.LARGE_CORE_GAP
    assert exact.accepted_gap(problem, core, 0.5) == 0.5  # never below the own


def test_a_stack_whose_first_layer_differs_is_solved_through_the_others() -> None:
    """The copies leave the odd first layer out with the last, and those two
    are solved with what is not fixed: every inner layer is fixed to the
    middle copy's labels, and the plan costs the whole core's optimum."""
    layers, width = 12, 12
    problem = layered_paths(layers, width, odd_part=width // 2)
    result = clustered(copy.deepcopy(problem), list(range(len(problem))), 1e-7, None)
    assert result.stats["cluster_copies"] == layers - 2
    assert result.stats["cluster_parts"] == width
    assert result.labels is not None
    assert problem.energy(result.labels) == pytest.approx(
        full_optimum(problem), rel=1e-9
    )


def test_a_window_over_the_large_core_size_bounds_at_highs_own_tolerance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A window LP of more than ``LARGE_CORE_COLUMNS`` columns is solved at
    HiGHS's own dual tolerance, and its messages still bound every plan:
    the bound never passes the whole core's optimum."""
    tolerances: list[float | None] = []
    relax = optimal.Ilp.solve_relaxation

    def recording(self, time_limit, rel_gap, threads, dual_tolerance=None, **kw):
        tolerances.append(dual_tolerance)
        return relax(self, time_limit, rel_gap, threads, dual_tolerance, **kw)

    monkeypatch.setattr(optimal.Ilp, "solve_relaxation", recording)
    problem, _ = repeated_chain(np.random.default_rng(1), 8)
    clustered(copy.deepcopy(problem), list(range(len(problem))), 1e-7, None)
    assert tolerances[0] == repeated_layers.WINDOW_DUAL_TOLERANCE  # a small window
    monkeypatch.setattr(exact, "LARGE_CORE_COLUMNS", 0)
    for seed in SEEDS:
        problem, _ = repeated_chain(np.random.default_rng(seed), 8)
        tolerances.clear()
        result = clustered(
            copy.deepcopy(problem), list(range(len(problem))), 1e-7, None
        )
        assert tolerances[0] is None
        best = full_optimum(problem)
        if result.labels is not None:
            objective, gap = result.stats["objective"], result.stats["gap"]
            assert objective - gap * abs(objective) <= best * (1 + 1e-9)
            assert problem.energy(result.labels) >= best * (1 - 1e-9)


def _clustered_later(problem: PairwiseProblem) -> tuple[object, str]:
    """``clustered`` with its proof left pending, then settled: (the
    result, how its proof ended: "none" when nothing was left pending,
    "settled" or "failed")."""
    result = clustered(
        copy.deepcopy(problem), list(range(len(problem))), 1e-7, None, later=True
    )
    if PROOF_KEY not in result.stats:
        return result, "none"
    assert result.labels is not None  # the plan comes before its proof
    try:
        settle_stats(result.stats)
    except ProofFailed:
        return result, "failed"
    return result, "settled"


def test_a_proof_left_pending_settles_to_the_proof_waited_for() -> None:
    """A plan whose bound is computed beside the caller (``later_proof``)
    settles to exactly what waiting for it gave: the same labels, gap and
    status; and where the first window's plan is not proven (the search
    waiting for it would widen the window), settling fails rather than
    keeping that plan.  The seeds' chains meet both."""
    ends = set()
    for seed in SEEDS:
        problem, _ = repeated_chain(np.random.default_rng(seed), 8)
        waited = clustered(
            copy.deepcopy(problem), list(range(len(problem))), 1e-7, None
        )
        later, ended = _clustered_later(problem)
        ends.add(ended)
        if ended == "failed":  # the waited-for search went on past that window
            assert (
                waited.stats.get("cluster_window_hops")
                != repeated_layers.WINDOW_HOPS[0]
            )
            continue
        assert PROOF_KEY not in later.stats
        assert later.labels == waited.labels
        for key in ("gap", "proven", "status", "cluster", "cluster_residual_bound"):
            assert later.stats.get(key) == waited.stats.get(key), key
    assert {"settled", "failed"} <= ends
