"""A lower bound on every plan's modelled total: how far a plan is from the best.

The optimal strategy proves its plan within a relative gap of a bound it
found (the LP relaxation of its integer program, or the repeated layers'
bound, ``solver/bound.py``): that bound is ``objective * (1 - gap)``, and no
plan of the same graph under the same prices costs less.  Greedy and bfs
have none of their own; ``lower_bound`` solves the LP relaxation of the
optimal strategy's program (after its exact reductions, no branching, at
most ``BOUND_SECONDS``): a fraction of the optimal strategy's time, and
reports ask for it only when read (``Plan.bound``).
"""

from __future__ import annotations

import math

import highspy

from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import SbpGraph
from sbpc.propagation.solver.exact import shrink_all, solved_relaxation
from sbpc.propagation.solver.pairwise import PairwiseProblem

# Seconds the bound's LP may take: past them a report has no bound.
BOUND_SECONDS = 10.0


def lower_bound(graph: SbpGraph, costs: EdgeCosts) -> float | None:
    """A bound on every plan of ``graph`` priced by ``costs`` (compute plus
    every layout change): the LP relaxation of the optimal strategy's
    program; ``inf`` when no plan of finite cost exists, None when unknown
    (one device, or the LP not solved within ``BOUND_SECONDS``)."""
    if graph.is_single_device:
        return None
    problem = PairwiseProblem.from_graph(graph, costs)
    shrink_all(problem, set())
    if not math.isfinite(problem.constant):
        return math.inf
    core = [v for v in range(len(problem)) if problem.alive[v]]
    if not core:
        return problem.constant
    h, scale = solved_relaxation(problem, core, BOUND_SECONDS)
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        return math.inf
    if status != highspy.HighsModelStatus.kOptimal:
        return None
    return problem.constant + h.getInfo().objective_function_value * scale


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
    if free_bound is None or not math.isfinite(free_bound):
        return None
    without = lower_bound(graph, local)
    if without is None:  # unknown: a plan without collectives may cost less
        return free_bound
    return max(free_bound, min(without, free_bound + fixed))
