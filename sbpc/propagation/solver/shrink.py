"""Shrinking a pairwise problem before the ILP, exactly, and expanding back.

Three eliminations, applied until none applies (each keeps the optimum):

- a node with one label (a given argument, a configured op, a result with
  one wanted layout) is fixed: its factors become unary costs of its
  neighbours;
- a node with one neighbour (a leaf: most arguments and results) is folded
  into it: for each neighbour label, the best leaf label is remembered and
  its cost added to the neighbour's unary (dynamic programming on a tree);
- a node with two neighbours (the inside of a chain of single-input
  single-output ops, more generally any series node) is replaced by one
  factor between its neighbours, ``min_j f(a, j) + u(j) + g(j, b)``, with
  the best ``j`` remembered per (a, b) group pair: repeated, this folds a
  whole chain into one factor between its ends.

Parallel factors are merged as they appear (``PairwiseProblem.add_factor``).
What survives is the *core* the ILP solves; ``expand`` replays the records
backwards to label every eliminated node.

Nodes in ``frozen`` (their labels change the memory the budget constrains)
are only ever eliminated when they have a single label.

``prune_dominated`` removes labels that can never do better than another
label of the same node whatever the neighbours take (dead-end elimination,
Goldstein's criterion), which shrinks the ILP's core further and may leave
nodes with one label, for ``shrink`` to fix.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Generator, Iterable
from typing import NamedTuple, TypeVar

import numpy as np

from sbpc.propagation.solver.content_memo import ContentMemo, content
from sbpc.propagation.solver.pairwise import Factor, PairwiseProblem

T = TypeVar("T")


class Fixed(NamedTuple):
    node: int
    label: int


class Leaf(NamedTuple):
    node: int
    parent: int
    parent_groups: np.ndarray
    best: np.ndarray  # parent group -> label


class Series(NamedTuple):
    node: int
    a: int
    b: int
    ga: np.ndarray
    gb: np.ndarray
    best: np.ndarray  # (a group, b group) -> label


class Relabel(NamedTuple):
    node: int
    kept: np.ndarray  # new label -> label before
    mapping: np.ndarray  # label before -> new label (a dropped one: its dominator)


Record = Fixed | Leaf | Series | Relabel


def shrink(
    problem: PairwiseProblem,
    frozen: Collection[int] = (),
    start: Iterable[int] | None = None,
    memo: ContentMemo | None = None,
) -> list[Record]:
    """Eliminate nodes of ``problem`` in place; returns the records for ``expand``.

    ``start``: the nodes to look at first (default all); a node is looked at
    again whenever a neighbour is eliminated.  ``memo``: leaf and series
    steps met before (repeated layers) are not recomputed; same results.
    """
    return drain(shrink_steps(problem, frozen, start, memo))


# Nodes looked at between two pauses of ``shrink_steps``.
STEP_NODES = 64


def drain(steps: Generator[None, None, T]) -> T:
    """What a generator of steps returns, every step taken now."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def shrink_steps(
    problem: PairwiseProblem,
    frozen: Collection[int] = (),
    start: Iterable[int] | None = None,
    memo: ContentMemo | None = None,
) -> Generator[None, None, list[Record]]:
    """``shrink`` in steps: it pauses (yields) after every ``STEP_NODES``
    nodes looked at, so that work done while an LP solves (``idle_work``)
    can stop when the LP ends; returns the records."""
    records: list[Record] = []
    looked = 0
    frozen = set(frozen)
    work = deque(range(len(problem)) if start is None else sorted(set(start)))
    queued = [False] * len(problem)
    for v in work:
        queued[v] = True
    while work:
        looked += 1
        if looked % STEP_NODES == 0:
            yield
        v = work.popleft()
        queued[v] = False
        if not problem.alive[v]:
            continue
        neighbours = sorted(problem.neighbours[v])
        if problem.sizes[v] == 1:
            record: Record = _fix(problem, v, neighbours)
        elif v in frozen or len(neighbours) > 2:
            continue
        elif not neighbours:
            label = int(np.argmin(problem.unary[v]))
            problem.constant += float(problem.unary[v][label])
            record = Fixed(v, label)
        elif len(neighbours) == 1:
            record = _leaf(problem, v, neighbours[0], memo)
        else:
            record = _series(problem, v, *neighbours, memo)
        problem.alive[v] = False
        records.append(record)
        for w in neighbours:
            if not queued[w]:
                queued[w] = True
                work.append(w)
    return records


