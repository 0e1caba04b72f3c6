"""Shrinking keeps the optimum: brute force before equals brute force of the
core after, expanded back, on random pairwise problems with cycles."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sbpc.propagation.solver.pairwise import Factor, PairwiseProblem
from sbpc.propagation.solver.shrink import (
    _dominance,
    _sides,
    expand,
    prune_dominated,
    relabel_forward,
    shrink,
)
from sbpc.testing.repeated_problems import repeated_chain


def random_problem(rng: np.random.Generator, n: int, density: float) -> PairwiseProblem:
    """Mostly 2-3 labels and full tables (dense, often not series-parallel),
    some single labels, grouped tables and impossible pairs."""
    sizes = rng.choice([1, 2, 3, 3], size=n)
    problem = PairwiseProblem([rng.random(k) for k in sizes])
    for a, b in itertools.combinations(range(n), 2):
        if rng.random() < density:
            if rng.random() < 0.7:
                ga, gb = np.arange(sizes[a]), np.arange(sizes[b])
            else:
                ga = rng.integers(0, 2, size=sizes[a])
                gb = rng.integers(0, 2, size=sizes[b])
            table = rng.random((ga.max() + 1, gb.max() + 1))
            table[rng.random(table.shape) < 0.05] = np.inf
            problem.add_factor(Factor(int(a), int(b), ga, gb, table))
    return problem


def brute(problem: PairwiseProblem) -> float:
    alive = [v for v in range(len(problem)) if problem.alive[v]]
    best = np.inf
    labels = [0] * len(problem)
    for combo in itertools.product(*(range(problem.sizes[v]) for v in alive)):
        for v, label in zip(alive, combo, strict=True):
            labels[v] = label
        best = min(best, problem.energy(labels))
    return best


@pytest.mark.parametrize("prune", [False, True], ids=["shrink", "shrink+prune"])
@pytest.mark.parametrize("density", [0.25, 0.5, 0.9])
def test_shrink_keeps_the_optimum(density: float, prune: bool) -> None:
    rng = np.random.default_rng(int(density * 100))
    cores = relabels = 0
    for _ in range(30):
        problem = random_problem(rng, int(rng.integers(2, 9)), density)
        original = PairwiseProblem(problem.unary)
        for f in problem.factors.values():
            original.add_factor(f)
        original.constant = problem.constant
        before = brute(original)
        records = shrink(problem)
        while prune and (pruned := prune_dominated(problem)):
            relabels += len(pruned)
            records += pruned + shrink(problem)
        core = [v for v in range(len(problem)) if problem.alive[v]]
        cores += bool(core)
        assert all(
            problem.sizes[v] > 1 and len(problem.neighbours[v]) > 2 for v in core
        )
        # best labels of the core by brute force, then expand and re-price
        best, best_labels = np.inf, None
        labels = [0] * len(problem)
        for combo in itertools.product(*(range(problem.sizes[v]) for v in core)):
            for v, label in zip(core, combo, strict=True):
                labels[v] = label
            energy = problem.energy(labels)
            if energy < best:
                best, best_labels = energy, list(labels)
        assert best == pytest.approx(before)
        if np.isfinite(before):
            assert best_labels is not None
            expand(records, best_labels)
            assert original.energy(best_labels) == pytest.approx(before)
    if density > 0.5:  # dense enough that cores and pruning were exercised
        assert cores > 0
        assert relabels > 0 or not prune


def test_chain_folds_to_one_factor_between_its_ends() -> None:
    # 0 - 1 - 2 - 5, 0 - 3 - 5 and 0 - 4 - 5: the chain folds into one
    # factor 0 - 5, the other paths merge into it, and a tree remains.
    rng = np.random.default_rng(0)
    n = 6
    problem = PairwiseProblem([0.1 * rng.random(3) for _ in range(n)])
    potts = 1 - np.eye(3)  # never separable, nor is a chain of them
    for a, b in [(0, 1), (1, 2), (2, 5), (0, 3), (3, 5), (0, 4), (4, 5)]:
        problem.add_factor(Factor(a, b, np.arange(3), np.arange(3), potts + 0.01 * a))
    original = PairwiseProblem(problem.unary)
    for f in problem.factors.values():
        original.add_factor(f)
    before = brute(original)
    records = shrink(problem)
    assert not any(problem.alive)
    kinds = [(type(r).__name__, r.node) for r in records]
    assert kinds == [
        ("Series", 1),  # 0 - 1 - 2 becomes 0 - 2
        ("Series", 2),  # 0 - 2 - 5 becomes 0 - 5
        ("Series", 3),  # merged into 0 - 5
        ("Series", 4),  # merged into 0 - 5
        ("Leaf", 5),  # 5 hangs off 0
        ("Fixed", 0),  # 0 alone: its best label
    ], kinds
    labels = [0] * n
    expand(records, labels)
    assert problem.constant == pytest.approx(before)
    assert original.energy(labels) == pytest.approx(before)


def test_frozen_nodes_stay_unless_single_label() -> None:
    problem = PairwiseProblem([np.zeros(2), np.zeros(1), np.zeros(2)])
    for a, b in [(0, 1), (1, 2), (0, 2)]:
        problem.add_factor(
            Factor(
                a,
                b,
                np.arange(problem.sizes[a]),
                np.arange(problem.sizes[b]),
                np.eye(problem.sizes[a], problem.sizes[b])
                + np.arange(problem.sizes[b]),
            )
        )
    shrink(problem, frozen={0, 1, 2})
    assert problem.alive == [True, False, True]


def test_dominated_labels_are_pruned_and_expanded_back() -> None:
    # Node 1's label 2 costs more than label 0 whatever node 0 and 2 take;
    # labels 0 and 1 tie everywhere, so exactly one of them stays.
    problem = PairwiseProblem([np.zeros(2), np.array([0.0, 0.0, 5.0]), np.zeros(2)])
    table = np.array([[0.0, 1.0], [0.0, 1.0], [0.0, 1.0]])
    for w in (0, 2):
        a, b = min(1, w), max(1, w)
        ga = np.arange(3) if a == 1 else np.arange(2)
        gb = np.arange(3) if b == 1 else np.arange(2)
        problem.add_factor(Factor(a, b, ga, gb, table if a == 1 else table.T))
    records = prune_dominated(problem)
    assert problem.sizes[1] == 1
    labels = [0, 0, 0]
    expand(records, labels)
    assert labels[1] in (0, 1)


def test_pruning_skips_frozen_nodes() -> None:
    problem = PairwiseProblem([np.array([0.0, 1.0])])
    assert prune_dominated(problem, frozen={0}) == []
    assert problem.sizes == [2]


def test_relabel_forward_never_costs_more() -> None:
    # Any labelling carried onto the pruned labels costs no more on the
    # pruned problem than it did on the original one (greedy's start for HiGHS).
    rng = np.random.default_rng(9)
    moved = 0
    for _ in range(40):
        problem = random_problem(rng, int(rng.integers(3, 9)), 0.9)
        original = PairwiseProblem(problem.unary)
        for f in problem.factors.values():
            original.add_factor(f)
        records = prune_dominated(problem)
        for _ in range(5):
            labels = [int(rng.integers(k)) for k in original.sizes]
            before = original.energy(labels)
            relabel_forward(records, labels)
            moved += bool(records)
            assert problem.energy(labels) <= before + 1e-12
    assert moved > 0


def test_dominance_reuses_the_minima_of_a_repeated_table() -> None:
    """Nodes of repeated layers share tables: their group-pair minima are
    computed once per pruning pass, with the same result as alone."""
    problem, layers = repeated_chain(np.random.default_rng(5), 4)
    seen: dict = {}
    for layer in layers:
        for v in layer:
            u, sides = problem.unary[v], _sides(problem, v)
            np.testing.assert_array_equal(
                _dominance(u, sides, seen), _dominance(u, sides, {})
            )
    tables = {f.table.tobytes() for f in problem.factors.values()}
    assert len(seen) <= 2 * len(tables) < 2 * len(problem.factors)
