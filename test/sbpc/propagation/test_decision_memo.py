"""Greedy and BFS with the decision memo plan exactly as without it."""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.algebra.sbp import B, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.bfs import Bfs
from sbpc.propagation.decision_memo import DecisionMemo, greedy_key
from sbpc.propagation.driver import propagate
from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import OpNode, SbpGraph
from sbpc.propagation.greedy import Greedy, decide_in_order
from sbpc.propagation.plan import Plan
from sbpc.testing.synthetic_graphs import RingCost, random_graph, transformer_graph


def derive(*args, **kwargs):
    """The strategy's own choice (the memo's concern), without the driver's local
    improvement (``improve.py``), which these tests are not about."""
    return propagate(*args, improve=False, **kwargs)


STRATEGY_CLASSES = [Greedy, Bfs]


def plans(graph: SbpGraph, cls: type, hierarchy: tuple[int, ...]) -> tuple[Plan, Plan]:
    """``graph`` planned by ``cls`` with and without the memo."""
    ring = RingCost(hierarchy)
    memoised = derive(graph, ring.time, cls(memoise=True), edge_bytes=ring.bytes)
    plain = derive(graph, ring.time, cls(memoise=False), edge_bytes=ring.bytes)
    return memoised, plain


def assert_same_plan(memoised: Plan, plain: Plan) -> None:
    assert memoised.options == plain.options
    assert memoised.signatures == plain.signatures
    assert memoised.total_time == plain.total_time
    assert memoised.total_bytes == plain.total_bytes
    assert memoised == plain


def shared_candidates(graph: SbpGraph) -> SbpGraph:
    """``graph`` with equal candidate lists made one tuple, as the op-rule
    registry hands them out, so that equal ops share memo entries."""
    interned: dict[tuple, tuple] = {}
    for node in graph.ops():
        node.candidates = interned.setdefault(node.candidates, node.candidates)
    return graph


@pytest.mark.parametrize("cls", STRATEGY_CLASSES, ids=lambda c: c.name)
@pytest.mark.parametrize("hierarchy", [(4,), (2, 4), (2, 2, 2)])
def test_random_graphs_get_the_same_plan(cls: type, hierarchy: tuple[int, ...]) -> None:
    rng = np.random.default_rng(19)
    for _ in range(30):
        graph = random_graph(
            rng,
            hierarchy,
            int(rng.integers(5, 60)),
            max_candidates=64,
            min_candidates=3,
            with_compute=bool(rng.random() < 0.5),
        )
        assert_same_plan(*plans(shared_candidates(graph), cls, hierarchy))


@pytest.mark.parametrize("cls", STRATEGY_CLASSES, ids=lambda c: c.name)
@pytest.mark.parametrize("configure", [0, 2])
def test_transformer_stacks_get_the_same_plan(cls: type, configure: int) -> None:
    hierarchy = (2, 4)
    graph = transformer_graph(6, hierarchy, configure=configure, dense_skips=2)
    assert_same_plan(*plans(graph, cls, hierarchy))


def test_repeated_layers_are_answered_from_the_memo() -> None:
    """The memo is used: every layer after the first asks known questions."""
    hierarchy = (2, 4)
    graph = transformer_graph(4, hierarchy)
    ring = RingCost(hierarchy)
    options = [-1] * len(graph.nodes)
    memo = DecisionMemo()
    decide_in_order(
        graph, EdgeCosts(ring.time), options, graph.topological_order(), memo
    )
    ops = sum(1 for _ in graph.ops())
    assert memo.hits >= ops // 2


def chain(have: tuple) -> tuple[SbpGraph, OpNode, OpNode]:
    """Two relus with the very same candidates, fed ``x`` (given ``have``)
    and ``z`` (given ``S(1)``): their questions differ only by the operand
    layout."""
    g = SbpGraph((4,))
    t = TensorType((16, 16))
    relu = (
        Signature(((S(0),),), ((S(0),),)),
        Signature(((S(1),),), ((S(1),),)),
        Signature(((B,),), ((B,),)),
    )
    x = g.add_argument("x", t, layout=have)
    (y,) = g.add_op("relu0", [x], [t], relu)
    y_node = g.nodes[g.values[y].producer]
    z = g.add_argument("z", t, layout=(S(1),))
    (w,) = g.add_op("relu1", [z], [t], relu)
    w_node = g.nodes[g.values[w].producer]
    g.add_result("r0", y)
    g.add_result("r1", w)
    assert isinstance(y_node, OpNode) and isinstance(w_node, OpNode)
    return g, y_node, w_node


def test_equal_ops_fed_different_layouts_are_asked_different_questions() -> None:
    """Keys tell apart what changes the answer: same op, other operand layout."""
    g, first, second = chain((S(0),))
    options = [0] * len(g.nodes)
    assert greedy_key(g, first, options) != greedy_key(g, second, options)
    ring = RingCost((4,))
    memoised = derive(g, ring.time, Greedy(memoise=True))
    assert memoised.signatures[first.id].inputs == (((S(0),)),)
    assert memoised.signatures[second.id].inputs == (((S(1),)),)


def test_a_failed_decision_is_not_remembered() -> None:
    calls = []

    def fail() -> int:
        calls.append(1)
        raise ValueError("no option")

    memo = DecisionMemo()
    for _ in range(2):
        with pytest.raises(ValueError):
            memo.get("key", fail)
    assert len(calls) == 2
    assert memo.get("key", lambda: 3) == 3
    assert memo.get("key", fail) == 3
    assert memo.hits == 1
