"""A memory budget as a price: a few fast solves instead of one slow one.

The optimal strategy's budgeted integer program (``memory_rows``: a row per
half-step, a column per stretch of a boxed copy) is exact but slow at scale:
HiGHS's branch and bound took 6-8 minutes on the GPT example's Adam step,
where the same program without the rows is an LP solved in a second.  This
module relaxes the budget in the Lagrangian way: the rows the plan exceeds
(*hot* rows) join the objective, each node's bytes in them priced at
``lam`` seconds per byte, and the problem stays a pairwise one that shrinks
and solves as fast as the unbudgeted one:

- a node's option pays ``lam`` times its mean bytes over the hot rows
  (arguments, outputs written by then, stored values live then);
- a boxed copy (``memory_rows.Box``) pays, on the factor between the value's
  producer and each reader that wants the copy, ``lam`` times its bytes
  times its share of the hot rows it spans, split among its readers;
- every repeated layer (the copies ``layers.find_copies`` finds in the
  unpriced problem) pays the mean of its copies' prices (``alike``), so
  that each priced problem repeats as the model does and is solved
  through one layer (``optimal.solve_repeated``).

``search`` raises ``lam`` (times ``GROWTH``) from the unbudgeted plan's
scale until a plan's *exact* peak (``memory.plan_memory``) fits, then
bisects between the last plan over the budget and the first that fits
(``BISECTIONS`` times, or until their costs are ``CLOSE_ENOUGH``), and
keeps the cheapest plan that fits.  Rows that a later plan exceeds join
the hot ones.  A price cannot reach the plans between the last one over
the budget and the first that fits (a Lagrangian's duality gap), so the
plan kept is then moved toward the cheaper plans met over the budget, one
group of differing neighbours at a time (``relink``), and crossed with
them in the budgeted program cut to their labels (``crossover.py``).
Deterministic; not proven optimal (the optimal strategy says so in its
stats, with the gap to the unbudgeted plan's bound), and when no price
fits the caller falls back to the exact program or names the least peak
met.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import PropagationError, SbpGraph
from sbpc.propagation.memory import plan_memory
from sbpc.propagation.memory_rows import MemoryRows, SharedMasks
from sbpc.propagation.solver.crossover import crossover
from sbpc.propagation.solver.layers import Copies, find_copies
from sbpc.propagation.solver.pairwise import (
    Factor,
    PairwiseProblem,
    components,
    saves,
)
from sbpc.propagation.solver.shrink import shrink
from sbpc.propagation.strategy import budget_error
from sbpc.timing import phase

# lam grows by this factor per try until a plan fits; at most this many tries
GROWTH = 4.0
MAX_RAISES = 12
# then this many bisections (in log lam) between over and fitting, stopped
# early once the fitting plan costs at most this share more than the plan
# over the budget (a price between them gives a plan costing between the
# two: on a model at full depth each price is a long solve)
BISECTIONS = 6
CLOSE_ENOUGH = 1e-3
# copy counts tried for the repeated layers (``layers.find_copies``)
LAYER_COUNTS = 4
# Nodes ``relink`` may price in all (each group it tries prices one whole
# plan's exact peak): 70 tries on one scanned layer of Llama-3-70B (1,413
# nodes, 6 ms a try), one on its 80 unrolled layers (76,114 nodes).
RELINK_WORK = 100_000


@dataclass
class Priced:
    """One solved price: its labels (every node), their unpriced cost, and
    their exact peak and bytes held per half-step."""

    lam: float
    labels: list[int]
    cost: float
    peak: float
    held: list[float]


@dataclass
class PriceSearch:
    """The tries of one ``search``, best first (for the stats and the error)."""

    budget: float
    tries: list[Priced] = field(default_factory=list)

    @property
    def best(self) -> Priced | None:
        """The cheapest plan that fits the budget (None when none did)."""
        fits = [t for t in self.tries if t.peak <= self.budget]
        return min(fits, key=lambda t: (t.cost, t.peak)) if fits else None

    @property
    def least_peak(self) -> float:
        return min((t.peak for t in self.tries), default=math.inf)

    def stats(self) -> dict:
        best = self.best
        return {
            "memory_price_solves": len(self.tries),
            "memory_price": best.lam if best is not None else None,
            "memory_price_least_peak": self.least_peak,
        }


@dataclass(frozen=True)
class BoxTables:
    """The boxed copies' price tables up to their price, made once per
    search: built per price they were 70% of a price's time on 80 layers
    of Llama-3-70B (hundreds of thousands of boxes, each a Python loop).

    A box pays, on the factor between its producer and each reader that
    wants the copy, ``outer(copies, wants)`` times its price, split among
    its readers; boxes with the same producer, reader and masks share one
    ``group``.  A (producer, reader) pair's table is then the sum over its
    groups of their prices times their outers: one product of the groups'
    masks, ``copies.T @ diag(prices) @ wants``, per pair and price (one
    outer per group was 16 s a price on the 70B: 2.5 million groups over
    88,000 pairs)."""

    entry_box: np.ndarray  # per (box, reader): the box
    entry_group: np.ndarray  # and its group
    per_byte: np.ndarray  # per box: its bytes over its readers
    pairs: list[tuple[int, int]]  # (producer, reader), by their first group
    members: list[np.ndarray]  # per pair: its groups, ascending
    # per pair: [groups, producer options] boolean (each price's product
    # makes floats of it; made floats here, the 70B's 2.5 million groups
    # were 0.75 GB and 3 s of copying)
    copies: list[np.ndarray]
    wants: list[np.ndarray]  # per pair: [groups, reader options] 0/1 floats

    @staticmethod
    def of(memory: MemoryRows) -> BoxTables:
        index: dict[tuple, int] = {}
        entry_box: list[int] = []
        entry_group: list[int] = []
        per_byte = np.zeros(len(memory.boxes))
        # per (producer, reader): its groups and their masks, first seen first
        pairs: dict[tuple[int, int], tuple[list[int], list, list]] = {}
        # a few thousand masks shared by millions of boxes
        masks = SharedMasks()
        either, key_of = masks.either, masks.bytes_of
        for i, box in enumerate(memory.boxes):
            reader, wants, other, other_wants, no_copy = box.pairs[0]
            if len(box.pairs) == 1 and reader == other and wants is other_wants:
                # one read's own stretch (most boxes): its reader, its masks
                readers = {reader: (wants, key_of(wants))}
                no_copy_key = key_of(no_copy)
            else:
                merged: dict[int, np.ndarray] = {}
                for a, wants_a, b, wants_b, made in box.pairs:
                    merged[a] = either(merged.get(a, wants_a), wants_a)
                    merged[b] = either(merged.get(b, wants_b), wants_b)
                    no_copy = either(no_copy, made)  # per producer option
                readers = {r: (w, key_of(w)) for r, w in merged.items()}
                no_copy_key = key_of(no_copy)
            per_byte[i] = box.nbytes / len(readers)
            for reader, (wants, wants_key) in readers.items():
                if reader == box.producer:
                    continue
                key = (box.producer, reader, no_copy_key, wants_key)
                group = index.get(key)
                if group is None:
                    group = index[key] = len(index)
                    groups, copies, wanted = pairs.setdefault(
                        (box.producer, reader), ([], [], [])
                    )
                    groups.append(group)
                    copies.append(~no_copy)
                    wanted.append(wants)
                entry_box.append(i)
                entry_group.append(group)
        return BoxTables(
            np.asarray(entry_box, dtype=int),
            np.asarray(entry_group, dtype=int),
            per_byte,
            list(pairs),
            [np.asarray(g, dtype=int) for g, _, _ in pairs.values()],
            [np.array(c) for _, c, _ in pairs.values()],
            [np.array(w, dtype=float) for _, _, w in pairs.values()],
        )

    def tables(
        self, counts: np.ndarray, weight: float
    ) -> dict[tuple[int, int], np.ndarray]:
        """(producer, reader) -> price table, each box spanning ``counts``
        hot rows priced at ``weight`` per byte and row (pairs whose groups
        all price at zero: none)."""
        price = weight * counts * self.per_byte
        sums = np.bincount(
            self.entry_group,
            weights=price[self.entry_box],
            minlength=sum(len(m) for m in self.members),
        )
        tables: dict[tuple[int, int], np.ndarray] = {}
        for pair, members, copies, wants in zip(
            self.pairs, self.members, self.copies, self.wants, strict=True
        ):
            prices = sums[members]
            if prices.any():
                tables[pair] = (copies.T * prices) @ wants
        return tables


def priced_problem(
    base: Callable[[], PairwiseProblem],
    memory: MemoryRows,
    hot: Sequence[int],
    lam: float,
    layers: Copies | None = None,
    outside: Sequence[int] = (),
    boxes: BoxTables | None = None,
) -> PairwiseProblem:
    """``base()`` with the hot rows' bytes priced at ``lam`` per byte (their
    mean: a plan's cost grows by ``lam`` times its mean hot row).

    ``layers``: the model's repeated layers (copies of the unpriced
    problem); each copy then pays the mean of the copies' prices
    (``alike``, the nodes outside them at their labels in ``outside``), so
    the priced problem repeats as the model does.  ``boxes``: the boxes'
    tables of ``memory`` (``BoxTables.of``), made here when not given."""
    problem = base()
    if lam <= 0 or not hot:
        return problem
    weight = lam / len(hot)
    unary = {node: weight * b for node, b in memory.hot_bytes(hot).items()}
    boxes = BoxTables.of(memory) if boxes is None else boxes
    tables = boxes.tables(memory.box_counts(hot), weight)
    if layers is not None and layers.count > 1:
        unary, tables = alike(layers, unary, tables, outside)
    for node, price in unary.items():
        problem.unary[node] = problem.unary[node] + price
    labels: dict[int, np.ndarray] = {}  # one per count: the layers' merges hit
    for (producer, reader), table in sorted(tables.items()):
        n_p, n_r = table.shape
        ga = labels.setdefault(n_p, np.arange(n_p))
        gb = labels.setdefault(n_r, np.arange(n_r))
        problem.add_factor(Factor(producer, reader, ga, gb, table))
    return problem


def alike(
    layers: Copies,
    unary: dict[int, np.ndarray],
    tables: dict[tuple[int, int], np.ndarray],
    outside: Sequence[int],
) -> tuple[dict[int, np.ndarray], dict[tuple[int, int], np.ndarray]]:
    """The prices with every repeated layer priced alike: each part's
    unary price the mean over the copies, each table between copies the
    mean over the pairs that play the same parts at the same copy offset.

    A value pays for the hot rows it spans, and those depend on its layer
    (layer 0's checkpoint lives longer than the last's), so the priced
    problem does not repeat and the repeated-layer solve covers little of
    it (10-16% on Llama-3-70B).  Averaged, a plan that labels every copy
    alike pays the same total price; the exact peak still decides fit.

    A table between a copy and a node outside the layers is folded into
    the copy's node with the outside node at its label in ``outside`` (the
    plan without the price): kept as a factor, such a node read by every
    layer joins them all, and the window around one copy
    (``repeated_layers._window_messages``) becomes the whole core."""
    count = layers.count
    place: dict[int, tuple[int, int]] = {
        v: (t, j) for t, part in enumerate(layers.tuples) for j, v in enumerate(part)
    }
    unary = dict(unary)
    groups: dict[tuple[int, int, int], np.ndarray] = {}
    kept: dict[tuple[int, int], np.ndarray] = {}
    for (p, r), table in tables.items():
        in_p, in_r = place.get(p), place.get(r)
        if in_p is not None and in_r is not None:
            key = (in_p[0], in_r[0], in_r[1] - in_p[1])
            groups[key] = groups[key] + table if key in groups else table
        elif in_p is not None:  # r outside
            price = table[:, outside[r]]
            unary[p] = unary[p] + price if p in unary else price
        elif in_r is not None:  # p outside
            price = table[outside[p], :]
            unary[r] = unary[r] + price if r in unary else price
        else:
            kept[(p, r)] = table
    averaged: dict[int, np.ndarray] = {}
    sums: dict[int, np.ndarray] = {}
    for v, price in unary.items():
        if v in place:
            t = place[v][0]
            sums[t] = sums[t] + price if t in sums else price
        else:
            averaged[v] = price
    for t, total in sums.items():
        for v in layers.tuples[t]:
            averaged[v] = total / count
    for (tp, tr, offset), total in groups.items():
        pairs = [
            (layers.tuples[tp][j], layers.tuples[tr][j + offset])
            for j in range(max(0, -offset), min(count, count - offset))
        ]
        mean = total / len(pairs)  # one array for every pair: merged once
        for pair in pairs:
            kept[pair] = mean
    return averaged, kept


def over_budget_rows(
    memory: MemoryRows, held: Sequence[float], budget: float
) -> set[int]:
    """The rows covering the half-steps where ``held`` exceeds ``budget``."""
    return {
        memory.row_of(h)
        for h, bytes_ in enumerate(held)
        if bytes_ > budget * (1 + 1e-9)
    }


def search(
    solve: Callable[[float, Sequence[int]], Priced | None],
    first: Priced,
    hot: set[int],
    over: Callable[[Priced], set[int]],
    budget: float,
) -> PriceSearch:
    """The tries of pricing memory until a plan fits, then bisecting.

    ``solve(lam, hot)``: the plan of least cost plus ``lam`` times the mean
    hot row (None when none is found); ``first``: the unpriced plan (over
    the budget); ``over(plan)``: the rows it exceeds.  ``lam`` starts at
    ``first``'s cost per byte of its peak."""
    found = PriceSearch(budget, [first])
    lam = max(first.cost, 1e-30) / max(first.peak, 1.0)
    low, high = 0.0, math.inf
    costs = [first.cost, math.inf]  # the plans' at low and at high
    raises = bisections = 0
    while True:
        tried = solve(lam, sorted(hot))
        if tried is None:
            break
        found.tries.append(tried)
        if tried.peak <= budget:
            high, costs[1] = lam, tried.cost
        else:
            low, costs[0] = lam, tried.cost
            if not math.isfinite(high):
                hot |= over(tried)
        if math.isfinite(high):  # bisect in log lam
            close = costs[1] - costs[0] <= CLOSE_ENOUGH * abs(costs[1])
            if bisections == BISECTIONS or close:
                break
            bisections += 1
            lam = math.sqrt(low * high) if low > 0 else high / GROWTH
        else:  # raise
            raises += 1
            if raises == MAX_RAISES:
                break
            lam *= GROWTH
    return found


