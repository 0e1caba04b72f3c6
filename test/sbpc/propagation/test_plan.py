"""``build_plan`` prices a choice exactly as reading the graph edge by edge does."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sbpc.algebra.sbp import NdSbp
from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import OpNode, SbpGraph, SinkNode, SourceNode
from sbpc.propagation.memory import plan_memory
from sbpc.propagation.plan import PropagationError, build_plan
from sbpc.testing.synthetic_graphs import RingCost, random_graph


def _edge_by_edge(
    graph: SbpGraph, chosen: list[int], costs: EdgeCosts
) -> tuple[list[tuple[int, NdSbp, NdSbp]], float, float]:
    """Every layout change, through the graph's own accessors, and the
    totals in edge order."""
    changes, comm, moved = [], 0.0, 0.0
    for edge in graph.edges:
        src = graph.edge_src_layout(edge, chosen[edge.src])
        dst = graph.edge_dst_layout(edge, chosen[edge.dst])
        if dst is None or src == dst:
            continue
        tensor = graph.tensor(edge)
        changes.append((edge.id, src, dst))
        comm += costs.time(src, dst, tensor)
        moved += costs.bytes(src, dst, tensor) or 0.0
    return changes, comm, moved


@pytest.mark.parametrize("seed", range(16))
def test_a_random_choice_is_priced_as_edge_by_edge(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    hierarchy = (2, 4) if seed % 2 else (4,)
    graph = random_graph(rng, hierarchy, n_ops=int(rng.integers(1, 30)))
    ring = RingCost(hierarchy, latency=(1e-6,) * len(hierarchy))
    costs = EdgeCosts(ring.time, ring.bytes)
    chosen = [int(rng.integers(len(n.options))) for n in graph.nodes]
    changes, comm, moved = _edge_by_edge(graph, chosen, costs)
    if math.isinf(comm):
        with pytest.raises(PropagationError, match="infinite cost"):
            build_plan(graph, chosen, costs, "random")
        return
    plan = build_plan(graph, chosen, costs, "random")
    assert [(c.edge, c.src, c.dst) for c in plan.changes] == changes
    assert plan.comm_time == comm
    assert plan.total_bytes == moved
    assert plan.compute_time == sum(
        n.option_costs[chosen[n.id]] for n in graph.nodes if isinstance(n, OpNode)
    )
    for node in graph.nodes:
        option = node.options[chosen[node.id]]
        if isinstance(node, OpNode):
            assert plan.signatures[node.id] is option
        elif isinstance(node, SourceNode):
            assert plan.sources[node.id] is option
        else:
            assert isinstance(node, SinkNode)
            assert plan.sinks[node.id] is option

    assert plan.peak_memory == plan_memory(graph, chosen).peak
