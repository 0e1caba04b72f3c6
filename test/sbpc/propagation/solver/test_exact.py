"""The exact solve of a pairwise problem's core (``solver.exact``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sbpc.propagation.solver import exact
from sbpc.propagation.solver.pairwise import Factor, PairwiseProblem


def _two_triangles(seed: int = 0) -> PairwiseProblem:
    """Two disjoint cycles of three nodes: a core the shrink keeps whole."""
    rng = np.random.default_rng(seed)
    problem = PairwiseProblem([rng.uniform(0, 1, size=3) for _ in range(6)])
    groups = np.arange(3)
    for a, b in ((0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)):
        problem.add_factor(Factor(a, b, groups, groups, rng.uniform(0, 1, (3, 3))))
    return problem


def test_a_large_core_is_solved_one_component_at_a_time(monkeypatch) -> None:
    """Each connected component gets its own LP, and together they give the
    whole core's optimum and bound."""
    problem = _two_triangles()
    core = list(range(6))
    monkeypatch.setattr(exact, "SPLIT_COLUMNS", 10**9)
    whole_labels, whole_bound = exact.core_lp(problem, core, 1e-9, 1, None)
    built: list[int] = []
    original = exact.Ilp

    def spy(p: PairwiseProblem, nodes: list[int], *args: object) -> object:
        built.append(len(nodes))
        return original(p, nodes, *args)

    monkeypatch.setattr(exact, "Ilp", spy)
    monkeypatch.setattr(exact, "SPLIT_COLUMNS", 0)
    labels, bound = exact.core_lp(problem, core, 1e-9, 1, None)
    assert built == [3, 3]
    assert labels == whole_labels
    assert bound == pytest.approx(whole_bound, rel=1e-9)
    # the optimum: no labelling of the whole is cheaper
    best = min(problem.energy(list(x)) for x in itertools.product(range(3), repeat=6))
    assert problem.energy(labels) == pytest.approx(best, rel=1e-9)
