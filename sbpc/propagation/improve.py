"""Local improvement of a plan: re-choose a node, then a block, while the total drops.

Greedy and BFS decide every node once, each looking only at the neighbours
decided before it, and never revisit a choice.  So a training step's
optimiser chain stays split because its first op took the split its operand
offered, and the gathers that returns the parameters cost far more than one
all-reduce of the gradient would have (OneFlow's greedy plans were 10-46x
the optimal one's modelled time on the examples).  This pass starts from
their choice and moves downhill on the same total the plan is priced by
(compute plus every layout change, the pairwise problem of
``solver/pairwise.py``):

1. *nodes*: each node in turn takes the option that is cheapest given its
   neighbours' (iterated conditional modes), revisiting the neighbours of
   every node that moved, until none moves;
2. *blocks*: a connected block of up to ``block_nodes`` nodes (grown
   breadth-first from a seed, so a layer, or an optimiser chain with the
   gradient that feeds it) is solved exactly with every node around it
   fixed (``exact.solve_exact``: the shrink, then the LP); a block's new
   options are kept only when they cost less.  Sweeps partition the graph
   into blocks from seeds in program order, then in reverse order (so the
   blocks overlap the last sweep's seams), then step 1 again, until a sweep
   saves nothing or ``sweeps`` have run.

The work is bounded by the problem's size, not by a clock, so a plan does
not depend on the machine's load: a graph whose edges' option tables hold
more than ``ENTRIES_PER_EDGE`` entries on average (a 3-d mesh's thousands
of layouts per tensor: pricing every table would cost minutes) is not
improved, and a block whose tables hold more than ``BLOCK_ENTRIES`` is not
solved.  Every accepted move lowers the total, so the plan is never worse
than the strategy's, and it stays a plan of the same graph (tied edges are infinite
unless both ends move together, which a block can do).  The driver runs it
after any strategy that asks for it (``Strategy.improvable``).
"""

from __future__ import annotations

import math
import time
import weakref
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sbpc.algebra.sbp import Broadcast
from sbpc.algebra.signature import Signature
from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import OpNode, SbpGraph, SourceNode
from sbpc.propagation.plan import complete_sinks
from sbpc.propagation.solver.content_memo import content
from sbpc.propagation.solver.exact import shrink_all_steps, solve_exact
from sbpc.propagation.solver.pairwise import Factor, PairwiseProblem, saves
from sbpc.propagation.solver.shrink import Record, drain, expand, relabel_forward
from sbpc.propagation.strategy import UNDECIDED
from sbpc.timing import phase

BLOCK_NODES = 48  # nodes per block: an optimiser chain, a layer's forward ops
SWEEPS = 4  # block sweeps at most (each alternates the seeds' order)
SWEEP_SAVING = 1e-3  # another block sweep only after one saving this share
# Entries of the option tables (producer's options times consumer's, per
# edge) on average past which a graph is not improved: the examples on a
# 2x4 mesh hold 700-1,200, GPT's training step on a 2x2x2 mesh 52,000
# (its 2,400 tables took 45 s to price and the shrink 30 s more).
ENTRIES_PER_EDGE = 4096
# Entries of a block's tables past which it is not solved exactly.
BLOCK_ENTRIES = 200_000
# Seconds HiGHS may take on one block, a backstop only: a block within
# ``BLOCK_ENTRIES`` whose LP is fractional goes to branch and bound, which
# on the examples ends well within this.
BLOCK_SECONDS = 0.5


@dataclass
class Improvement:
    """The improved options and what the pass did (the plan's stats; none
    when it saved nothing, so an unimproved plan reports as its strategy's)."""

    options: list[int]
    stats: dict[str, Any] = field(default_factory=dict)


def improve(
    graph: SbpGraph,
    costs: EdgeCosts,
    options: Sequence[int],
    block_nodes: int = BLOCK_NODES,
    sweeps: int = SWEEPS,
) -> Improvement:
    """``options`` (a strategy's choice) moved downhill: see the module doc.

    Results left undecided (-1) are first given their cheapest layout.  A
    choice of infinite total (which no plan is built from) is returned as it
    is.
    """
    return _improve(graph, costs, options, block_nodes, sweeps, False)[0]


def improve_each(
    graph: SbpGraph,
    costs: EdgeCosts,
    options: Sequence[int],
    block_nodes: int = BLOCK_NODES,
    sweeps: int = SWEEPS,
    shrunk: Callable[[], ShrunkProblem | None] | None = None,
) -> list[Improvement]:
    """``improve`` from each start apart (the choice, then the replicated
    plan when it differs), each with its block sweeps: the combining search
    prices both, since the cheaper of them per edge need not be the cheaper
    once collectives are combined.  ``shrunk``: ``shrunk_problem(graph,
    costs, sweeps)`` made before (``idle_work``: while the strategy's LPs
    ran; one made for a smaller graph or pruned otherwise is built again)."""
    return _improve(graph, costs, options, block_nodes, sweeps, True, shrunk)


