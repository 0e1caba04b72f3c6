"""Memoised per-node decisions of the greedy and BFS strategies.

Greedy and BFS decide one node at a time from what is around it: its
options and their compute costs, and the layouts and tensor types on its
decided edges.  A model of repeated layers asks the same question thousands
of times (every block's ``add`` sees the same layouts on the same shapes), and
answering it means pricing about 35 candidates against every operand.  Here
the answer is kept under a key made of everything the decision reads, so a
repeated question costs one dictionary lookup and the plan is the very one
the straightforward walk makes.

A memo lives for one ``choose`` call: keys hold node option tuples by
identity, which the graph keeps alive for that long.

Building and hashing that key (layouts and tensor types are dataclasses,
hashed in Python) is most of a repeated question's cost.  Greedy first asks
by ``greedy_identity``: the same question said with the graph's own objects
by identity (option tuples, cost tuples, tensor types) and integers; equal
identities make equal keys, so its answer is the key's answer, and a miss
goes on to the key.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from sbpc.propagation.graph import Edge, NodeId, OpNode, SbpGraph, SinkNode

# A node's decision, given its neighbours' options: an option index.
Decide = Callable[[], int]


class DecisionMemo:
    """Option indices already decided, by the key of what decided them."""

    def __init__(self) -> None:
        self._answers: dict[Hashable, int] = {}
        self._by_identity: dict[Hashable, int] = {}
        self.hits = 0

    def get_by_identity(
        self, identity: Hashable, key: Callable[[], Hashable], decide: Decide
    ) -> int:
        """``get(key(), decide)``, remembered under ``identity`` too (which
        must determine the key: then ``key`` is built once per identity)."""
        answer = self._by_identity.get(identity)
        if answer is None:
            answer = self._by_identity[identity] = self.get(key(), decide)
        else:
            self.hits += 1
        return answer

    def get(self, key: Hashable, decide: Decide) -> int:
        """The answer stored under ``key``, else ``decide()`` (stored when it
        returns; an error is raised every time, as without the memo)."""
        answer = self._answers.get(key)
        if answer is None:
            answer = self._answers[key] = decide()
        else:
            self.hits += 1
        return answer


def greedy_key(graph: SbpGraph, node: OpNode, options: Sequence[int]) -> Hashable:
    """Everything ``greedy.greedy_option`` reads about ``node``: its options
    and their costs, whether it is constrained, its operands' layouts and
    tensors, and its decided consumers' wanted layouts and tensors."""
    edges = graph.edges
    inputs = tuple(
        (graph.edge_src_layout(edge, options[edge.src]), graph.tensor(edge))
        for edge in (edges[e] for e in node.in_edges)
    )
    outputs = tuple(
        (
            edge.src_index,
            graph.edge_dst_layout(edge, options[edge.dst]),
            graph.tensor(edge),
        )
        for edge in (edges[e] for e in node.out_edges)
        if options[edge.dst] >= 0 and not isinstance(graph.nodes[edge.dst], SinkNode)
    )
    return (
        id(node.options),
        node.option_costs,
        node.constrained,
        inputs,
        outputs,
    )


def greedy_identity(
    graph: SbpGraph, node: OpNode, options: Sequence[int]
) -> tuple[object, ...]:
    """``greedy_key`` said by identity: ``node``'s option and cost tuples,
    per operand edge the producer's option tuple, its choice and result
    index (which name the layout), the value's tensor type, weight and tie;
    the same per decided consumer.  Every object named is the graph's own,
    alive while the memo is."""
    nodes, edges, values = graph.nodes, graph.edges, graph.values
    key: list[object] = [id(node.options), id(node.option_costs), node.constrained]
    for e in node.in_edges:
        edge = edges[e]
        key += (
            id(nodes[edge.src].options),
            options[edge.src],
            edge.src_index,
            id(values[edge.value].tensor),
            edge.weight,
            edge.tied,
        )
    key.append(None)  # operands end here
    for e in node.out_edges:
        edge = edges[e]
        option = options[edge.dst]
        consumer = nodes[edge.dst]
        if option >= 0 and not isinstance(consumer, SinkNode):
            key += (
                edge.src_index,
                id(consumer.options),
                option,
                edge.dst_index,
                id(values[edge.value].tensor),
                edge.weight,
                edge.tied,
            )
    return tuple(key)


def decided_edges(graph: SbpGraph, options: Sequence[int], v: NodeId) -> list[Edge]:
    """``v``'s edges whose other end is decided, results excepted (what BFS
    prices a reached node against)."""
    out = []
    for e in (*graph.in_edges(v), *graph.out_edges(v)):
        edge = graph.edges[e]
        other = edge.src if edge.dst == v else edge.dst
        if options[other] >= 0 and not isinstance(graph.nodes[edge.dst], SinkNode):
            out.append(edge)
    return out


def reached_key(
    graph: SbpGraph,
    options: Sequence[int],
    v: NodeId,
    by: Edge,
    decided: Sequence[Edge],
) -> Hashable:
    """Everything ``bfs._reached_option`` reads: ``v``'s options and their
    costs, and per decided edge (in order) its direction, ``v``'s end of it,
    the neighbour's layout, the tensor and whether it is the edge ``by``."""
    node = graph.nodes[v]
    edges = tuple(
        (
            True,
            edge.dst_index,
            graph.edge_src_layout(edge, options[edge.src]),
            graph.tensor(edge),
            edge.id == by.id,
        )
        if edge.dst == v
        else (
            False,
            edge.src_index,
            graph.edge_dst_layout(edge, options[edge.dst]),
            graph.tensor(edge),
            edge.id == by.id,
        )
        for edge in decided
    )
    return (type(node), id(node.options), node.option_costs, edges)
