"""The picture's data: nodes and edges of the plan, collectives, memory over
time, collapsed repeated layers."""

from __future__ import annotations

import pytest

from sbpc.algebra.sbp import B, NdSbp, P, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner as boxing
from sbpc.propagation.driver import propagate
from sbpc.propagation.graph import EdgeCost, OpNode, SbpGraph, SourceNode
from sbpc.propagation.plan import Plan
from sbpc.propagation.report.view import (
    Repeat,
    find_repeats,
    memory_profile,
    plan_view,
)
from sbpc.testing.synthetic_graphs import RingCost, transformer_graph

T = TensorType((8, 8))  # 256 bytes


def boxing_cost(hierarchy: tuple[int, ...]) -> tuple[EdgeCost, EdgeCost]:
    def time(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
        return boxing.plan(src, dst, tensor, hierarchy).time

    def nbytes(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
        return boxing.plan(src, dst, tensor, hierarchy).bytes

    return time, nbytes


def matmul_plan() -> Plan:
    """x S(0) given, a row-parallel matmul whose partial result must become
    S(0): one reduce-scatter, plus the changes into the matmul."""
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(S(0),))
    w = g.add_argument("w", T)
    cands = [Signature(((S(1),), (S(0),)), ((P,),))]
    (y,) = g.add_op("matmul", [x, w], [T], cands)
    (z,) = g.add_op("neg", [y], [T], [Signature(((P,),), ((P,),))])
    g.add_result("z", z, (S(0),))
    time, nbytes = boxing_cost((4,))
    return propagate(g, time, "greedy", edge_bytes=nbytes)


def test_nodes_edges_and_collectives() -> None:
    plan = matmul_plan()
    view = plan_view(plan, "f")
    assert [(n.kind, n.name, n.layout) for n in view.nodes] == [
        ("arg", "x", "[S(0)]"),
        ("arg", "w", "[B]"),
        ("op", "matmul", "[P(sum)]"),
        ("op", "neg", "[P(sum)]"),
        ("result", "z", "[S(0)]"),
    ]
    assert [(e.src, e.dst) for e in view.edges] == [
        ("arg0", "op2"),
        ("arg1", "op2"),
        ("op2", "op3"),
        ("op3", "result4"),
    ]
    changed = {(e.src, e.dst): e.changes for e in view.edges if e.changes}
    assert len(changed) == len(plan.changes) == 3
    (reduce,) = changed[("op3", "result4")]
    assert reduce.collectives == ("reduce_scatter(sum) d0",)
    assert reduce.bytes == pytest.approx(3 / 4 * 256)
    (to_s1,) = changed[("arg0", "op2")]
    assert to_s1.collectives == ("all_to_all d0",)
    (slice_,) = changed[("arg1", "op2")]
    assert slice_.collectives == ("local_slice d0",) and slice_.bytes == 0
    # most expensive first
    times = [c.time for c in view.changes]
    assert times == sorted(times, reverse=True)
    assert view.changes[0].time > 0


def test_memory_profile_peaks_at_the_plan_peak() -> None:
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(S(0),))  # 64 B per device
    (a,) = g.add_op("a", [x], [T], [Signature(((S(0),),), ((B,),))])  # 256 B
    (b,) = g.add_op("b", [a], [T], [Signature(((B,),), ((S(0),),))])  # 64 B
    g.add_result("b", b)
    plan = propagate(g, lambda s, d, t: 0.0, "greedy")
    # x (an argument) and b (an output) for the whole program, a (stored)
    # from step 0 to its reader at step 1
    assert memory_profile(plan) == [64 + 64 + 256, 64 + 64 + 256]
    assert max(memory_profile(plan)) == plan.peak_memory
    view = plan_view(plan, memory_budget=1000)
    assert view.budget == 1000 and view.peak == plan.peak_memory
    assert view.step_names == ["a", "b"]


def test_memory_profile_matches_peak_on_a_transformer() -> None:
    g = transformer_graph(2, (2, 2), seq=64, hidden=32, ffn=64)
    ring = RingCost((2, 2))
    plan = propagate(g, ring.time, "optimal", edge_bytes=ring.bytes)
    profile = memory_profile(plan)
    assert len(profile) == len(list(g.ops()))
    assert max(profile) == pytest.approx(plan.peak_memory)


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        ("abcdabcdabcdxyz", [Repeat(0, 4, 3)]),
        ("xyabcdeabcdez", [Repeat(2, 5, 2)]),
        ("abcdabcxabcd", []),  # not back to back
        ("aaaaaaaaa", [Repeat(0, 4, 2)]),  # shortest layer 4: two of them
        ("abcdefgh", []),
    ],
)
def test_find_repeats(tokens: str, expected: list[Repeat]) -> None:
    assert find_repeats(list(tokens), min_len=4) == expected


def test_find_repeats_prefers_the_run_covering_most() -> None:
    layer = list("abcdaeabcdaf")  # period 12 holds an inner abcda
    assert find_repeats(layer * 3 + ["z"]) == [Repeat(0, 12, 3)]


def transformer_plan(n_layers: int) -> Plan:
    g = transformer_graph(n_layers, (2, 2), seq=64, hidden=32, ffn=64)
    ring = RingCost((2, 2))
    # greedy as OneFlow derives it: every layer alike
    return propagate(g, ring.time, "greedy", edge_bytes=ring.bytes, improve=False)


def test_repeated_layers_collapse() -> None:
    plan = transformer_plan(6)
    graph = plan.graph
    n_ops = len(list(graph.ops()))
    full = plan_view(plan, collapse_above=None)
    assert len(full.nodes) == len(graph.nodes)
    assert len(full.edges) == len(graph.edges)
    view = plan_view(plan, collapse_above=10)
    assert len(view.repeats) == 1
    rep = view.repeats[0]
    assert rep.period == 17 and rep.count >= 5
    (box,) = [n for n in view.nodes if n.kind == "repeat"]
    op_members = [m for m in box.members if isinstance(graph.nodes[m], OpNode)]
    assert len(op_members) == rep.period * (rep.count - 1)
    ops_shown = [n for n in view.nodes if n.kind == "op"]
    assert len(ops_shown) + len(op_members) == n_ops
    # the weights of the collapsed layers (7 a layer: q, k, v, out, up, bias,
    # down) are in the box too
    arg_members = [m for m in box.members if isinstance(graph.nodes[m], SourceNode)]
    assert len(arg_members) == 7 * (rep.count - 1)
    assert f"and {len(arg_members)} arguments only they use" in box.detail
    args_shown = [n for n in view.nodes if n.kind == "arg"]
    assert len(args_shown) + len(arg_members) == len(list(graph.sources()))
    # the first instance is the cluster; the rest are not drawn op by op
    assert len(view.clusters[0]) == rep.period
    # every graph edge is drawn, merged into the box, or inside it
    inside = sum(
        1 for e in graph.edges if e.src in box.members and e.dst in box.members
    )
    assert sum(e.uses for e in view.edges) + inside == len(graph.edges)
    # no edge left pointing at a collapsed op
    keys = {n.key for n in view.nodes}
    assert all(e.src in keys and e.dst in keys for e in view.edges)
    # changes keep the full list (the table), wherever they are drawn
    assert len(view.changes) == len(plan.changes)


def test_small_graphs_do_not_collapse() -> None:
    plan = transformer_plan(2)
    view = plan_view(plan)  # 36 ops, under the default threshold
    assert view.repeats == [] and len(view.nodes) == len(plan.graph.nodes)
