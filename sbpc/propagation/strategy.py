"""What a propagation strategy is: something that chooses, not something that prices.

A strategy gets a ``Problem`` (the graph, memoised edge prices, the run's
limits) and returns a ``Choice``: one option index per graph node.  The
driver (``driver.py``) owns everything around that choice: the memo, the
single-device case, and building and pricing the ``Plan``.  So every
strategy is measured with the same yardstick, and a new one (registered with
``driver.register``) is a class with a ``name`` and a ``choose``, as
Shardy's propagation strategies plug into one base.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from sbpc.propagation.decision_memo import DecisionMemo
from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import PropagationError, SbpGraph
from sbpc.propagation.report.summary import format_bytes

UNDECIDED = -1  # an option index not chosen yet


@dataclass(frozen=True)
class Problem:
    """What a strategy chooses for, with the limits of this run.

    ``memory_budget`` is set only for strategies that honour one
    (``Strategy.honours_memory_budget``); ``time_limit`` is advisory.
    ``unbudgeted``: the plan the caller made of this problem without the
    budget, when it made one (the device's memory as the budget: that plan
    came first and did not fit); a search under the budget may start there.
    ``unbudgeted_bound``: a lower bound on every plan that its search proved
    (None: none), so on the plans that fit too.
    """

    graph: SbpGraph
    costs: EdgeCosts
    memory_budget: float | None = None
    time_limit: float | None = None
    unbudgeted: Sequence[int] | None = None
    unbudgeted_bound: float | None = None  # every plan costs at least this

    def undecided(self) -> list[int]:
        """A fresh per-node option list with nothing decided yet."""
        return [UNDECIDED] * len(self.graph.nodes)

    def is_finite(self, options: Sequence[int]) -> bool:
        """Whether every layout change that ``options`` (all decided) need
        is possible; the plan of an infinite one cannot be built."""
        graph = self.graph
        return all(
            math.isfinite(
                self.costs.time(
                    graph.edge_src_layout(edge, options[edge.src]),
                    graph.edge_dst_layout(edge, options[edge.dst]),
                    graph.tensor(edge),
                )
            )
            for edge in graph.edges
        )


@dataclass
class Choice:
    """A strategy's answer: an option per node id, and what it wants reported.

    A result left ``UNDECIDED`` is delivered in its cheapest accepted layout
    (the driver decides it, since no strategy chooses those differently).
    """

    options: list[int]
    stats: dict[str, Any] = field(default_factory=dict)


class Strategy(ABC):
    """The base every strategy implements (``name`` is the pass option)."""

    name: ClassVar[str]
    # Whether ``choose`` keeps the plan within ``Problem.memory_budget``;
    # the driver then also checks the plans it makes itself (single device).
    honours_memory_budget: ClassVar[bool] = False
    # Whether the driver moves the choice downhill afterwards
    # (``improve.improve``): for strategies that decide each node once.
    improvable: ClassVar[bool] = False

    @abstractmethod
    def choose(self, problem: Problem) -> Choice:
        """An option per node; raise ``PropagationError`` when none is finite."""


class NodeByNodeStrategy(Strategy):
    """A strategy that decides each node once, in its own order (greedy,
    bfs).

    ``memoise``: answer repeated questions from a ``DecisionMemo`` (the same
    plan, faster on repeated layers); off, every node is priced afresh.
    """

    def __init__(self, memoise: bool = True) -> None:
        self.memoise = memoise

    def new_memo(self) -> DecisionMemo | None:
        """A fresh memo for one ``choose`` (None when not memoising)."""
        return DecisionMemo() if self.memoise else None


class BudgetError(PropagationError):
    """No plan fits ``budget`` (bytes per device); ``smallest`` is the least
    peak met (the drivers add what would help from it)."""

    def __init__(self, message: str, budget: float, smallest: float) -> None:
        super().__init__(message)
        self.budget, self.smallest = budget, smallest

    def within(self, where: str) -> BudgetError:
        """The same error, said of ``where`` the budget comes from."""
        return BudgetError(f"{where}: {self}", self.budget, self.smallest)


def budget_error(budget: float, smallest: float, proven: bool) -> BudgetError:
    """No plan fits ``budget``; ``smallest`` is the least peak found (proven
    the least, or only a feasible one)."""
    which = "the smallest feasible budget is" if proven else "a feasible budget is"
    return BudgetError(
        f"no plan fits the memory budget of {format_bytes(budget)} "
        f"({budget:.0f} bytes) per device; {which} {format_bytes(smallest)} "
        f"({smallest:.0f} bytes)",
        budget,
        smallest,
    )
