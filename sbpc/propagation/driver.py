"""The propagation driver: the common path every strategy shares.

A strategy only chooses an option per node (``strategy.Strategy``).  The
driver memoises the edge prices it asks for, settles the single-device case
without asking it, runs it, and builds and prices the ``Plan``, so all
strategies are priced by the same code.  Strategies are found by name in
``STRATEGIES`` (the pass option ``strategy=``); ``register`` adds one.
"""

from __future__ import annotations

from sbpc.propagation.bfs import Bfs
from sbpc.propagation.edge_costs import EdgeCosts, EdgeTable
from sbpc.propagation.graph import EdgeCost, SbpGraph
from sbpc.propagation.greedy import Greedy
from sbpc.propagation.improve import improve as improve_choice
from sbpc.propagation.improve import replicated_options
from sbpc.propagation.optimal import Optimal
from sbpc.propagation.plan import Plan, build_plan
from sbpc.propagation.strategy import (
    Choice,
    Problem,
    Strategy,
    budget_error,
)
from sbpc.timing import phase

STRATEGIES: dict[str, Strategy] = {s.name: s for s in (Greedy(), Bfs(), Optimal())}


def register(strategy: Strategy) -> Strategy:
    """Make ``strategy`` available by its name (a name is taken only once)."""
    if strategy.name in STRATEGIES:
        raise ValueError(f"a strategy named '{strategy.name}' is already registered")
    STRATEGIES[strategy.name] = strategy
    return strategy


def strategy_named(name: str) -> Strategy:
    """The registered strategy ``name``; the error lists the registered ones."""
    try:
        return STRATEGIES[name]
    except KeyError:
        raise ValueError(
            f"unknown strategy '{name}', expected one of {', '.join(STRATEGIES)}"
        ) from None


def propagate(
    graph: SbpGraph,
    edge_cost: EdgeCost,
    strategy: str | Strategy = "greedy",
    *,
    edge_bytes: EdgeCost | None = None,
    edge_table: EdgeTable | None = None,
    memory_budget: float | None = None,
    time_limit: float | None = None,
    improve: bool = True,
) -> Plan:
    """Plan ``graph`` with ``strategy`` (a registered name or an instance).

    ``memory_budget`` reaches only strategies that honour one; ``time_limit``
    is the strategy's to use or ignore.  ``edge_table`` prices whole tables
    of layout pairs at once (it must agree with ``edge_cost``); strategies
    that price tables use it.  ``improve``: move an improvable strategy's
    choice downhill (``improve.py``); off, its plan is exactly its choice.
    """
    chosen = strategy_named(strategy) if isinstance(strategy, str) else strategy
    costs = EdgeCosts(edge_cost, edge_bytes, graph.is_single_device, edge_table)
    budget = memory_budget if chosen.honours_memory_budget else None
    if graph.is_single_device:
        return _single_device_plan(graph, costs, chosen.name, budget)
    problem = Problem(graph, costs, budget, time_limit)
    with phase(f"strategy {chosen.name}"):
        choice = chosen.choose(problem)
    if improve and chosen.improvable:
        with phase("improve"):
            better = improve_choice(graph, costs, choice.options)
        choice = Choice(better.options, {**choice.stats, **better.stats})
    with phase("price plan"):
        return build_plan(graph, choice.options, costs, chosen.name, choice.stats)


def _single_device_plan(
    graph: SbpGraph, costs: EdgeCosts, strategy: str, budget: float | None
) -> Plan:
    """All hierarchy dimensions are 1: every layout is the same data.

    No search is needed and every change is free.  OneFlow writes ``S(0)``
    everywhere in this case; here each op takes its first candidate that is
    ``B`` throughout (what one device literally holds, so the lowering emits
    no slice and no reduction), else its first candidate, keeping user
    constraints.  Every layout holds the whole tensor on one device, so this
    plan's peak is the smallest there is.
    """
    chosen = replicated_options(graph, [0] * len(graph.nodes))
    plan = build_plan(graph, chosen, costs, strategy, {"single_device": True})
    if budget is not None and plan.peak_memory > budget:
        raise budget_error(budget, plan.peak_memory, proven=True)
    return plan
