"""One entry point for the three strategies, by the name the pass option uses."""

from __future__ import annotations

from typing import Literal

from sbpc.plan import Plan
from sbpc.propagate_bfs import bfs
from sbpc.propagate_greedy import greedy
from sbpc.propagate_optimal import optimal
from sbpc.sbp_graph import EdgeCost, SbpGraph

Strategy = Literal["greedy", "bfs", "optimal"]
STRATEGIES: tuple[Strategy, ...] = ("greedy", "bfs", "optimal")


def propagate(
    graph: SbpGraph,
    edge_cost: EdgeCost,
    strategy: Strategy = "greedy",
    *,
    edge_bytes: EdgeCost | None = None,
    memory_budget: float | None = None,
    time_limit: float | None = None,
) -> Plan:
    """Plan ``graph`` with ``strategy``; the budget and time limit are optimal's."""
    if strategy == "greedy":
        return greedy(graph, edge_cost, edge_bytes)
    if strategy == "bfs":
        return bfs(graph, edge_cost, edge_bytes)
    if strategy == "optimal":
        return optimal(
            graph,
            edge_cost,
            edge_bytes,
            memory_budget=memory_budget,
            time_limit=time_limit,
        )
    raise ValueError(
        f"unknown strategy '{strategy}', expected one of {', '.join(STRATEGIES)}"
    )
