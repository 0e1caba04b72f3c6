"""One entry point for the three strategies, by the name the pass option uses."""

from __future__ import annotations

from typing import Literal

from sbpc.propagation.bfs import bfs
from sbpc.propagation.graph import EdgeCost, SbpGraph
from sbpc.propagation.greedy import greedy
from sbpc.propagation.optimal import optimal
from sbpc.propagation.plan import Plan

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
