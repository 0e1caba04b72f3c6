"""The local improvement after greedy and bfs: node moves, then exact blocks."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sbpc.propagation.improve as improve_module
from sbpc.algebra.sbp import B, NdSbp, P, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.driver import propagate
from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import SbpGraph
from sbpc.propagation.improve import (
    improve,
    improve_each,
    replicated_options,
    shrunk_problem,
)
from sbpc.propagation.solver.pairwise import Factor, PairwiseProblem
from sbpc.testing.synthetic_graphs import RingCost, random_graph

T = TensorType((8, 8))


# Per entry changed: gathering a split costs 1 a byte, reducing a partial 2;
# slicing a broadcast or making a partial is free.
ENTRY_PRICE = {S(0): 1.0, S(1): 1.0, P: 2.0}


def cost(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
    changed = [a for a, b in zip(src, dst, strict=True) if a != b and b != P]
    return sum(ENTRY_PRICE.get(a, 0.0) for a in changed) * tensor.nbytes


def a2a_cheap(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
    if (src[0], dst[0]) in {(S(0), S(1)), (S(1), S(0))}:
        return 0.25 * tensor.nbytes
    return cost(src, dst, tensor)


def test_a_node_greedy_decided_by_its_order_value_is_re_chosen() -> None:
    """OneFlow ranks a candidate that matches an operand first, even when
    another moves a quarter of the bytes.  The graph is a tree, so the
    exact reductions (leaves folded into their neighbour) re-choose it."""
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(S(0),))
    y = g.add_argument("y", T, layout=(S(1),))
    cands = [
        Signature(((S(0),), (B,)), ((S(0),),)),  # matches x, gathers y: 256
        Signature(((S(1),), (S(0),)), ((P,),)),  # two all-to-alls: 2 * 64
    ]
    (z,) = g.add_op("op", [x, y], [T], cands)
    g.add_result("z", z)
    raw = propagate(g, a2a_cheap, "greedy", improve=False)
    assert raw.comm_time == 256
    plan = propagate(g, a2a_cheap, "greedy")
    assert plan.signature_of("op") == cands[1]
    assert plan.comm_time == 2 * 64
    assert plan.stats["improved_from"] == 256
    assert plan.stats["improve_core_nodes"] == 0


def clique_graph(third: bool) -> tuple[SbpGraph, EdgeCosts]:
    """Four ops, each consuming every earlier one (the first, the input):
    a clique, so the shrink leaves all four.  Each is split like the input
    (``S(0)``, compute 2) or replicated (``B``, compute ``4`` with
    ``third``, else 0); with ``third`` also split the other way (``S(1)``,
    compute 0).  Any change of layout costs 5 an edge.  Greedy splits all
    like the input (they match it): 8.  Moving one op alone pays three
    changes, so no node move helps; moving all four pays one (5)."""
    g = SbpGraph((2,))
    values = [g.add_argument("x", T, layout=(S(0),))]
    layouts = [((S(0),), 2.0), ((B,), 4.0 if third else 0.0)]
    if third:
        layouts.append(((S(1),), 0.0))
    for k in range(4):
        n = 1 if k == 0 else k
        cands = [Signature((nd,) * n, (nd,)) for nd, _ in layouts]
        (v,) = g.add_op(
            f"op{k}",
            values[-n:] if k else values[:1],
            [T],
            cands,
            compute_costs=[c for _, c in layouts],
        )
        values.append(v)
    g.add_result("out", values[-1])

    def price(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
        return 5.0

    return g, EdgeCosts(price)


def test_a_block_moves_what_no_single_node_can() -> None:
    g, costs = clique_graph(third=True)
    greedy = propagate(g, costs._cost, "greedy", improve=False)
    assert greedy.total_time == 8.0
    found = improve(g, costs, greedy.options, block_nodes=4)
    assert found.stats["improve_core_nodes"] == 4
    assert found.stats["improve_block_moves"] == 1
    assert _total(g, costs, found.options) == 5.0
    assert all(
        g.nodes[v].options[found.options[v]].outputs == ((S(1),),) for v in (1, 2, 3, 4)
    )
    assert propagate(g, costs._cost, "greedy").total_time == 5.0
    # blocks of one node are node moves: stuck at greedy's 8
    stuck = improve(g, costs, greedy.options, block_nodes=1)
    assert stuck.stats == {}  # nothing saved, nothing reported
    assert _total(g, costs, stuck.options) == 8.0


def test_work_past_the_budgets_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The work is bounded by size, not by a clock: tables past the average
    budget skip the pass, a block's past its own skip its exact solve."""
    g, costs = clique_graph(third=True)
    greedy = propagate(g, costs._cost, "greedy", improve=False)
    monkeypatch.setattr(improve_module, "BLOCK_ENTRIES", 0)
    found = improve(g, costs, greedy.options, block_nodes=4)
    assert _total(g, costs, found.options) == 8.0  # the block that saves is skipped
    monkeypatch.setattr(improve_module, "ENTRIES_PER_EDGE", 1)
    found = improve(g, costs, greedy.options, block_nodes=4)
    assert found.options == greedy.options
    assert found.stats == {"improve_skipped_entries": improve_module.table_entries(g)}


