"""Every repeated layer priced alike (``memory_price.alike``).

A stack of identical layers whose per-layer values live for different
stretches (layer ``l``'s checkpoint from forward step ``l`` to backward
step ``2L - 1 - l``, as with every layer recomputed): each layer spans a
different number of hot rows, so its own price differs from the next
layer's and the priced problem does not repeat.  Averaged over the copies
it repeats again, a plan that labels every copy alike pays the same total
price, and the search solves every price through the repeated layers."""

from __future__ import annotations

import copy
from types import SimpleNamespace

import numpy as np
import pytest

from sbpc.propagation.memory_rows import MemoryRows
from sbpc.propagation.optimal import Optimal
from sbpc.propagation.solver import memory_price
from sbpc.propagation.solver.bound import covered_factors
from sbpc.propagation.solver.exact import shrink_all
from sbpc.propagation.solver.layers import find_copies
from sbpc.propagation.solver.memory_price import priced_problem
from sbpc.testing.priced_search import priced_search
from sbpc.testing.repeated_problems import repeated_cliques

LAYERS = 8
SEED = 0


def checkpoint_memory(
    rng: np.random.Generator, parts: list[list[int]], labels: int
) -> MemoryRows:
    """Rows ``0 .. 2L-1``; parts 0 and 1 of layer ``l`` held from row ``l``
    to row ``2L - 1 - l`` (the same bytes per label in every layer)."""
    per_part = [rng.uniform(1.0, 4.0, size=labels) for _ in range(2)]
    rows = 2 * len(parts)
    spans = [
        (nodes[i], per_part[i], layer, rows - layer)
        for layer, nodes in enumerate(parts)
        for i in range(2)
    ]
    return MemoryRows(list(range(rows)), None, {}, spans)  # type: ignore[arg-type]


@pytest.fixture
def stack():
    rng = np.random.default_rng(SEED)
    problem, parts = repeated_cliques(rng, LAYERS)
    memory = checkpoint_memory(rng, parts, len(problem.unary[0]))
    return problem, parts, memory


def covered_share(problem) -> tuple[int, float]:
    """(copies found after the shrink, their inner factors' share)."""
    shrink_all(problem, set())
    core = [v for v in range(len(problem)) if problem.alive[v]]
    copies = find_copies(problem, core)
    if copies is None:
        return 0, 0.0
    return copies.count, len(covered_factors(problem, copies)) / len(problem.factors)


def test_layers_priced_alike_repeat_again(stack) -> None:
    problem, _, memory = stack
    hot = list(range(2 * LAYERS))  # every layer spans a different count
    layers = find_copies(problem, range(len(problem)))
    assert layers is not None and layers.count == LAYERS
    lam = 0.5

    def priced(alike: bool):
        base = lambda: copy.deepcopy(problem)  # noqa: E731
        return priced_problem(base, memory, hot, lam, layers if alike else None)

    # As much of the priced core repeats as of the unpriced one's (the
    # factors between layers are each copy's edge, not counted).
    count, share = covered_share(priced(True))
    assert count == LAYERS
    assert share == covered_share(copy.deepcopy(problem))[1] > 0.3
    assert covered_share(priced(False))[1] < share / 2
    # A plan that labels every copy alike pays the same total price.
    rng = np.random.default_rng(1)
    one = rng.integers(0, len(problem.unary[0]), size=len(layers.tuples))
    labels = [0] * len(problem)
    for t, part in enumerate(layers.tuples):
        for v in part:
            labels[v] = int(one[t])
    assert priced(True).energy(labels) == pytest.approx(
        priced(False).energy(labels), rel=1e-12
    )


def test_alike_keeps_each_groups_total() -> None:
    """Unary prices and tables (inside a copy, between consecutive
    copies) are replaced by their group's mean; a table to a node outside
    the copies is folded into the copy's node at the outside node's label
    (kept, it would join every copy through that node)."""
    layers = SimpleNamespace(tuples=[(0, 1, 2), (3, 4, 5)], count=3)
    unary = {0: np.array([3.0, 0.0]), 2: np.array([0.0, 3.0]), 9: np.ones(2)}
    tables = {
        (0, 3): np.full((2, 2), 6.0),  # parts 0 -> 1, same copy
        (0, 4): np.full((2, 2), 2.0),  # parts 0 -> 1, next copy
        (1, 5): np.full((2, 2), 4.0),
        (9, 5): np.array([[9.0, 0.0], [0.0, 3.0]]),  # outside -> part 1
        (9, 8): np.full((2, 2), 1.0),  # both outside
    }
    outside = [0] * 10
    outside[9] = 1
    u, t = memory_price.alike(layers, unary, tables, outside)  # type: ignore[arg-type]
    assert all(np.allclose(u[v], [1.0, 1.0]) for v in (0, 1, 2))
    assert all(np.allclose(u[v], [0.0, 1.0]) for v in (3, 4, 5))
    assert np.allclose(u[9], 1.0)
    assert all(np.allclose(t[(v, v + 3)], 2.0) for v in (0, 1, 2))
    assert all(np.allclose(t[(v, v + 4)], 3.0) for v in (0, 1))
    assert np.allclose(t[(9, 8)], 1.0)
    assert len(t) == 3 + 2 + 1
    # one array per group, so that adding it to every copy's factor is one
    # merge (``PairwiseProblem._merge``), not one per copy
    assert t[(0, 3)] is t[(1, 4)] is t[(2, 5)]
    assert t[(0, 4)] is t[(1, 5)]


def test_the_search_solves_each_price_through_the_layers(
    stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    problem, _, memory = stack
    search, budget = priced_search(monkeypatch, problem, memory, 0.8)
    found, stats = search(Optimal())
    assert memory.peak(dict(enumerate(found))) <= budget
    assert stats["memory_price_layers"] == LAYERS
    solves = stats["memory_price_solves"] - 1  # the first is unpriced
    assert solves >= 2
    assert "whole core LP" not in stats["memory_price_paths"], stats
