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