def test_the_replicated_start_finds_the_other_regime() -> None:
    """Replicating every op costs 5 (one gather of the input) against
    greedy's 8, and no node move leads there from greedy's plan: the
    replicated start is there already."""
    g, costs = clique_graph(third=False)
    options = propagate(g, costs._cost, "greedy", improve=False).options
    start = replicated_options(g, options)
    assert all(g.nodes[v].options[start[v]].outputs == ((B,),) for v in (1, 2, 3, 4))
    found = improve(g, costs, options, block_nodes=1)
    assert found.stats["improve_start"] == "replicated"
    assert _total(g, costs, found.options) == 5.0


def _total(g: SbpGraph, costs: EdgeCosts, options: list[int]) -> float:
    from sbpc.propagation.plan import build_plan

    return build_plan(g, options, costs, "x").total_time


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("strategy", ["greedy", "bfs"])
def test_improving_never_costs_more_nor_beats_the_optimum(
    seed: int, strategy: str
) -> None:
    rng = np.random.default_rng(seed)
    hierarchy = (2, 2) if seed % 2 else (4,)
    g = random_graph(rng, hierarchy, n_ops=int(rng.integers(3, 25)), square=True)
    ring = RingCost(hierarchy, latency=(1e-6,) * len(hierarchy))
    raw = propagate(g, ring.time, strategy, improve=False)
    better = propagate(g, ring.time, strategy)
    best = propagate(g, ring.time, "optimal")
    assert better.total_time <= raw.total_time * (1 + 1e-9)
    assert better.total_time >= best.total_time * (1 - 1e-9)
    if better.total_time < raw.total_time * (1 - 1e-9):
        assert better.stats["improved_from"] == pytest.approx(raw.total_time)
    else:
        assert "improved_from" not in better.stats


def test_an_infinite_choice_is_left_alone() -> None:
    """A choice no plan can be built from (an impossible change) comes back
    as it is: there is no total to lower."""
    g, costs = clique_graph(third=False)
    greedy = propagate(g, costs._cost, "greedy", improve=False).options
    options = replicated_options(g, greedy)  # gathers the split input
    found = improve(g, EdgeCosts(lambda s, d, t: math.inf), options)
    assert found.options[:5] == options[:5]
    assert math.isinf(found.stats["improved_from"])
    assert "improve_node_moves" not in found.stats


def test_each_start_is_improved_apart() -> None:
    """``improve_each``: the strategy's choice and the replicated plan, each
    improved on its own, whichever is cheaper per edge."""
    g, costs = clique_graph(third=False)
    options = derive_greedy(g, costs)
    found = improve_each(g, costs, options, block_nodes=1)
    assert [f.stats.get("improve_start") for f in found] == [None, "replicated"]
    assert _total(g, costs, found[0].options) == 8.0  # stuck: nothing saved
    assert _total(g, costs, found[1].options) == 5.0
    replicated = replicated_options(g, options)
    assert len(improve_each(g, costs, replicated)) == 1  # one start only


