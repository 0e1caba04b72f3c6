"""Crossing a memory price's plans (``crossover``): the budgeted program over
the labels the plans give each node finds the cheapest mix that fits, and
never a plan the exact model puts over the budget."""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pytest

import sbpc.propagation.solver.crossover as crossover_module
from sbpc.propagation.driver import propagate
from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.memory import plan_memory
from sbpc.propagation.memory_rows import MemoryRows
from sbpc.propagation.optimal import Optimal
from sbpc.propagation.solver import memory_price
from sbpc.propagation.solver.crossover import Crossed, crossover
from sbpc.propagation.solver.exact import solve_exact
from sbpc.propagation.solver.memory_price import within_budget
from sbpc.propagation.solver.pairwise import PairwiseProblem, restrict
from sbpc.testing.synthetic_graphs import RingCost, transformer_graph


@pytest.fixture(scope="module")
def setup():
    """A priced plan that fits half the unbudgeted peak (the search's own,
    neither relinked nor crossed), the cheaper plans the search met over the budget, and
    what the search saw (every argument gathered per use, as the driver
    sets it under a budget)."""
    g = transformer_graph(2, (2, 4), dense_skips=1)
    cost = RingCost((2, 4)).time
    free = propagate(g, cost, "optimal")
    seen: list = []

    def record(problem, memory, budget, best, others, *_, **__) -> Crossed:
        seen.append((list(best), [list(other) for other in others]))
        return Crossed(None, 0, 0, "off")

    g.gathered_per_use = frozenset(node.result for node in g.sources())
    memory, costs = MemoryRows.of(g), EdgeCosts(cost)
    budget = 0.5 * free.peak_memory
    with (
        mock.patch.object(memory_price, "crossover", record),
        mock.patch.object(memory_price, "relink", lambda best, *_: (best, 0)),
    ):
        within_budget(
            g, costs, memory, budget, {}, lambda p: solve_exact(p, 1e-9, None)
        )
    ((fits, others),) = seen
    return g, PairwiseProblem.from_graph(g, costs), memory, budget, fits, others


def _kept(best: list[int], others: list[list[int]]) -> list[np.ndarray]:
    return [np.unique([best[v], *(o[v] for o in others)]) for v in range(len(best))]


def test_restricted_rows_hold_what_the_rows_hold_for_every_mix(setup) -> None:
    """Cut to the plans' labels, the rows give every labelling the bytes
    the full rows give it, with the boxes no free node decides folded away."""
    _, _, memory, _, fits, others = setup
    kept = _kept(fits, others)
    restricted = memory.restricted(kept)
    assert len(restricted.boxes) < len(memory.boxes)
    rng = np.random.default_rng(0)
    for _ in range(40):
        index = [int(rng.integers(len(k))) for k in kept]
        labels = [int(k[i]) for k, i in zip(kept, index, strict=True)]
        assert restricted.values(dict(enumerate(index))) == pytest.approx(
            memory.values(dict(enumerate(labels)))
        )


def test_restrict_keeps_every_labellings_cost(setup) -> None:
    _, problem, _, _, fits, others = setup
    kept = _kept(fits, others)
    cut = restrict(problem, kept)
    rng = np.random.default_rng(1)
    for _ in range(40):
        index = [int(rng.integers(len(k))) for k in kept]
        labels = [int(k[i]) for k, i in zip(kept, index, strict=True)]
        assert cut.energy(index) == pytest.approx(problem.energy(labels))


