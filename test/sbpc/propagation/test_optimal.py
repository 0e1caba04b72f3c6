"""The optimal strategy against brute force, greedy and BFS, with and without
a memory budget.  The brute force is written from the graph alone, sharing
no code with the strategy; its peaks are the memory model's
(``plan_memory``, itself checked against the model read literally in
``test_memory``), and each budgeted plan is checked with that literal
reading."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from functools import cached_property

import numpy as np
import pytest

from sbpc.algebra.sbp import B, P, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.driver import propagate
from sbpc.propagation.graph import PropagationError, SbpGraph, SinkNode
from sbpc.propagation.liveness import Liveness
from sbpc.propagation.memory import plan_memory
from sbpc.propagation.optimal import Optimal
from sbpc.testing.literal_memory import literal_peak
from sbpc.testing.synthetic_graphs import (
    RingCost,
    compute_costs,
    layouts,
    random_graph,
    transformer_graph,
)

MAX_COMBOS = 60_000


class BruteForce:
    """Every choice of options, evaluated with numpy: cost and peak memory."""

    def __init__(self, g: SbpGraph, cost) -> None:
        self.graph = g
        choosers = [n for n in g.nodes if not isinstance(n, SinkNode)]
        self.ids = [n.id for n in choosers]
        sizes = [len(n.options) for n in choosers]
        self.combos = np.array(
            list(itertools.product(*map(range, sizes))), dtype=np.int64
        )
        col = {v: i for i, v in enumerate(self.ids)}
        self.total = np.zeros(len(self.combos))
        for node in choosers:
            unary = np.array(getattr(node, "option_costs", [0.0] * len(node.options)))
            self.total += unary[self.combos[:, col[node.id]]]
        for e in g.edges:
            src, dst = g.nodes[e.src], g.nodes[e.dst]
            tensor = g.values[e.value].tensor
            outs = [src.out_layout(i, e.src_index) for i in range(len(src.options))]
            if isinstance(dst, SinkNode):
                if dst.wanted is None:
                    continue
                price = np.array(
                    [
                        min(0 if a == w else cost(a, w, tensor) for w in dst.wanted)
                        for a in outs
                    ]
                )
                self.total += price[self.combos[:, col[e.src]]]
                continue
            ins = [dst.in_layout(j, e.dst_index) for j in range(len(dst.options))]
            table = np.array(
                [[0 if a == w else cost(a, w, tensor) for w in ins] for a in outs]
            )
            self.total += table[self.combos[:, col[e.src]], self.combos[:, col[e.dst]]]
        self._col = col

    @cached_property
    def peak(self) -> np.ndarray:
        """Each choice's peak with the arguments' gathers made per use,
        as a budgeted plan may (``memory.per_use_copies``): one memory
        plan per choice, in Python, so made only for the tests that read it
        (the K4 graph's 590,000 choices took 45 s)."""
        g, col = self.graph, self._col
        liveness = Liveness.of(g)
        options = [0] * len(g.nodes)
        peaks = np.zeros(len(self.combos))
        kept, g.gathered_per_use = (
            g.gathered_per_use,
            frozenset(n.result for n in g.sources()),
        )
        for k, combo in enumerate(self.combos):
            for node, i in col.items():
                options[node] = int(combo[i])
            peaks[k] = plan_memory(g, options, liveness).peak
        g.gathered_per_use = kept
        return peaks


def independent_peak(plan) -> float:
    """Peak per-device bytes of a plan, the model read literally."""
    return literal_peak(plan.graph, plan.options)


def small_graphs(seed: int, count: int, **kwargs):
    rng = np.random.default_rng(seed)
    made = 0
    while made < count:
        hier = [(4,), (2, 2)][made % 2]
        g = random_graph(rng, hier, int(rng.integers(2, 9)), **kwargs)
        sizes = [len(n.options) for n in g.nodes if not isinstance(n, SinkNode)]
        if math.prod(sizes) > MAX_COMBOS:
            continue
        made += 1
        yield g, RingCost(hier, latency=(1e-6,) * len(hier)).time


@pytest.mark.parametrize("shrink", [True, False], ids=["shrunk", "whole"])
def test_optimal_is_the_brute_force_minimum_and_beats_heuristics(shrink: bool) -> None:
    for g, cost in small_graphs(11, 30, square=not shrink, min_candidates=2):
        brute = BruteForce(g, cost)
        plan = propagate(g, cost, Optimal(shrink_graph=shrink))
        assert plan.stats["proven"]
        assert plan.total_time == pytest.approx(brute.total.min(), rel=1e-6, abs=1e-12)
        assert plan.stats["objective"] == pytest.approx(
            plan.total_time, rel=1e-9, abs=1e-15
        )
        assert plan.total_time <= propagate(g, cost, "greedy").total_time * (1 + 1e-9)
        assert plan.total_time <= propagate(g, cost, "bfs").total_time * (1 + 1e-9)


def _named_budget(err: PropagationError) -> float:
    """The budget a budget error names as one that fits."""
    found = re.search(r"a feasible budget is .* \((\d+) bytes\)", str(err))
    assert found, str(err)
    return float(found.group(1))


def test_memory_budget_is_met_mostly_at_least_cost() -> None:
    """Every budgeted plan fits the model (read literally).  The rows only
    estimate the model (``memory_rows``), so the search is a heuristic: on
    these random graphs it finds the cheapest plan that fits (brute force)
    for most budgets, a dearer one for some, and for a few none, naming a
    budget that fits instead."""
    outcomes: Counter[str] = Counter()
    for g, cost in small_graphs(5, 40):
        brute = BruteForce(g, cost)
        free = propagate(g, cost, "optimal")
        smallest = brute.peak.min()
        if smallest >= free.peak_memory:
            continue  # the budget would not bind
        budget = (smallest + free.peak_memory) / 2
        try:
            plan = propagate(g, cost, "optimal", memory_budget=budget)
        except PropagationError as err:
            named = _named_budget(err)
            assert named > budget
            plan = propagate(g, cost, "optimal", memory_budget=named)
            assert independent_peak(plan) <= named
            outcomes["none found"] += 1
            continue
        assert independent_peak(plan) <= budget
        assert plan.peak_memory == pytest.approx(independent_peak(plan))
        least = brute.total[brute.peak <= budget].min()
        assert plan.total_time >= least * (1 - 1e-6) - 1e-12
        cheapest = plan.total_time == pytest.approx(least, rel=1e-6, abs=1e-12)
        outcomes["cheapest" if cheapest else "dearer"] += 1
    total = sum(outcomes.values())
    assert total >= 20 and outcomes["cheapest"] >= 0.8 * total, outcomes


def test_budget_below_the_smallest_peak_reports_one_that_fits() -> None:
    for g, cost in itertools.islice(small_graphs(6, 40), 10):
        brute = BruteForce(g, cost)
        smallest = brute.peak.min()
        with pytest.raises(PropagationError) as err:
            propagate(g, cost, "optimal", memory_budget=smallest * 0.999)
        named = _named_budget(err.value)
        assert smallest <= named <= brute.peak.max()
        plan = propagate(g, cost, "optimal", memory_budget=named)
        assert independent_peak(plan) <= named


def k4_graph() -> tuple[SbpGraph, RingCost]:
    """Four ops pairwise connected (not series-parallel): the ILP core stays."""
    hier = (2, 2)
    g = SbpGraph(hier)
    t = TensorType((16, 16))
    one_d = [
        Signature(((S(0),),) * 3, ((S(0),),)),
        Signature(((S(1),),) * 3, ((S(1),),)),
        Signature(((B,),) * 3, ((B,),)),
        Signature(((P,),) * 3, ((P,),)),
    ]
    add3 = [
        Signature(
            tuple((a.inputs[k][0], b.inputs[k][0]) for k in range(3)),
            ((a.outputs[0][0], b.outputs[0][0]),),
        )
        for a in one_d
        for b in one_d
    ]
    unary = [
        Signature((s.inputs[0],), s.outputs) for s in add3 if P not in s.outputs[0]
    ]
    x = g.add_argument("x", t, candidates=layouts(2, 2))
    work = compute_costs(unary, 1e8, hier)  # splitting the work pays
    (p,) = g.add_op("p", [x], [t], unary, compute_costs=work)
    (q,) = g.add_op("q", [p], [t], unary[::-1], compute_costs=work[::-1])
    (r,) = g.add_op(
        "r", [p, q, x], [t], add3, compute_costs=compute_costs(add3, 1e8, hier)
    )
    (s,) = g.add_op("s", [p, q, r], [t], add3[::-1])
    g.add_result("s", s, (S(0), S(1)))
    return g, RingCost(hier, latency=(1e-6, 1e-6))


def test_non_series_parallel_graph_keeps_a_core_and_is_optimal() -> None:
    g, cost = k4_graph()
    plan = propagate(g, cost.time, "optimal")
    assert plan.stats["core_nodes"] >= 4
    brute = BruteForce(g, cost.time)
    assert plan.total_time == pytest.approx(brute.total.min(), rel=1e-9)
    assert plan.total_time < np.median(brute.total) / 2  # not a trivial minimum


def test_shrunk_and_whole_agree_on_larger_graphs() -> None:
    rng = np.random.default_rng(3)
    for hier in [(4,), (2, 2), (2, 4)]:
        g = random_graph(rng, hier, 40, max_candidates=8, min_candidates=2, square=True)
        cost = RingCost(hier, latency=(1e-6,) * len(hier)).time
        whole = propagate(g, cost, Optimal(shrink_graph=False))
        shrunk = propagate(g, cost, "optimal")
        assert shrunk.total_time == pytest.approx(whole.total_time, rel=1e-6)
        assert shrunk.stats["core_nodes"] < whole.stats["core_nodes"]


def test_time_limit_reports_the_gap() -> None:
    g, cost = k4_graph()
    plan = propagate(g, cost.time, "optimal", time_limit=30.0)
    assert plan.stats["proven"] and plan.stats["gap"] <= 1e-7
    assert {"ilp_columns", "ilp_rows", "status", "seconds_highs"} <= set(plan.stats)
    # A core too big for the limit: greedy's plan is the incumbent HiGHS
    # starts from, so a plan comes back, no worse than greedy, with its gap.
    g = transformer_graph(20, (2, 4), dense_skips=2)
    cost = RingCost((2, 4), bandwidth=(25e9, 300e9), latency=(1e-5, 2e-6))
    plan = propagate(g, cost.time, Optimal(shrink_graph=False), time_limit=0.01)
    assert plan.stats["core_nodes"] > 0
    greedy = propagate(g, cost.time, "greedy", improve=False)  # the incumbent
    assert plan.total_time <= greedy.total_time * (1 + 1e-9)
    if not plan.stats["proven"]:  # (a fast machine may still prove it)
        assert plan.stats["status"] == "Time limit reached"
        assert plan.stats["gap"] > 0


def test_single_device_and_fixed_everything() -> None:
    g = SbpGraph((1, 1))
    t = TensorType((4, 4))
    x = g.add_argument("x", t, layout=(S(0), B))
    (y,) = g.add_op("y", [x], [t], [Signature(((S(0), B),), ((S(0), B),))])
    g.add_result("y", y, (B, B))
    assert propagate(g, RingCost((1, 1)).time, "optimal").total_time == 0
    with pytest.raises(PropagationError, match="smallest feasible budget"):
        propagate(g, RingCost((1, 1)).time, "optimal", memory_budget=10)