def expand(records: list[Record], labels: list[int]) -> None:
    """Fill ``labels`` of eliminated nodes, given the labels of the survivors."""
    for r in reversed(records):
        if isinstance(r, Relabel):
            labels[r.node] = int(r.kept[labels[r.node]])
        elif isinstance(r, Fixed):
            labels[r.node] = r.label
        elif isinstance(r, Leaf):
            labels[r.node] = int(r.best[r.parent_groups[labels[r.parent]]])
        else:
            labels[r.node] = int(r.best[r.ga[labels[r.a]], r.gb[labels[r.b]]])


def _fix(problem: PairwiseProblem, v: int, neighbours: list[int]) -> Fixed:
    for w in neighbours:
        f = problem.remove_factor(v, w)
        gv, gw, table = f.side(v)
        problem.unary[w] = problem.unary[w] + table[gv[0], gw]
    problem.constant += float(problem.unary[v][0])
    return Fixed(v, 0)


def _memoised(
    memo: ContentMemo | None, step: Callable[..., T], *arrays: np.ndarray
) -> T:
    """``step(*arrays)``, through ``memo`` (keyed by the step and the arrays'
    contents) when there is one."""
    if memo is None:
        return step(*arrays)
    return memo.get((step, *content(*arrays)), step, *arrays)


def _leaf(
    problem: PairwiseProblem, v: int, a: int, memo: ContentMemo | None = None
) -> Leaf:
    f = problem.remove_factor(v, a)
    ga, gv, table = f.side(a)
    best, least = _memoised(memo, _leaf_step, table, gv, problem.unary[v])
    problem.unary[a] = problem.unary[a] + least[ga]
    return Leaf(v, a, ga, best)


