"""The propagation driver: the common path every strategy shares.

A strategy only chooses an option per node (``strategy.Strategy``).  The
driver memoises the edge prices it asks for, settles the single-device case
without asking it, runs it, and builds and prices the ``Plan``, so all
strategies are priced by the same code.  Strategies are found by name in
``STRATEGIES`` (the pass option ``strategy=``); ``register`` adds one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sbpc.propagation.bfs import Bfs
from sbpc.propagation.edge_costs import EdgeCosts, EdgeTable
from sbpc.propagation.graph import EdgeCost, PropagationError, SbpGraph, ValueId
from sbpc.propagation.greedy import Greedy
from sbpc.propagation.improve import improve as improve_choice
from sbpc.propagation.improve import replicated_options
from sbpc.propagation.liveness import Liveness
from sbpc.propagation.memory import (
    copy_reads,
    gathered_per_use,
    layouts_of,
    plan_memory,
)
from sbpc.propagation.optimal import Optimal
from sbpc.propagation.plan import Plan, build_plan, proven_bound
from sbpc.propagation.report.summary import format_bytes
from sbpc.propagation.strategy import (
    BudgetError,
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
    memory_capacity: float | None = None,
    improve: bool = True,
    unbudgeted: Sequence[int] | None = None,
    unbudgeted_bound: float | None = None,
) -> Plan:
    """Plan ``graph`` with ``strategy`` (a registered name or an instance).

    ``memory_budget`` reaches only strategies that honour one; ``time_limit``
    is the strategy's to use or ignore.  ``edge_table`` prices whole tables
    of layout pairs at once (it must agree with ``edge_cost``); strategies
    that price tables use it.  ``memory_capacity``: the device's memory,
    the budget when ``memory_budget`` is None (``_within_capacity``).
    ``improve``: move an improvable strategy's choice downhill
    (``improve.py``); off, its plan is exactly its choice.  ``unbudgeted``:
    this graph's plan without the budget (``Problem.unbudgeted``), and the
    lower bound on every plan its search proved (``unbudgeted_bound``).
    """
    chosen = strategy_named(strategy) if isinstance(strategy, str) else strategy
    if memory_capacity is not None and memory_budget is None:
        return _within_capacity(
            lambda budget, unbudgeted=None, bound=None: propagate(
                graph,
                edge_cost,
                chosen,
                edge_bytes=edge_bytes,
                edge_table=edge_table,
                memory_budget=budget,
                time_limit=time_limit,
                improve=improve,
                unbudgeted=unbudgeted,
                unbudgeted_bound=bound,
            ),
            chosen,
            memory_capacity,
        )
    costs = EdgeCosts(edge_cost, edge_bytes, graph.is_single_device, edge_table)
    budget = memory_budget if chosen.honours_memory_budget else None
    if graph.is_single_device:
        return _single_device_plan(graph, costs, chosen.name, budget)
    problem = Problem(graph, costs, budget, time_limit, unbudgeted, unbudgeted_bound)
    # Under a budget the search sees every argument's gathers per use (the
    # time model prices a change per reading operand either way).
    graph.gathered_per_use = _arguments(graph) if budget is not None else frozenset()
    with phase(f"strategy {chosen.name}"):
        choice = chosen.choose(problem)
    if improve and chosen.improvable:
        with phase("improve"):
            better = improve_choice(graph, costs, choice.options)
        choice = Choice(better.options, {**choice.stats, **better.stats})
    if budget is not None:
        mark_gathers_per_use(graph, choice.options, budget)
    with phase("price plan"):
        return build_plan(graph, choice.options, costs, chosen.name, choice.stats)


def _arguments(graph: SbpGraph) -> frozenset[ValueId]:
    return frozenset(node.result for node in graph.sources())


def mark_gathers_per_use(
    graph: SbpGraph, options: list[int], budget: float | None
) -> None:
    """Set ``graph.gathered_per_use`` for the plan ``options`` under
    ``budget``: none without a budget or when the plan fits it with every
    gather made once (no collective more than before), else the arguments
    the plan gathers (``memory.per_use_copies``).  A function of the plan
    alone, so a caller that picks among several plans of one graph (the
    search that sees combining) marks the one it keeps."""
    graph.gathered_per_use = frozenset()
    if budget is None or plan_memory(graph, options).peak <= budget:
        return
    graph.gathered_per_use = _arguments(graph)
    layouts = layouts_of(graph, options)
    liveness = Liveness.of(graph)
    graph.gathered_per_use = frozenset(
        key[0]
        for _, key in copy_reads(graph, liveness, options, layouts)
        if key is not None and gathered_per_use(graph, layouts, *key)
    )


def _within_capacity(
    plan_under: Callable[[float | None, Sequence[int] | None], Plan],
    chosen: Strategy,
    capacity: float,
) -> Plan:
    """A plan that fits the device's memory ``capacity``.

    The plan made without a budget, when it fits: the cheapest plan that
    fits is then that one, and the search without memory rows is the fast
    one (repeated layers solved once).  Otherwise a strategy that honours a
    budget plans again under ``capacity`` (when nothing fits, its error
    names the smallest budget that does); one that does not is refused,
    since its plan does not fit the device.  The plan under ``capacity``
    is told the one without it (``Problem.unbudgeted``).
    """
    plan = plan_under(None, None)
    if plan.peak_memory <= capacity:
        return plan
    where = (
        f"the device's memory ({format_bytes(capacity)}, the cost model's "
        "mem=) is the memory budget"
    )
    if not chosen.honours_memory_budget:
        raise PropagationError(
            f"the {chosen.name} plan needs {format_bytes(plan.peak_memory)} "
            f"({plan.peak_memory:.0f} bytes) per device, more than the "
            f"device's memory of {format_bytes(capacity)} ({capacity:.0f} bytes, "
            "the cost model's mem=); strategy=optimal plans within it (or "
            "names the smallest memory that fits), or give memory_budget"
        )
    try:
        return plan_under(capacity, plan.options, proven_bound(plan.stats))
    except BudgetError as e:
        raise e.within(where) from e
    except PropagationError as e:
        raise PropagationError(f"{where}: {e}") from e


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