@dataclass(frozen=True)
class ShrunkProblem:
    """A graph's pairwise problem, as built (to price whole plans on) and
    shrunk (to move on), with the shrink's records (to expand moves)."""

    whole: PairwiseProblem
    shrunk: PairwiseProblem
    records: list[Record]
    size: tuple[int, int]  # the graph's nodes and edges when it was built
    pruned: bool  # dominated labels dropped (for block sweeps)

    def fits(self, graph: SbpGraph, sweeps: int) -> bool:
        """Whether it is what ``shrunk_problem(graph, ..., sweeps)`` makes
        now: ``graph``'s at its size (a graph only grows), pruned as block
        sweeps need (the prices are the caller's to match)."""
        return self.size == (len(graph.nodes), len(graph.edges)) and (
            self.pruned == (sweeps > 0)
        )


def shrunk_problem(
    graph: SbpGraph, costs: EdgeCosts, sweeps: int = SWEEPS
) -> ShrunkProblem | None:
    """What ``improve`` moves on: ``graph``'s pairwise problem under
    ``costs`` and its shrink (dominated labels pruned only for block
    sweeps); None for a graph too large to improve (``ENTRIES_PER_EDGE``).
    A pure function of the graph and its prices, not of the plan improved:
    the combining search builds the latency-free round's while the
    strategy's LPs run, and the later rounds' while that round's run
    (``shrunk_problem_steps``)."""
    return drain(shrunk_problem_steps(graph, costs, sweeps))


def shrunk_problem_steps(
    graph: SbpGraph, costs: EdgeCosts, sweeps: int = SWEEPS
) -> Generator[None, None, ShrunkProblem | None]:
    """``shrunk_problem`` in steps (work done while LPs run stops when they
    end: ``idle_work.Ahead.in_steps``): the problem, then the shrink's
    steps, each timed apart (a phase open across a pause would time what
    runs meanwhile)."""
    if table_entries(graph) > ENTRIES_PER_EDGE * max(len(graph.edges), 1):
        return None
    with phase("improve: pairwise problem"):
        problem = PairwiseProblem.from_graph(graph, costs)
        whole = problem.snapshot()
    yield
    # Node moves alone (no block sweeps: the combining search's later
    # rounds) need no dominated labels pruned: a move never takes one over
    # the label dominating it but on a tie, and the pruning cost a third to
    # half of such a round (on all 18 example rows the same plans either way).
    steps = shrink_all_steps(problem, set(), prune=sweeps > 0)
    while True:
        with phase("improve: shrink"):
            try:
                next(steps)
                paused = True
            except StopIteration as finished:
                records, paused = finished.value, False
        if not paused:
            break
        yield
    size = (len(graph.nodes), len(graph.edges))
    return ShrunkProblem(whole, problem, records, size, sweeps > 0)


def _improve(
    graph: SbpGraph,
    costs: EdgeCosts,
    options: Sequence[int],
    block_nodes: int,
    sweeps: int,
    each: bool,
    shrunk: Callable[[], ShrunkProblem | None] | None = None,
) -> list[Improvement]:
    """``improve`` (the better start only) or ``improve_each``."""
    started = time.perf_counter()
    first = complete_sinks(graph, options, costs)
    entries = table_entries(graph)
    if entries > ENTRIES_PER_EDGE * max(len(graph.edges), 1):
        return [Improvement(first, {"improve_skipped_entries": entries})]
    made = shrunk() if shrunk is not None else None
    if made is None or not made.fits(graph, sweeps):
        made = shrunk_problem(graph, costs, sweeps)
    assert made is not None  # the graph's entries were within the limit
    problem, records = made.shrunk, made.records
    before = made.whole.energy(first)
    if not math.isfinite(before):
        return [Improvement(first, {"improved_from": before})]
    starts = [("strategy", first)]
    replicated = complete_sinks(graph, replicated_options(graph, options), costs)
    if replicated != first and math.isfinite(made.whole.energy(replicated)):
        starts.append(("replicated", replicated))
    core = [v for v in range(len(problem)) if problem.alive[v]]
    moved = []
    for _, labels in starts:  # node moves from each start
        relabel_forward(records, labels)
        moved.append(problem.descend(labels, core))
    if not each:  # blocks from the better start only
        k = min(range(len(starts)), key=lambda i: problem.energy(starts[i][1]))
        starts, moved = [starts[k]], [sum(moved)]
    out = []
    solved: BlockMemo = {}  # blocks by content, both starts
    for (name, labels), nodes in zip(starts, moved, strict=True):
        stats: dict[str, Any] = {"improved_from": before, "improve_start": name}
        with phase("improve: blocks"):
            stats.update(
                _block_sweeps(problem, labels, core, block_nodes, sweeps, solved)
            )
        stats["improve_node_moves"] = nodes + stats.pop("node_moves")
        stats["improve_core_nodes"] = len(core)
        after = problem.energy(labels)
        expand(records, labels)
        stats["seconds_improve"] = time.perf_counter() - started
        # nothing saved, nothing to report: the choice stands
        out.append(Improvement(labels, stats if saves(after, before) else {}))
    return out