def _leaf_step(
    table: np.ndarray, gv: np.ndarray, u: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per group of the parent: the leaf's best label, and its cost."""
    cost = table[:, gv] + u[None, :]  # (a groups, v labels)
    best = np.argmin(cost, axis=1)
    return best, cost[np.arange(len(best)), best]


def _series(
    problem: PairwiseProblem,
    v: int,
    a: int,
    b: int,
    memo: ContentMemo | None = None,
) -> Series:
    fa = problem.remove_factor(v, a)
    fb = problem.remove_factor(v, b)
    ga, gva, ta = fa.side(a)
    gb, gvb, tb = fb.side(b)
    table, best = _memoised(memo, _series_step, ta, gva, problem.unary[v], tb, gvb)
    problem.add_factor(Factor(a, b, ga, gb, table))
    return Series(v, a, b, ga, gb, best)


def _series_step(
    ta: np.ndarray, gva: np.ndarray, u: np.ndarray, tb: np.ndarray, gvb: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The factor between the series node's two neighbours, and its best
    label per (a group, b group)."""
    left = ta[:, gva] + u[None, :]  # (a groups, v labels)
    right = tb[:, gvb]  # (b groups, v labels)
    total = left[:, :, None] + right.T[None, :, :]  # (a groups, v labels, b groups)
    best = np.argmin(total, axis=1)
    table = np.take_along_axis(total, best[:, None, :], axis=1)[:, 0, :]
    return table, best


def prune_dominated(
    problem: PairwiseProblem,
    frozen: Collection[int] = (),
    memo: ContentMemo | None = None,
) -> list[Record]:
    """Drop every label ``i`` of an alive node for which some kept label
    ``j`` costs no more under every choice of the neighbours:
    ``u(i) - u(j) + sum_w min_l (f_w(i, l) - f_w(j, l)) >= 0``.

    Labels are dropped one at a time, each against labels still present, so
    an optimum always survives (of two equal labels, one stays).  Only nodes
    whose factors changed since the last call are examined: call again until
    it returns nothing to reach the fixed point.  ``memo``: a node whose
    unary and neighbour tables were met before (repeated layers) takes the
    decision made then, without recomputing it; same result.
    """
    records: list[Record] = []
    frozen = set(frozen)
    todo = sorted(problem.touched)
    problem.touched.clear()
    seen: dict[tuple, np.ndarray] = {}
    for v in todo:
        if not problem.alive[v] or v in frozen or problem.sizes[v] < 2:
            continue
        u, sides = problem.unary[v], _sides(problem, v)
        if memo is None:
            pruned = _prune_node(u, sides, seen)
        else:
            key = (_prune_node, *content(u), *(side[0] for side in sides))
            pruned = memo.get(key, _prune_node, u, sides, seen)
        if pruned is not None:
            kept, mapping = pruned
            _relabel(problem, v, kept)
            records.append(Relabel(v, kept, mapping))
    return records


# One neighbour's factor seen from a node: (its contents' key, the node's
# groups, the table with the node's groups as rows).
Side = tuple[tuple, np.ndarray, np.ndarray]


def _sides(problem: PairwiseProblem, v: int) -> list[Side]:
    """``v``'s factors seen from ``v``, in the order of their contents: equal
    nodes (repeated layers) then sum them in the same order, so their
    pruning is one computation with one floating-point result."""
    sides = []
    for w in problem.neighbours[v]:
        gv, _, rows = problem.factor(v, w).side(v)  # (groups of v, of w)
        sides.append((content(gv, rows), gv, rows))
    sides.sort(key=lambda side: side[0])
    return sides


def _prune_node(
    u: np.ndarray, sides: list[Side], seen: dict[tuple, np.ndarray]
) -> tuple[np.ndarray, np.ndarray] | None:
    """(kept labels, label before -> new label) of a node with unary ``u``
    and factors ``sides``; None when no label drops."""
    size = len(u)
    diff = _dominance(u, sides, seen) >= 0
    np.fill_diagonal(diff, False)
    if not diff.any():
        return None
    alive = np.ones(size, dtype=bool)
    dominator = list(range(size))
    for i in np.flatnonzero(diff.any(axis=1)):
        by = np.flatnonzero(diff[i] & alive)
        if by.size:
            alive[i] = False
            dominator[i] = int(by[0])
    kept = [int(i) for i in np.flatnonzero(alive)]
    if len(kept) == size:
        return None
    new_index = {old: new for new, old in enumerate(kept)}
    mapping = []
    for i in range(size):
        while i not in new_index:
            i = dominator[i]
        mapping.append(new_index[i])
    return np.array(kept), np.array(mapping)


def relabel_forward(records: list[Record], labels: list[int]) -> None:
    """Carry a full labelling of the original problem onto the current labels,
    a dropped label onto the one that dominated it (never more costly)."""
    for r in records:
        if isinstance(r, Relabel):
            labels[r.node] = int(r.mapping[labels[r.node]])


def _dominance(
    u: np.ndarray, sides: list[Side], seen: dict[tuple, np.ndarray]
) -> np.ndarray:
    """``d[i, j]``: the least that label ``i`` costs more than label ``j``.

    ``seen``: the group-pair minima of tables already met (repeated layers
    repeat their tables), by value; the sum is taken in the order of ``sides``.
    """
    with np.errstate(invalid="ignore"):
        d = u[:, None] - u[None, :]
        d[np.isinf(u)[:, None] & np.isinf(u)[None, :]] = 0.0
        for key, gv, rows in sides:
            least = seen.get(key[1])
            if least is None:
                # per pair of v's *groups* (fewer than its labels), then spread
                pair = rows[:, None, :] - rows[None, :, :]
                both = np.isinf(rows)[:, None, :] & np.isinf(rows)[None, :, :]
                pair[both] = np.inf  # infeasible with either label: no evidence
                least = seen[key[1]] = pair.min(axis=2)
            d = d + least[np.ix_(gv, gv)]
    return np.nan_to_num(d, nan=-np.inf)


def _relabel(problem: PairwiseProblem, v: int, kept: np.ndarray) -> None:
    problem.unary[v] = problem.unary[v][kept]
    problem.sizes[v] = len(kept)
    for w in list(problem.neighbours[v]):
        f = problem.remove_factor(v, w)
        if f.a == v:
            f = Factor(f.a, f.b, f.ga[kept], f.gb, f.table)
        else:
            f = Factor(f.a, f.b, f.ga, f.gb[kept], f.table)
        problem.add_factor(f)
