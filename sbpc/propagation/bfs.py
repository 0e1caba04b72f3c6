"""MindSpore's sharding propagation (seed 004): breadth-first from configured ops.

The user configures a few ops (a fixed signature).  From them, a
breadth-first walk follows edges in both directions; each node it reaches
for the first time takes the option with the least redistribution cost on
the edge it was reached by, ties broken by the least total cost against its
already-decided neighbours, then by the fewest layout changes against them
(a free change such as slicing a broadcast value is still a change: an
argument reached from a consumer wanting ``S(0)`` takes ``S(0)``, not ``B``),
then by candidate order.  The walk never
re-decides a node, so it stops at configured ops (and at arguments with a
given layout, which are configured too and do not relay).  Results are not
walked through: their wanted layout is paid at the end, as in greedy.

Nodes no walk reaches (a part of the graph with no configured op) fall back
to greedy, in topological order, counting whatever is decided around them.
"""

from __future__ import annotations

import math
from collections import deque

from sbpc.propagation.decision_memo import decided_edges, reached_key
from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import Edge, NodeId, OpNode, SbpGraph, SinkNode, SourceNode
from sbpc.propagation.greedy import decide_in_order
from sbpc.propagation.strategy import Choice, NodeByNodeStrategy, Problem


class Bfs(NodeByNodeStrategy):
    """Breadth-first from the configured ops, the rest greedily."""

    name = "bfs"
    improvable = True

    def choose(self, problem: Problem) -> Choice:
        graph, costs = problem.graph, problem.costs
        options = problem.undecided()
        memo = self.new_memo()
        seeds: list[NodeId] = []
        for node in graph.nodes:
            if isinstance(node, OpNode) and node.fixed is not None:
                options[node.id] = 0
                seeds.append(node.id)
            elif isinstance(node, SourceNode) and node.fixed:
                options[node.id] = 0  # configured, but not a starting point
        queue = deque(seeds)
        reached = 0
        while queue:
            u = queue.popleft()
            for e in (*graph.in_edges(u), *graph.out_edges(u)):
                edge = graph.edges[e]
                v = edge.dst if edge.src == u else edge.src
                if options[v] >= 0 or isinstance(graph.nodes[v], SinkNode):
                    continue
                decided = decided_edges(graph, options, v)
                if memo is None:
                    options[v] = _reached_option(
                        graph, costs, options, v, edge, decided
                    )
                else:
                    options[v] = memo.get(
                        reached_key(graph, options, v, edge, decided),
                        lambda v=v, edge=edge, decided=decided: _reached_option(
                            graph, costs, options, v, edge, decided
                        ),
                    )
                reached += 1
                queue.append(v)
        decide_in_order(graph, costs, options, graph.topological_order(), memo)
        return Choice(options, {"seeds": len(seeds), "reached": reached})


def _reached_option(
    graph: SbpGraph,
    costs: EdgeCosts,
    options: list[int],
    v: NodeId,
    by: Edge,
    decided: list[Edge],
) -> int:
    """Option of ``v`` by (cost on edge ``by``, cost to the ``decided``
    neighbours, changes against them, index)."""
    node = graph.nodes[v]
    best: tuple[bool, float, float, int, int] | None = None
    compute = node.option_costs
    for i in range(len(node.options)):
        via = 0.0
        total = compute[i]
        changed = 0
        for edge in decided:
            if edge.dst == v:
                src = graph.edge_src_layout(edge, options[edge.src])
                dst = graph.edge_dst_layout(edge, i)
            else:
                src = graph.edge_src_layout(edge, i)
                dst = graph.edge_dst_layout(edge, options[edge.dst])
            price = costs.time(src, dst, graph.tensor(edge))
            total += price
            changed += dst is not None and src != dst
            if edge.id == by.id:
                via = price
        # A tied edge (regions) makes other options infinite: never take one.
        key = (math.isinf(total), via, total, changed, i)
        if best is None or key < best:
            best = key
    assert best is not None
    return best[4]
