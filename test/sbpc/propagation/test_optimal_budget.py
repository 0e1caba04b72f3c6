"""A memory budget no plan fits (issue 21, item 5): the error comes in
bounded time and names a budget that does fit (the exact peak of the plan
of least peak the search finds; not proven the least, since the search's
rows only estimate the memory model)."""

from __future__ import annotations

import re
import time

import pytest

from sbpc.propagation import optimal
from sbpc.propagation.driver import propagate
from sbpc.propagation.graph import PropagationError
from sbpc.propagation.optimal import Optimal
from sbpc.testing.synthetic_graphs import RingCost, transformer_graph

BUDGET_RE = r"(the smallest feasible|a feasible) budget is .* \((\d+) bytes\)"


def _reported(err: pytest.ExceptionInfo[PropagationError]) -> tuple[bool, float]:
    found = re.search(BUDGET_RE, str(err.value))
    assert found, str(err.value)
    return found.group(1) == "the smallest feasible", float(found.group(2))


def test_a_budget_below_the_floor_skips_the_budgeted_program(monkeypatch) -> None:
    """Below every value's smallest layout no plan can fit: only the
    smallest-budget search runs, and the budget it names fits."""
    g = transformer_graph(1, (2, 2), dense_skips=1)
    cost = RingCost((2, 2)).time
    built: list[tuple[float | None, bool]] = []
    real_init = optimal.Ilp.__init__

    def spy(self, problem, core, memory, budget, minimise_peak=False):
        built.append((budget, minimise_peak))
        real_init(self, problem, core, memory, budget, minimise_peak)

    monkeypatch.setattr(optimal.Ilp, "__init__", spy)
    with pytest.raises(PropagationError) as err:
        propagate(g, cost, "optimal", memory_budget=1)
    assert built == [(None, True)]
    proven, smallest = _reported(err)
    assert not proven
    monkeypatch.undo()
    plan = propagate(g, cost, "optimal", memory_budget=smallest)
    assert plan.peak_memory <= smallest * (1 + 1e-9)


def test_a_search_cut_short_still_names_a_budget_that_fits() -> None:
    """The search starts from greedy's plan, so even with (almost) no time it
    has a feasible budget to report, and says it is not proven smallest."""
    g = transformer_graph(6, (2, 4), dense_skips=2)
    cost = RingCost((2, 4)).time
    started = time.perf_counter()
    with pytest.raises(PropagationError) as err:
        propagate(g, cost, Optimal(peak_seconds=1e-6), memory_budget=1)
    assert time.perf_counter() - started < 60  # bounded, not a hang
    _, budget = _reported(err)
    plan = propagate(g, cost, "optimal", memory_budget=budget)
    assert plan.peak_memory <= budget * (1 + 1e-9)