@pytest.mark.parametrize("seed", range(4))
def test_a_problem_shrunk_before_gives_what_shrinking_it_then_gives(
    seed: int,
) -> None:
    """The combining search builds the latency-free round's problem while
    the strategy's LPs run (``shrunk_problem``, ``idle_work``): moving on it
    gives the options and stats of building it in the round, and it is
    not asked for twice."""
    g = random_graph(np.random.default_rng(seed), (2, 2), 12)
    costs = EdgeCosts(RingCost((2, 2)).time)
    options = propagate(g, costs._cost, "greedy", improve=False).options
    fresh = improve_each(g, costs, options)
    made = shrunk_problem(g, costs)
    asked: list[int] = []
    ready = improve_each(g, costs, options, shrunk=lambda: asked.append(1) or made)
    assert asked == [1]
    assert [f.options for f in ready] == [f.options for f in fresh]
    strip = ("seconds_improve",)
    assert [{k: v for k, v in f.stats.items() if k not in strip} for f in ready] == [
        {k: v for k, v in f.stats.items() if k not in strip} for f in fresh
    ]


def test_a_problem_shrunk_before_the_graph_grew_is_built_again() -> None:
    g, costs = clique_graph(third=False)
    stale = shrunk_problem(g, costs)
    assert stale is not None and stale.fits(g, sweeps=1)
    extra = g.add_argument("late", T, layout=(S(0),))
    g.add_result("late", extra)
    assert not stale.fits(g, sweeps=1)
    options = derive_greedy(g, costs)
    found = improve_each(g, costs, options, shrunk=lambda: stale)
    assert [f.options for f in found] == [
        f.options for f in improve_each(g, costs, options)
    ]


def test_a_problem_shrunk_without_pruning_is_not_used_for_block_sweeps() -> None:
    """The node-move rounds' shrink keeps dominated labels; a round with
    block sweeps builds its own (pruned) problem rather than take one."""
    g = random_graph(np.random.default_rng(2), (2, 2), 12)
    costs = EdgeCosts(RingCost((2, 2)).time)
    unpruned = shrunk_problem(g, costs, sweeps=0)
    assert unpruned is not None and unpruned.fits(g, sweeps=0)
    assert not unpruned.fits(g, sweeps=1)
    options = propagate(g, costs._cost, "greedy", improve=False).options
    found = improve_each(g, costs, options, sweeps=1, shrunk=lambda: unpruned)
    fresh = improve_each(g, costs, options, sweeps=1)
    assert [f.options for f in found] == [f.options for f in fresh]
    assert [f.stats.get("improve_core_nodes") for f in found] == [
        f.stats.get("improve_core_nodes") for f in fresh
    ]


def test_the_whole_problem_is_kept_as_built() -> None:
    """``ShrunkProblem.whole`` prices whole plans after the shrink changed
    the problem it was taken from."""
    g = random_graph(np.random.default_rng(5), (2, 2), 10)
    costs = EdgeCosts(RingCost((2, 2)).time)
    made = shrunk_problem(g, costs)
    assert made is not None
    rebuilt = PairwiseProblem.from_graph(g, costs)
    assert sum(made.shrunk.alive) < len(rebuilt)  # the shrink did something
    rng = np.random.default_rng(0)
    for _ in range(20):
        labels = [int(rng.integers(size)) for size in rebuilt.sizes]
        assert made.whole.energy(labels) == rebuilt.energy(labels)


def derive_greedy(g: SbpGraph, costs: EdgeCosts) -> list[int]:
    return propagate(g, costs._cost, "greedy", improve=False).options


def _layered(layers: int, width: int = 6, labels: int = 3) -> PairwiseProblem:
    """Equal layers in program order: a ring of ``width`` nodes each, every
    layer's last node joined to the next layer's first."""
    rng = np.random.default_rng(3)
    unary = [rng.uniform(0.0, 2.0, size=labels) for _ in range(width)]
    tables = [rng.uniform(0.5, 3.0, size=(labels, labels)) for _ in range(width + 1)]
    for t in tables:
        np.fill_diagonal(t, 0.0)
    problem = PairwiseProblem([unary[v % width] for v in range(layers * width)])
    groups = np.arange(labels)
    for k in range(layers):
        base = k * width
        for i in range(width):
            a, b = base + i, base + (i + 1) % width
            problem.add_factor(Factor(min(a, b), max(a, b), groups, groups, tables[i]))
        if k + 1 < layers:
            a, b = base + width - 1, base + width
            problem.add_factor(Factor(a, b, groups, groups, tables[width]))
    return problem


