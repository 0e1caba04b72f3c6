"""The driver: strategies by name, the shared path, and a strategy plugged in."""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.algebra.sbp import B, Broadcast, NdSbp, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.driver import (
    STRATEGIES,
    mark_gathers_per_use,
    propagate,
    register,
    strategy_named,
)
from sbpc.propagation.graph import OpNode, SbpGraph, SourceNode
from sbpc.propagation.greedy import Greedy
from sbpc.propagation.memory import plan_memory
from sbpc.propagation.strategy import Choice, Problem, Strategy
from sbpc.testing.synthetic_graphs import RingCost, random_graph


def test_every_strategy_plans_the_same_graph() -> None:
    g = random_graph(np.random.default_rng(0), (2, 2), 6)
    cost = RingCost((2, 2))
    plans = {s: propagate(g, cost.time, s, edge_bytes=cost.bytes) for s in STRATEGIES}
    assert {p.strategy for p in plans.values()} == set(STRATEGIES)
    assert plans["optimal"].total_time <= min(p.total_time for p in plans.values())
    assert all(p.total_bytes is not None for p in plans.values())


def test_the_builtin_strategies_are_registered_by_name() -> None:
    assert list(STRATEGIES)[:3] == ["greedy", "bfs", "optimal"]
    assert all(strategy_named(name).name == name for name in STRATEGIES)


def test_unknown_strategy() -> None:
    g = random_graph(np.random.default_rng(0), (4,), 2)
    with pytest.raises(ValueError, match="unknown strategy 'dp'"):
        propagate(g, RingCost((4,)).time, "dp")


# -- a strategy plugged in through the base ----------------------------------


def _all_b(node: OpNode | SourceNode) -> int:
    """The first option whose layouts are all ``B`` (else the first)."""
    for i in range(len(node.options)):
        if isinstance(node, SourceNode):
            layouts: tuple[NdSbp, ...] = (node.options[i],)
        else:
            sig = node.options[i]
            layouts = (*sig.inputs, *sig.outputs)
        if all(isinstance(s, Broadcast) for nd in layouts for s in nd):
            return i
    return 0


class AllBroadcast(Strategy):
    """Replicate everything: only chooses, never prices."""

    name = "all-broadcast"

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def choose(self, problem: Problem) -> Choice:
        self.problems.append(problem)
        options = problem.undecided()
        for node in problem.graph.nodes:
            if isinstance(node, OpNode | SourceNode):
                options[node.id] = _all_b(node)
        return Choice(options, {"replicated": True})  # results left to the driver


@pytest.fixture
def all_broadcast(registered) -> AllBroadcast:
    return registered(AllBroadcast())


def test_a_registered_strategy_runs_by_name(all_broadcast: AllBroadcast) -> None:
    g = random_graph(np.random.default_rng(3), (2, 2), 5)
    cost = RingCost((2, 2))
    plan = propagate(g, cost.time, "all-broadcast", edge_bytes=cost.bytes)
    assert len(all_broadcast.problems) == 1
    assert plan.strategy == "all-broadcast"
    assert plan.stats == {"replicated": True}
    for node_id, sig in plan.signatures.items():
        assert sig == g.nodes[node_id].options[_all_b(g.nodes[node_id])]
    # The results were left undecided: the driver delivers each in a layout
    # it accepts.
    for node_id, nd in plan.sinks.items():
        assert nd in g.nodes[node_id].options


def test_a_name_is_registered_once(all_broadcast: AllBroadcast) -> None:
    with pytest.raises(ValueError, match="already registered"):
        register(AllBroadcast())


def test_the_driver_prices_every_strategy_the_same_way() -> None:
    """A strategy that returns greedy's choice gets greedy's plan: the totals
    are the driver's, computed from the options alone, with the edge prices
    memoised across the run."""

    class Copycat(Strategy):
        name = "copycat"

        def choose(self, problem: Problem) -> Choice:
            return Choice(Greedy().choose(problem).options)

    g = random_graph(np.random.default_rng(5), (4,), 6)
    ring = RingCost((4,))
    asked: list[tuple[NdSbp, NdSbp, TensorType]] = []

    def counted(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
        asked.append((src, dst, tensor))
        return ring.time(src, dst, tensor)

    mine = propagate(g, counted, Copycat(), edge_bytes=ring.bytes)
    assert len(asked) == len(set(asked))  # each question once
    # the same choice (a copycat is not improvable: compare greedy's own)
    theirs = propagate(g, ring.time, "greedy", edge_bytes=ring.bytes, improve=False)
    assert mine.options == theirs.options
    assert mine.changes == theirs.changes
    assert (mine.comm_time, mine.compute_time, mine.total_bytes) == (
        theirs.comm_time,
        theirs.compute_time,
        theirs.total_bytes,
    )
    assert mine.comm_time == pytest.approx(sum(c.time for c in mine.changes))


def test_single_device_is_settled_without_the_strategy(
    all_broadcast: AllBroadcast,
) -> None:
    g = random_graph(np.random.default_rng(1), (1, 1), 4)
    plan = propagate(g, RingCost((1, 1)).time, "all-broadcast")
    assert all_broadcast.problems == []
    assert plan.strategy == "all-broadcast"
    assert plan.stats == {"single_device": True}
    assert plan.comm_time == 0


def test_memory_budget_reaches_only_strategies_that_honour_one(
    all_broadcast: AllBroadcast,
) -> None:
    g = SbpGraph((4,))
    x = g.add_argument("x", TensorType((64, 64)), candidates=[(B,)])
    g.add_result("out", x, None)
    plan = propagate(g, RingCost((4,)).time, "all-broadcast", memory_budget=10)
    assert plan.peak_memory > 10  # ignored, as greedy and bfs ignore it
    assert all_broadcast.problems[0].memory_budget is None
    with pytest.raises(ValueError, match="no plan fits the memory budget"):
        propagate(g, RingCost((4,)).time, "optimal", memory_budget=10)


def test_arguments_are_gathered_per_use_only_where_the_budget_needs_it() -> None:
    """w stored split, read whole by a product and, three products later,
    by another: its gathers are made per use only under a budget that the
    plan misses with them made once (any other plan of the graph may have
    been marked before)."""
    t = TensorType((8, 8))
    g = SbpGraph((4,))
    x = g.add_argument("x", t, layout=(S(0),))
    w = g.add_argument("w", t, layout=(S(0),))
    whole = [Signature(((S(0),), (B,)), ((S(0),),))]
    own = [Signature(((S(0),), (S(0),)), ((S(0),),))]
    (h,) = g.add_op("fwd", [x, w], [t], whole, kind="stablehlo.dot_general")
    for _ in range(3):
        (h,) = g.add_op("mid", [h, h], [t], own, kind="stablehlo.dot_general")
    (y,) = g.add_op("bwd", [h, w], [t], whole, kind="stablehlo.dot_general")
    g.add_result("y", y)
    options = [0] * len(g.nodes)
    once = plan_memory(g, options).peak
    g.gathered_per_use = frozenset({x, w})  # left by another plan
    mark_gathers_per_use(g, options, None)
    assert g.gathered_per_use == frozenset()
    mark_gathers_per_use(g, options, once)
    assert g.gathered_per_use == frozenset()
    mark_gathers_per_use(g, options, once - 1)
    assert g.gathered_per_use == frozenset({w})  # x is read as stored