def table_entries(graph: SbpGraph) -> int:
    """The entries of every edge's option table (producer's options times
    consumer's): what pricing the pairwise problem and shrinking it cost."""
    sizes = [len(node.options) for node in graph.nodes]
    return sum(sizes[e.src] * sizes[e.dst] for e in graph.edges)


def replicated_options(graph: SbpGraph, options: Sequence[int]) -> list[int]:
    """Every op's first option that is ``B`` throughout and every free
    argument ``B`` (the whole program on every device); where an op has no
    such option (a user constraint), its option in ``options``."""
    whole = _replicated_choices(graph)
    out = list(options)
    for node in graph.nodes:
        if isinstance(node, SourceNode):
            out[node.id] = node.greedy_option()
        elif isinstance(node, OpNode):
            found = whole[node.id]
            out[node.id] = options[node.id] if found is None else found
        else:
            out[node.id] = UNDECIDED
    return out


# Per graph, each op's first all-``B`` option: the combining search asks for
# the replicated plan once per latency scale (a graph only grows: its node
# count says whether what is kept is still whole).
_REPLICATED: weakref.WeakKeyDictionary[SbpGraph, list[int | None]] = (
    weakref.WeakKeyDictionary()
)


def _replicated_choices(graph: SbpGraph) -> list[int | None]:
    """Each node's first option that is ``B`` throughout (None: none, or not
    an op)."""
    found = _REPLICATED.get(graph)
    if found is not None and len(found) == len(graph.nodes):
        return found
    found: list[int | None] = [None] * len(graph.nodes)
    # Ops of repeated layers share one option list (8,166 ops, 241 lists on
    # the 8-layer flax decoder on 2x4): each list is searched once.
    by_list: dict[int, int | None] = {}
    for node in graph.nodes:
        if isinstance(node, OpNode):
            key = id(node.options)  # the lists live as long as ``graph``
            if key not in by_list:
                by_list[key] = _first_replicated(node.options)
            found[node.id] = by_list[key]
    _REPLICATED[graph] = found
    return found


def _first_replicated(options: Sequence[Signature]) -> int | None:
    """The index of the first signature that is ``B`` throughout (None: none)."""
    return next(
        (
            i
            for i, sig in enumerate(options)
            if all(
                isinstance(s, Broadcast)
                for nd in (*sig.inputs, *sig.outputs)
                for s in nd
            )
        ),
        None,
    )


def _block_sweeps(
    problem: PairwiseProblem,
    labels: list[int],
    core: list[int],
    block_nodes: int,
    sweeps: int,
    solved: BlockMemo | None = None,
) -> dict[str, int]:
    """Block sweeps, each followed by node moves around what changed, while
    a sweep saves more than ``SWEEP_SAVING`` of the total.  ``solved``: the
    blocks' exact solutions by content (``_resolve``), shared by the caller's
    sweeps."""
    solved = {} if solved is None else solved
    moved = blocks_moved = blocks_solved = sweeps_run = 0
    for sweep in range(sweeps):
        before = problem.energy(labels)
        seeds = core if sweep % 2 == 0 else reversed(core)
        changed: set[int] = set()
        for block in _blocks(problem, seeds, block_nodes):
            blocks_solved += 1
            if _resolve(problem, labels, block, solved):
                blocks_moved += 1
                changed.update(block)
        sweeps_run += 1
        if not changed:
            break
        moved += problem.descend(labels, _around(problem, changed))
        if problem.energy(labels) > before * (1 - SWEEP_SAVING):
            break
    return {
        "node_moves": moved,
        "improve_blocks": blocks_solved,
        "improve_block_moves": blocks_moved,
        "improve_sweeps": sweeps_run,
        "improve_distinct_blocks": len(solved),
    }


def _around(problem: PairwiseProblem, nodes: set[int]) -> list[int]:
    """``nodes`` and their neighbours, in id order."""
    out = set(nodes)
    for v in nodes:
        out.update(problem.neighbours[v])
    return sorted(out)


