"""The plain graph: builder checks, options under constraints, edges."""

from __future__ import annotations

import pytest

from sbpc.algebra.sbp import B, P, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.graph import GraphError, OpNode, SbpGraph, SinkNode, SourceNode

T = TensorType((4, 4))
SIGS = [
    Signature(((S(0), B), (B, B)), ((S(0), B),)),
    Signature(((B, S(1)), (B, B)), ((B, S(1)),)),
    Signature(((B, B), (B, B)), ((B, B),)),
]


def test_builder_records_values_and_use_edges() -> None:
    g = SbpGraph((2, 2))
    x = g.add_argument("x", T)
    w = g.add_argument("w", T, layout=(B, B))
    (y,) = g.add_op("op", [x, w], [T], SIGS)
    g.add_result("y", y, (S(0), B))
    g.add_result("y2", y)
    assert [type(n) for n in g.nodes] == [
        SourceNode,
        SourceNode,
        OpNode,
        SinkNode,
        SinkNode,
    ]
    assert [(e.src, e.src_index, e.dst, e.dst_index) for e in g.edges] == [
        (0, 0, 2, 0),
        (1, 0, 2, 1),
        (2, 0, 3, 0),
        (2, 0, 4, 0),
    ]
    assert g.values[y].uses == [2, 3]
    assert g.nodes[0].options == ((B, B),)  # free, no candidates: B everywhere
    assert g.nodes[3].options == ((S(0), B),)
    assert g.nodes[4].options == (None,)
    assert g.topological_order() == [0, 1, 2, 3, 4]


def test_constraints_filter_options_and_fixed_replaces_them() -> None:
    g = SbpGraph((2, 2))
    x = g.add_argument("x", T)
    w = g.add_argument("w", T)
    g.add_op("a", [x, w], [T], SIGS, result_layouts={0: (B, S(1))})
    g.add_op(
        "b", [x, w], [T], SIGS, operand_layouts={1: (B, B)}, compute_costs=[3, 2, 1]
    )
    fixed = Signature(((S(0), S(1)), (B, B)), ((S(0), S(1)),))
    g.add_op("c", [x, w], [T], SIGS, fixed=fixed)
    a, b, c = (n for n in g.ops())
    assert a.options == (SIGS[1],) and a.constrained
    assert b.options == tuple(SIGS) and b.option_costs == (3, 2, 1)
    assert c.options == (fixed,) and c.option_costs == (0.0,)


def test_builder_rejects_bad_graphs() -> None:
    g = SbpGraph((2, 2))
    x = g.add_argument("x", T)
    with pytest.raises(GraphError, match="does not have 1 operand and 1 result"):
        g.add_op("op", [x], [T], SIGS)
    with pytest.raises(GraphError, match="has 1 entries"):
        g.add_argument("y", T, layout=(B,))
    with pytest.raises(GraphError, match="no candidate signature meets"):
        g.add_op("op", [x, x], [T], SIGS, result_layouts={0: (P, P)})
    with pytest.raises(GraphError, match="unknown value"):
        g.add_result("r", 99)
    with pytest.raises(GraphError, match="bad hierarchy"):
        SbpGraph(())


def test_single_device() -> None:
    assert SbpGraph((1, 1)).is_single_device
    assert not SbpGraph((1, 2)).is_single_device


def test_rejected_additions_leave_the_graph_unchanged() -> None:
    g = SbpGraph((2, 2))
    x = g.add_argument("x", T)
    for bad in (
        lambda: g.add_op("op", [x, 7], [T], SIGS),
        lambda: g.add_op("op", [x, x], [T], SIGS, result_layouts={0: (P, P)}),
        lambda: g.add_result("r", 7),
    ):
        with pytest.raises(GraphError):
            bad()
    assert (len(g.nodes), len(g.values), len(g.edges)) == (1, 1, 0)


# An update of ``w`` by a split ``x``: split like ``x``, or all replicated.
UPDATE = [
    Signature(((S(0), B), (S(0), B)), ((S(0), B),)),
    Signature(((B, B), (B, B)), ((B, B),)),
]


def tied_graph(w_layout=None, wanted=None, tied=True) -> tuple[SbpGraph, int]:
    """``w`` comes in and its update goes out, tied to it (the next call's
    argument) unless not ``tied``; the update is cheapest split like ``x``."""
    g = SbpGraph((2, 2))
    w = g.add_argument("w", T, layout=w_layout, candidates=[(B, B), (S(0), B)])
    x = g.add_argument("x", T, layout=(S(0), B))
    (y,) = g.add_op("update", [w, x], [T], UPDATE)
    if not tied:
        return g, g.add_result("w'", y, wanted or [(B, B), (S(0), B)])
    return g, g.add_result("w'", y, wanted, tied_to=w)


def test_a_tied_result_takes_only_its_arguments_layouts() -> None:
    g, sink = tied_graph()
    node = g.nodes[sink]
    assert isinstance(node, SinkNode)
    assert node.tied_to == 0 and node.options == ((B, B), (S(0), B))
    # its operand, and the argument over a tied edge (no change possible)
    first, tie = (g.edges[e] for e in node.in_edges)
    assert (first.src, first.dst_index, first.tied) == (2, 0, False)
    assert (tie.src, tie.dst_index, tie.tied) == (0, 1, True)
    given, sink = tied_graph(w_layout=(S(0), B))
    assert given.nodes[sink].options == ((S(0), B),)
    wanted, sink = tied_graph(wanted=[(S(0), B), (B, S(1))])
    assert wanted.nodes[sink].options == ((S(0), B),)


@pytest.mark.parametrize("strategy", ["greedy", "bfs", "optimal"])
def test_every_strategy_returns_a_tied_result_as_its_argument(strategy) -> None:
    from sbpc.propagation.driver import propagate

    def price(src, dst, tensor):  # gathering costs; keeping the split is free
        return 1.0 if dst[0] == B and src[0] != B else 0.0

    for layout in (None, (B, B)):
        g, sink = tied_graph(w_layout=layout)
        plan = propagate(g, price, strategy)
        assert plan.sinks[sink] == plan.sources[0]
        assert plan.total_time == (0.0 if layout is None else 1.0)
    g, untied = tied_graph(w_layout=(B, B), tied=False)
    assert propagate(g, price, strategy).sinks[untied] == (S(0), B)


def test_a_tie_needs_an_argument_of_the_same_type_and_a_common_layout() -> None:
    g = SbpGraph((2, 2))
    w = g.add_argument("w", T, layout=(B, B))
    (y,) = g.add_op("op", [w], [TensorType((4, 8))], [Signature(((B, B),), ((B, B),))])
    with pytest.raises(GraphError, match="tied to argument 'w' of another type"):
        g.add_result("r", y, tied_to=w)
    (z,) = g.add_op("id", [w], [T], [Signature(((B, B),), ((B, B),))])
    with pytest.raises(GraphError, match="tied to a value of no argument"):
        g.add_result("r", z, tied_to=z)
    with pytest.raises(GraphError, match="no layout it accepts is one the argument"):
        g.add_result("r", z, (S(0), B), tied_to=w)
