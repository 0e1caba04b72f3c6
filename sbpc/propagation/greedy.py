"""OneFlow's greedy signature derivation (seeds 000 and 003).

Ops are decided one by one in topological order, each looking only at the
layouts its producers already chose:

1. candidates are filtered by the user's constraints;
2. they are ranked by OneFlow's *order value*: -10 for every operand whose
   producer's layout already equals the layout the signature wants (0 for
   every candidate when the op carries a user constraint, as OneFlow's
   ``CalcOrderValue4SbpSig`` returns 0 when ``sbp_sig_conf`` is set);
3. then by *copy cost*, the sum of ``edge_cost`` from the producers' layouts
   to the wanted ones;
4. then (sbpc's addition) by how freely the outputs convert: a ``B`` entry
   becomes anything locally, an ``S`` needs a gather to become ``B``, a ``P``
   needs a reduction to become anything; so among equally good candidates
   the one with fewer partial, then fewer split, output entries wins.  This
   matters for ops without operands (constants, iota), where every candidate
   ties: taking a partial constant would force reductions downstream;
5. then by candidate order (a stable sort, as ``std::sort`` over an
   already-ordered list behaves in practice).

Free arguments take ``B`` on every dimension (OneFlow's default for
variables).  A result's wanted layout is not a choice: the change is paid at
the end (boxing before return).

One deliberate departure: a candidate whose copy cost is infinite (a change
the cost model calls impossible) is dropped before ranking, where OneFlow's
order value could still rank it first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sbpc.algebra.sbp import Broadcast, NdSbp, Partial, Split, format_nd_sbp
from sbpc.algebra.signature import Signature
from sbpc.propagation.decision_memo import DecisionMemo, greedy_identity, greedy_key
from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import (
    NodeId,
    OpNode,
    PropagationError,
    SbpGraph,
    SinkNode,
    SourceNode,
)
from sbpc.propagation.strategy import Choice, NodeByNodeStrategy, Problem

ORDER_VALUE_MATCH = -10  # per operand whose layout already matches (seed 003)


class Greedy(NodeByNodeStrategy):
    """Decide every op greedily in topological order."""

    name = "greedy"
    improvable = True

    def choose(self, problem: Problem) -> Choice:
        options = problem.undecided()
        graph = problem.graph
        memo = self.new_memo()
        decide_in_order(graph, problem.costs, options, graph.topological_order(), memo)
        return Choice(options)


def decide_in_order(
    graph: SbpGraph,
    costs: EdgeCosts,
    options: list[int],
    order: Sequence[NodeId],
    memo: DecisionMemo | None = None,
) -> None:
    """Give every undecided op and argument in ``order`` its greedy option.

    Already-decided nodes are kept.  Besides the producers, the copy cost also
    counts decided consumers (other than results): none in plain greedy, the
    ones BFS already decided when it falls back to this.  ``memo``: reuse the
    answers to questions already asked.
    """
    for node_id in order:
        if options[node_id] >= 0:
            continue
        node = graph.nodes[node_id]
        if isinstance(node, SourceNode):
            options[node_id] = node.greedy_option()
        elif isinstance(node, OpNode) and memo is None:
            options[node_id] = greedy_option(graph, costs, node, options)
        elif isinstance(node, OpNode):
            options[node_id] = memo.get_by_identity(
                greedy_identity(graph, node, options),
                lambda node=node: greedy_key(graph, node, options),
                lambda node=node: greedy_option(graph, costs, node, options),
            )


def greedy_option(
    graph: SbpGraph, costs: EdgeCosts, node: OpNode, options: Sequence[int]
) -> int:
    """Index of the best option of ``node`` by (order value, copy cost, index)."""
    inputs: list[tuple[NdSbp, dict[NdSbp, float]]] = []
    for e in node.in_edges:
        edge = graph.edges[e]
        inputs.append((graph.edge_src_layout(edge, options[edge.src]), {}))
    outputs = []
    for e in node.out_edges:
        edge = graph.edges[e]
        if options[edge.dst] >= 0 and not isinstance(graph.nodes[edge.dst], SinkNode):
            outputs.append((edge, graph.edge_dst_layout(edge, options[edge.dst]), {}))

    best_key: tuple[int, float, int, int] | None = None
    compute = node.option_costs
    for i, sig in enumerate(node.options):
        order_value = 0
        cost = compute[i]
        for k, (have, memo) in enumerate(inputs):
            want = sig.inputs[k]
            if have == want:
                order_value += ORDER_VALUE_MATCH
                continue
            price = memo.get(want)
            if price is None:
                edge = graph.edges[node.in_edges[k]]
                price = memo[want] = costs.time(have, want, graph.tensor(edge))
            cost += price
        for edge, want, memo in outputs:
            have = sig.outputs[edge.src_index]
            price = memo.get(have)
            if price is None:
                price = memo[have] = costs.time(have, want, graph.tensor(edge))
            cost += price
        if math.isinf(cost):
            continue
        key = (0 if node.constrained else order_value, cost, _rigidity(sig), i)
        if best_key is None or key < best_key:
            best_key = key
    if best_key is None:
        have = ", ".join(format_nd_sbp(nd) for nd, _ in inputs)
        raise PropagationError(
            f"op '{node.name}': no candidate signature can take its operands "
            f"({have}) at a finite cost"
        )
    return best_key[3]


def _rigidity(sig: Signature) -> int:
    """How much communication the outputs need to become other layouts."""
    weight = {Broadcast: 0, Split: 1, Partial: 2}
    return sum(weight[type(s)] for nd in sig.outputs for s in nd)