def test_the_cheapest_mix_that_fits_is_found(setup) -> None:
    """With ten nodes free between the fitting plan and the cheapest over
    the budget (those the crossover of the whole plans moves, and others
    they differ on), every one of the 1,024 mixes is priced and checked:
    the crossover's answer is the cheapest that fits the exact model."""
    g, problem, memory, budget, fits, others = setup

    def held(labels: list[int]) -> list[float]:
        return plan_memory(g, labels, memory.liveness).held

    whole = crossover(problem, memory, budget, fits, others, held)
    assert whole.labels is not None, whole.why
    free = min(others, key=problem.energy)
    differ = [v for v, (a, b) in enumerate(zip(fits, free, strict=True)) if a != b]
    moved = [v for v in differ if whole.labels[v] != fits[v]]
    assert len(moved) <= 10
    free_nodes = sorted(
        moved + [v for v in differ if v not in moved][: 10 - len(moved)]
    )
    other = list(fits)
    for v in free_nodes:
        other[v] = free[v]

    cheapest, cost = None, problem.energy(fits)
    for picks in itertools.product((0, 1), repeat=len(free_nodes)):
        labels = list(fits)
        for v, pick in zip(free_nodes, picks, strict=True):
            labels[v] = (fits, other)[pick][v]
        energy = problem.energy(labels)
        if energy < cost * (1 - 1e-9) and max(held(labels)) <= budget:
            cheapest, cost = labels, energy
    assert cheapest is not None  # the search's plan is not the best mix
    crossed = crossover(problem, memory, budget, fits, [other], held)
    assert crossed.free == len(free_nodes)
    assert crossed.labels is not None, crossed.why
    assert problem.energy(crossed.labels) == pytest.approx(cost)
    assert max(held(crossed.labels)) <= budget


def test_the_branching_rule_changes_the_work_not_the_answer(
    setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pseudo-costs trusted without strong branching (the crossover's
    ``RELIABLE_BRANCHING`` off) reach the optimum strong branching reaches:
    the same cost, and a plan that fits."""
    g, problem, memory, budget, fits, others = setup

    def held(labels: list[int]) -> list[float]:
        return plan_memory(g, labels, memory.liveness).held

    asked: list[bool] = []
    solve = crossover_module.Ilp.solve

    def spy(self, *args, **kwargs):
        asked.append(kwargs["reliable_branching"])
        return solve(self, *args, **kwargs)

    monkeypatch.setattr(crossover_module.Ilp, "solve", spy)
    answers = []
    for reliable in (True, False):
        monkeypatch.setattr(crossover_module, "RELIABLE_BRANCHING", reliable)
        crossed = crossover(problem, memory, budget, fits, others, held)
        assert crossed.labels is not None, crossed.why
        assert max(held(crossed.labels)) <= budget
        answers.append(problem.energy(crossed.labels))
    assert answers[1] == pytest.approx(answers[0], rel=1e-9)
    assert True in asked and False in asked


def test_a_plan_the_exact_model_puts_over_is_never_returned(setup) -> None:
    """When the exact model holds more than the rows say (here: every plan
    but the fitting one is told over the budget), the rows are lowered and
    the program solved again, until nothing cheaper is left: no answer."""
    g, problem, memory, budget, fits, others = setup

    def held(labels: list[int]) -> list[float]:
        exact = plan_memory(g, labels, memory.liveness).held
        return exact if labels == fits else [b + budget for b in exact]

    crossed = crossover(problem, memory, budget, fits, others, held)
    assert crossed.labels is None
    assert crossed.solves > 1


def test_plans_that_agree_leave_nothing_to_cross(setup) -> None:
    _, problem, memory, budget, fits, _ = setup
    crossed = crossover(problem, memory, budget, fits, [list(fits)], lambda _: [0.0])
    assert (crossed.labels, crossed.free, crossed.why) == (None, 0, "the plans agree")


def test_a_priced_plan_says_what_the_crossover_did(setup) -> None:
    g, _, _, budget, _, _ = setup
    plan = propagate(
        g, RingCost((2, 4)).time, Optimal(price_above=0), memory_budget=budget
    )
    assert plan.peak_memory <= budget
    assert "free nodes" in plan.stats["memory_price_crossover"]


def test_a_program_too_large_is_not_built(
    setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over ``MAX_FREE`` free nodes, or rows of more than ``MAX_ENTRIES``
    entries, the crossover says so and leaves the plan as it is."""
    _, problem, memory, budget, fits, others = setup
    monkeypatch.setattr(crossover_module, "MAX_FREE", 3)
    crossed = crossover(problem, memory, budget, fits, others, lambda _: [0.0])
    assert crossed.labels is None and crossed.why == "more than 3 free nodes"
    monkeypatch.setattr(crossover_module, "MAX_FREE", 5_000)
    monkeypatch.setattr(crossover_module, "MAX_ENTRIES", 10)
    crossed = crossover(problem, memory, budget, fits, others, lambda _: [0.0])
    assert crossed.labels is None and crossed.why == "rows of more than 10 entries"