def relink(
    best: Priced,
    tries: Sequence[Priced],
    problem: PairwiseProblem,
    priced: Callable[[float, list[int]], Priced],
    budget: float,
    work: int = RELINK_WORK,
) -> tuple[Priced, int]:
    """``best`` (the cheapest plan that fits) moved toward the cheaper plans
    the search met over the budget; the plan and the moves kept.

    A price is one number for the whole plan: between the last price whose
    plan is over the budget and the first whose plan fits, no price gives a
    plan in between (a Lagrangian's duality gap), and that is where the
    cheapest plan that fits can lie.  On Llama-3-70B's scanned step the two
    were 74.69 GiB at 8.808 s and 74.42 GiB at 8.815 s, where Megatron's
    layout pinned models 8.814 s.  Each over-budget plan cheaper than the
    current one (cheapest first) differs from it on some nodes; each
    connected group of those (neighbours in ``problem``, the unpriced
    problem) takes the over-budget plan's labels when the result still fits
    (``priced``: its exact peak) and costs less.  Groups are tried in that
    order while ``work`` allows one more whole plan's price (``work`` /
    nodes, at least one): a bound on the work, not a clock."""
    current, moves, left = best, 0, max(1, work // max(len(problem), 1))
    cheaper = sorted((t for t in tries if t.peak > budget), key=lambda t: t.cost)
    for over in cheaper:
        if over.cost >= current.cost or left == 0:
            break
        for group in _differing_groups(problem, current.labels, over.labels):
            if left == 0:
                break
            left -= 1
            trial = list(current.labels)
            for v in group:
                trial[v] = over.labels[v]
            candidate = priced(best.lam, trial)
            if candidate.peak <= budget and saves(candidate.cost, current.cost):
                current, moves = candidate, moves + 1
    return current, moves


def _differing_groups(
    problem: PairwiseProblem, labels: Sequence[int], other: Sequence[int]
) -> list[list[int]]:
    """The nodes where ``labels`` and ``other`` differ, in connected groups
    (neighbours in ``problem``), in node order."""
    differ = [v for v, (a, b) in enumerate(zip(labels, other, strict=True)) if a != b]
    return components(problem, differ)


def repeated_layers(problem: PairwiseProblem, memory: MemoryRows) -> Copies | None:
    """The repeated layers of the unpriced ``problem`` (shrunk here), every
    node a price can touch kept through the shrink so that the copies can
    hold it (the shrink folds most of a layer's nodes away, and the copies
    of the whole problem are many small ones: 32 of 92 nodes, holding 303
    of the 2,070 priced nodes, on 16 layers of Llama-3-70B)."""
    priced = set(memory.frozen) | set(memory.arguments)
    priced.update(node for node, *_ in memory.spans)
    shrink(problem, priced)
    core = [v for v, alive in enumerate(problem.alive) if alive]
    return find_copies(problem, core, counts=LAYER_COUNTS)


# Solves a pairwise problem: labels of every node (None: no labelling found)
# and a lower bound of its optimum.
Solver = Callable[[PairwiseProblem], tuple[list[int], float] | None]


def within_budget(
    graph: SbpGraph,
    costs: EdgeCosts,
    memory: MemoryRows,
    budget: float,
    stats: dict,
    solve_exact: Solver,
    unbudgeted: Sequence[int] | None = None,
    deadline: float | None = None,
    unbudgeted_bound: float | None = None,
    rel_gap: float = 1e-7,
    threads: int | None = None,
) -> list[int]:
    """Labels of every node within ``budget``: the unbudgeted optimum when
    it fits (then proven, as ``solve_exact`` proves it), else the cheapest
    plan a memory price found (``search``); raises naming the least peak
    met.  ``stats`` gets the search's.  ``unbudgeted``: the plan without
    the budget, when the caller has it (then not solved again: on a model
    at full depth that solve is as long as a price's).  ``deadline`` (on
    ``time.perf_counter``): no price is tried after it (a price's solve is
    not cut short), the search keeping what it found by then
    (``stats["memory_price_stopped"]``).  ``unbudgeted_bound``: a lower
    bound on every plan that the unbudgeted plan's solve proved (given with
    ``unbudgeted``; else this search's own solve gives it): the plan's
    ``gap`` in ``stats`` is to it.  ``rel_gap``, ``threads``: the
    crossover's MIP's (the strategy's own, ``Optimal.mip_rel_gap``)."""
    liveness = memory.liveness
    reference = PairwiseProblem.from_graph(graph, costs)
    with phase("find layers"):  # of the unpriced problem: it repeats
        layers = repeated_layers(PairwiseProblem.from_graph(graph, costs), memory)
    stats["memory_price_layers"] = layers.count if layers is not None else 0

    def priced(lam: float, labels: list[int]) -> Priced:
        held = plan_memory(graph, labels, liveness).held
        return Priced(lam, labels, reference.energy(labels), max(held), held)

    plain: list[int] = []  # the plan without the price (set below)
    # A lower bound on every plan: the unpriced solve's (the caller's, or
    # this search's own when it solves the plan without the price).
    bound = -math.inf if unbudgeted_bound is None else unbudgeted_bound
    made: list[BoxTables] = []  # the boxes' tables, made at the first price

    def solve(lam: float, hot: Sequence[int]) -> Priced | None:
        if lam > 0 and deadline is not None and time.perf_counter() >= deadline:
            stats["memory_price_stopped"] = "time limit"
            return None
        if lam > 0 and not made:
            with phase("memory price tables"):
                made.append(BoxTables.of(memory))
        with phase("memory price problem"):
            problem = priced_problem(
                lambda: PairwiseProblem.from_graph(graph, costs),
                memory,
                hot,
                lam,
                layers,
                plain,
                made[0] if made else None,
            )
        with phase("memory price"):
            solved = solve_exact(problem)
        if solved is None:
            return None
        if lam == 0:
            nonlocal bound
            bound = solved[1]
        return priced(lam, solved[0])

    def over(tried: Priced) -> set[int]:
        return over_budget_rows(memory, tried.held, budget)

    first = solve(0.0, ()) if unbudgeted is None else priced(0.0, list(unbudgeted))
    if first is None:
        raise PropagationError("no plan of finite cost exists")
    plain.extend(first.labels)
    if first.peak <= budget:
        if unbudgeted is None:
            stats.update(status="Optimal (the unbudgeted plan fits)", proven=True)
        else:  # the caller's, as proven as it was
            stats.update(status="the unbudgeted plan fits", proven=False)
        stats["objective"] = first.cost
        return first.labels
    found = search(solve, first, over(first), over, budget)
    stats.update(found.stats())
    best = found.best
    if best is None:
        raise budget_error(budget, found.least_peak, proven=False)
    with phase("memory price relink"):
        best, moves = relink(best, found.tries, reference, priced, budget)
    cheaper = [t.labels for t in found.tries if t.peak > budget and t.cost < best.cost]
    if cheaper and (deadline is None or time.perf_counter() < deadline):
        with phase("memory price crossover"):
            crossed = crossover(
                reference, memory, budget, best.labels, cheaper,
                lambda labels: plan_memory(graph, labels, liveness).held,
                rel_gap, threads,
                time_limit=lambda: None if deadline is None
                else max(deadline - time.perf_counter(), 1e-3),
            )  # fmt: skip
        stats["memory_price_crossover"] = (
            f"{crossed.why}: {crossed.free} free nodes, {crossed.solves} solves"
        )
        if crossed.labels is not None:
            best = priced(best.lam, crossed.labels)
    stats["memory_price_relinked"] = moves
    stats.update(status="a memory price (not proven optimal)", proven=False)
    stats["objective"] = best.cost
    # No plan costs less than the unpriced problem's bound, those that fit
    # included: the plan's gap to the budget's optimum is at most this one.
    if math.isfinite(bound) and math.isfinite(best.cost):
        stats["gap"] = max(0.0, best.cost - bound) / max(abs(best.cost), 1e-300)
    return best.labels
