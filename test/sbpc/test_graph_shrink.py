"""Shrinking keeps the optimum: brute force before equals brute force of the
core after, expanded back, on random pairwise problems with cycles."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sbpc.graph_shrink import expand, shrink
from sbpc.pairwise import Factor, PairwiseProblem


def random_problem(rng: np.random.Generator, n: int, density: float) -> PairwiseProblem:
    sizes = rng.integers(1, 4, size=n)
    problem = PairwiseProblem([rng.random(k) for k in sizes])
    for a, b in itertools.combinations(range(n), 2):
        if rng.random() < density:
            rows, cols = int(rng.integers(1, 4)), int(rng.integers(1, 4))
            table = rng.random((rows, cols))
            table[rng.random((rows, cols)) < 0.1] = np.inf
            ga = rng.integers(0, rows, size=sizes[a])
            gb = rng.integers(0, cols, size=sizes[b])
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


@pytest.mark.parametrize("density", [0.25, 0.5, 0.9])
def test_shrink_keeps_the_optimum(density: float) -> None:
    rng = np.random.default_rng(int(density * 100))
    for _ in range(30):
        problem = random_problem(rng, int(rng.integers(2, 8)), density)
        original = PairwiseProblem(problem.unary)
        for f in problem.factors.values():
            original.add_factor(f)
        original.constant = problem.constant
        before = brute(original)
        records = shrink(problem)
        core = [v for v in range(len(problem)) if problem.alive[v]]
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