def test_equal_blocks_are_solved_once(monkeypatch) -> None:
    """The blocks of equal layers with equal labels around them are one
    problem: solved once, and the sweep moves exactly as when each block
    is solved anew."""
    problem = _layered(8)
    core = list(range(len(problem)))
    worst = [int(np.argmax(u)) for u in problem.unary]  # every node's dearest
    memoised = list(worst)
    stats = improve_module._block_sweeps(problem, memoised, core, 6, 2)
    assert stats["improve_block_moves"] > 0  # the blocks found cheaper labels
    assert stats["improve_distinct_blocks"] < stats["improve_blocks"]

    solve = improve_module._solved_block
    monkeypatch.setattr(
        improve_module, "_solved_block", lambda u, f, memo: solve(u, f, {})
    )
    fresh = list(worst)
    again = improve_module._block_sweeps(problem, fresh, core, 6, 2)
    assert fresh == memoised
    for key in ("improve_blocks", "improve_block_moves", "node_moves"):
        assert again[key] == stats[key]


def test_a_block_seen_from_its_other_end_or_summed_in_another_order_is_solved_once() -> (
    None
):
    """Another layer's block is the same problem though its factors are
    stored from their other end and the shrink summed its costs in another
    order (last-bit differences): one solve, and a real difference another."""
    rng = np.random.default_rng(5)
    unary = [rng.uniform(0.0, 1e-3, size=4) for _ in range(3)]
    table = rng.uniform(0.0, 1e-3, size=(4, 4))
    groups = np.arange(4)
    memo: improve_module.BlockMemo = {}
    first = improve_module._solved_block(
        unary, [Factor(0, 1, groups, groups, table)], memo
    )
    noisy = [u * (1 + 1e-15) for u in unary]
    again = improve_module._solved_block(
        noisy, [Factor(1, 0, groups, groups, table.T)], memo
    )
    assert len(memo) == 1 and again == first
    other = [unary[0] + 1e-4, *unary[1:]]
    improve_module._solved_block(other, [Factor(0, 1, groups, groups, table)], memo)
    assert len(memo) == 2


def test_layers_whose_costs_differ_in_the_last_bits_share_their_blocks(
    monkeypatch,
) -> None:
    """Layers equal but for rounding (as a shrink leaves them) are solved
    once per block, as equal layers are, and the sweep moves as when each
    block is solved anew."""

    def sweep(noise: float) -> tuple[dict, list[int]]:
        problem = _layered(8)
        for v in range(len(problem)):
            if (v // 6) % 2:  # every other layer
                problem.unary[v] = problem.unary[v] * (1 + noise)
        labels = [int(np.argmax(u)) for u in problem.unary]
        core = list(range(len(problem)))
        return improve_module._block_sweeps(problem, labels, core, 6, 2), labels

    equal, _ = sweep(0.0)
    noisy, memoised = sweep(1e-15)
    assert noisy["improve_block_moves"] > 0
    assert noisy["improve_distinct_blocks"] == equal["improve_distinct_blocks"]
    solve = improve_module._solved_block
    monkeypatch.setattr(
        improve_module, "_solved_block", lambda u, f, memo: solve(u, f, {})
    )
    assert sweep(1e-15)[1] == memoised


def test_ops_sharing_an_option_list_get_its_replicated_option() -> None:
    """The replicated start searches each option list once for ops that
    share it; an op whose constraint leaves another list (its first all-B
    option at another index, or none) still gets its own."""
    cands = (
        Signature(((S(0),),), ((S(0),),)),
        Signature(((B,),), ((B,),)),
        Signature(((S(1),),), ((B,),)),
    )
    g = SbpGraph((4,))
    v = g.add_argument("x", T, layout=(S(0),))
    (a,) = g.add_op("a", [v], [T], cands)
    (b,) = g.add_op("b", [a], [T], cands)
    (c,) = g.add_op("c", [b], [T], cands, result_layouts={0: (B,)})
    (d,) = g.add_op("d", [c], [T], cands, operand_layouts={0: (S(1),)})
    g.add_result("y", d)
    assert g.nodes[1].options is g.nodes[2].options
    start = replicated_options(g, [0, 0, 0, 0, 0, -1])
    assert start[1:5] == [1, 1, 0, 0]  # c's list: cands[1:]; d has none
    assert g.nodes[3].options[start[3]] == cands[1]
