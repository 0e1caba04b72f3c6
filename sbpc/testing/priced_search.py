"""The memory price's search on a pairwise problem given directly, for tests.

``memory_price.within_budget`` reads a graph: its pairwise problem and the
exact memory of a plan.  The tests of the priced search give both as data
(a problem of repeated layers, ``MemoryRows`` whose rows are the exact
memory), so the search runs on them alone.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from types import SimpleNamespace
from typing import TYPE_CHECKING

from sbpc.propagation import optimal
from sbpc.propagation.memory_rows import MemoryRows
from sbpc.propagation.solver import memory_price
from sbpc.propagation.solver.exact import solve_exact
from sbpc.propagation.solver.pairwise import PairwiseProblem

if TYPE_CHECKING:
    import pytest

Search = Callable[[optimal.Optimal], tuple[list[int], dict]]


def priced_search(
    monkeypatch: pytest.MonkeyPatch,
    problem: PairwiseProblem,
    memory: MemoryRows,
    share: float,
) -> tuple[Search, float]:
    """(``search(strategy)``: the labels and stats of ``within_budget``, the
    budget): ``problem`` stands for the graph's pairwise problem and
    ``memory``'s rows for a plan's exact memory; the budget is ``share`` of
    the unbudgeted optimum's peak."""
    monkeypatch.setattr(
        memory_price.PairwiseProblem,
        "from_graph",
        lambda graph, costs: copy.deepcopy(problem),
    )

    def exact(graph: object, labels: list[int], liveness: object) -> SimpleNamespace:
        return SimpleNamespace(held=memory.values(dict(enumerate(labels))))

    monkeypatch.setattr(memory_price, "plan_memory", exact)
    free = solve_exact(copy.deepcopy(problem), 1e-9, None)
    assert free is not None, "the unbudgeted problem has a plan"
    budget = share * memory.peak(dict(enumerate(free[0])))

    def search(strategy: optimal.Optimal) -> tuple[list[int], dict]:
        stats: dict = {}
        found = memory_price.within_budget(
            None,  # type: ignore[arg-type]
            None,  # type: ignore[arg-type]
            memory,
            budget,
            stats,
            strategy._price_solver(stats),
        )
        return found, stats

    return search, budget
