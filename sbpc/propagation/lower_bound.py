"""A lower bound on every plan's modelled total: how far a plan is from the best.

The optimal strategy proves its plan within a relative gap of a bound it
found (the LP relaxation of its integer program, or the repeated layers'
bound, ``solver/bound.py``): that bound is ``objective * (1 - gap)``, and no
plan of the same graph under the same prices costs less.  Greedy and bfs
have none of their own; ``lower_bound`` runs the optimal strategy's search
for one (about its planning time, so reports ask for it only when read:
``Plan.bound``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import PropagationError, SbpGraph
from sbpc.propagation.optimal import Optimal
from sbpc.propagation.strategy import Problem


def proven_bound(stats: Mapping[str, Any]) -> float | None:
    """The bound the optimal strategy's ``stats`` certify (None: none)."""
    objective, gap = stats.get("objective"), stats.get("gap")
    if not isinstance(objective, int | float) or not isinstance(gap, int | float):
        return None
    if not (math.isfinite(objective) and math.isfinite(gap)):
        return None
    return objective - gap * abs(objective)


def lower_bound(graph: SbpGraph, costs: EdgeCosts) -> float | None:
    """A bound on every plan of ``graph`` priced by ``costs`` (compute plus
    every layout change), from the optimal strategy's search; None when it
    finds no plan."""
    if graph.is_single_device:
        return None
    try:
        choice = Optimal().choose(Problem(graph, costs))
    except PropagationError:
        return None
    return proven_bound(choice.stats)


def combined_lower_bound(
    graph: SbpGraph,
    free: EdgeCosts,
    local: EdgeCosts,
    fixed: float,
    free_bound: float | None = None,
) -> float | None:
    """A bound on every plan's total when independent collectives combine
    (``combined_cost``): combining shares only the fixed cost of collectives
    (launch overhead and rounds' latency), so every plan costs at least its
    total with fixed costs free (``free``: ``free_bound`` when known); one
    that runs any collective pays at least one such cost (``fixed``, the
    least of any collective), one that runs none costs at least the best
    plan without collectives (``local``: every change that needs a
    collective infinite)."""
    if free_bound is None:
        free_bound = lower_bound(graph, free)
    if free_bound is None:
        return None
    without = lower_bound(graph, local)
    return max(
        free_bound, min(math.inf if without is None else without, free_bound + fixed)
    )