def _blocks(
    problem: PairwiseProblem, seeds: Iterable[int], size: int
) -> Iterator[list[int]]:
    """A partition of the nodes with choices into connected blocks of at most
    ``size`` nodes, each grown breadth-first from the next unused seed."""
    used: set[int] = set()
    for seed in seeds:
        if seed in used or not problem.alive[seed] or problem.sizes[seed] < 2:
            continue
        used.add(seed)
        block = [seed]
        queue = deque(block)
        while queue and len(block) < size:
            v = queue.popleft()
            for w in sorted(problem.neighbours[v]):
                if w in used or problem.sizes[w] < 2:
                    continue
                used.add(w)
                block.append(w)
                queue.append(w)
                if len(block) == size:
                    break
        if len(block) > 1:
            yield block


def _resolve(
    problem: PairwiseProblem,
    labels: list[int],
    block: list[int],
    solved_blocks: BlockMemo,
) -> bool:
    """Solve ``block`` exactly with every other node at its label; keep the
    answer (and say so) when it lowers the total.  ``solved_blocks``: the
    labels of the blocks solved before, by content (``_solved_block``)."""
    index = {v: i for i, v in enumerate(block)}
    unary = []
    inside: list[Factor] = []
    for v in block:
        u = problem.unary[v]
        for w in problem.neighbours[v]:
            f = problem.factor(v, w)
            if w in index:
                if v < w:
                    inside.append(Factor(index[f.a], index[f.b], f.ga, f.gb, f.table))
                continue
            mine, theirs, table = f.side(v)
            u = u + table[mine, theirs[labels[w]]]
        unary.append(u)
    if sum(f.table.size for f in inside) > BLOCK_ENTRIES:
        return False
    old = [labels[v] for v in block]
    before = _energy(unary, inside, old)
    # No labelling of the block costs less than each node's least unary
    # plus each factor's least entry: when the labels met that already, no
    # solve can save (most blocks of a plan the optimal strategy made).
    floor = sum(float(u.min()) for u in unary) + sum(
        float(f.table.min()) for f in inside
    )
    if not saves(floor, before):
        return False
    new = _solved_block(unary, inside, solved_blocks)
    if new is None:
        return False
    if not saves(_energy(unary, inside, new), before):
        return False
    for v, label in zip(block, new, strict=True):
        labels[v] = label
    return True


# A block's problem by content (``_block_key``) -> the labels its exact
# solve gave (None: none).
BlockMemo = dict[tuple, list[int] | None]

# A block's costs are compared to this share of its largest finite cost.
KEY_RESOLUTION = 2.0**-40


def _block_key(unary: Sequence[np.ndarray], inside: Sequence[Factor]) -> tuple:
    """The block problem's content, alike for the same layer's block in
    another copy: its factors in one order (by their ends' positions, each
    seen from its lower end) and its costs rounded to ``KEY_RESOLUTION`` of
    its largest.  The shrink sums another copy's costs in another order
    (1e-18 s apart on Mixtral-8x7B's 32 layers, whose blocks then all
    missed), and the program numbers another layer's nodes in another
    order."""
    finite = [np.abs(x[np.isfinite(x)]) for x in (*unary, *(f.table for f in inside))]
    largest = max((float(x.max()) for x in finite if x.size), default=0.0)
    step = largest * KEY_RESOLUTION or 1.0
    seen = sorted(
        (
            (f.a, f.b, f.ga, f.gb, f.table)
            if f.a < f.b
            else (f.b, f.a, f.gb, f.ga, f.table.T)
            for f in inside
        ),
        key=lambda ends: ends[:2],  # one factor per pair: never the arrays
    )
    return content(*(np.round(u / step) for u in unary)) + tuple(
        (a, b, *content(ga, gb, np.round(table / step))) for a, b, ga, gb, table in seen
    )


def _solved_block(
    unary: Sequence[np.ndarray], inside: Sequence[Factor], memo: BlockMemo
) -> list[int] | None:
    """The exact solve's labels of the block problem ``unary`` and
    ``inside`` (None: HiGHS found none), solved once per content
    (``_block_key``): the blocks of a model's repeated layers, with the
    same labels around them, are the same problem again (on Llama-3-70B's
    80 layers, 804 block solves).  A hit is a problem within rounding of
    the one solved, whose labels ``_resolve`` prices on the block's own
    costs before it moves anything."""
    key = _block_key(unary, inside)
    if key in memo:
        return memo[key]
    sub = PairwiseProblem(list(unary))
    for f in inside:
        sub.add_factor(f)
    solved = solve_exact(sub, 1e-9, None, prune=False, time_limit=BLOCK_SECONDS)
    memo[key] = None if solved is None else solved[0]
    return memo[key]


def _energy(
    unary: Sequence[np.ndarray], factors: Sequence[Factor], labels: Sequence[int]
) -> float:
    """The total of a block's problem (its unaries and factors) at ``labels``."""
    total = sum(float(u[label]) for u, label in zip(unary, labels, strict=True))
    for f in factors:
        total += float(f.table[f.ga[labels[f.a]], f.gb[labels[f.b]]])
    return total
