"""The memory price through repeated layers (``Optimal._price_solver``):
each priced problem of a model whose layers are priced alike is solved
through one layer (``optimal.solve_repeated``), and the search keeps the
plan the whole core's LP would give it.

The problem is given directly: a chain of identical layers
(``repeated_cliques``) with one memory row in which every layer's nodes hold
the same bytes per label, so that each price adds the same unary cost to
every copy; the exact memory model is that row."""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.propagation.memory_rows import MemoryRows
from sbpc.propagation.optimal import Optimal
from sbpc.propagation.solver import exact, repeated_layers
from sbpc.testing.priced_search import priced_search
from sbpc.testing.repeated_problems import repeated_cliques

LAYERS = 8
SEED = 0


@pytest.fixture
def priced(monkeypatch: pytest.MonkeyPatch):
    """(search under a budget with a solver, the budget): the chain as the
    graph's pairwise problem, one row as its memory."""
    rng = np.random.default_rng(SEED)
    problem, parts = repeated_cliques(rng, LAYERS)
    labels = len(problem.unary[0])
    width = len(parts[0])
    per_part = [rng.uniform(1.0, 4.0, size=labels) for _ in range(width)]
    spans = [(v, per_part[i], 0, 1) for nodes in parts for i, v in enumerate(nodes)]
    memory = MemoryRows([0], None, {}, spans)  # type: ignore[arg-type]
    search, budget = priced_search(monkeypatch, problem, memory, 0.9)
    return search, budget, memory, problem


def test_each_price_is_solved_through_the_repeated_layers(priced) -> None:
    search, budget, memory, problem = priced
    found, stats = search(Optimal())
    assert stats["memory_price_solves"] >= 3
    assert stats["memory_price_paths"] == (
        f"{stats['memory_price_solves']} x repeated layers, proven"
    )
    assert memory.peak(dict(enumerate(found))) <= budget
    whole, whole_stats = search(Optimal(cluster=False))
    assert whole_stats["memory_price_paths"].endswith("x whole core LP")
    assert problem.energy(found) == pytest.approx(problem.energy(whole), rel=1e-9)


def test_a_large_priced_core_keeps_its_plan_unbounded(
    priced, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a core counted large, no residual is solved for a bound: each
    price keeps the repeated layers' plan (here the plan found proven on
    the same problems)."""
    search, budget, memory, problem = priced
    proven, _ = search(Optimal())
    monkeypatch.setattr(exact, "LARGE_CORE_COLUMNS", 0)
    residuals: list[int] = []
    bound = repeated_layers._residual_bound
    monkeypatch.setattr(
        repeated_layers,
        "_residual_bound",
        lambda *a: residuals.append(1) or bound(*a),
    )
    found, stats = search(Optimal())
    paths = stats["memory_price_paths"]
    assert paths == f"{stats['memory_price_solves']} x repeated layers, not bounded"
    assert not residuals
    assert memory.peak(dict(enumerate(found))) <= budget
    assert problem.energy(found) == pytest.approx(problem.energy(proven), rel=1e-9)
