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
from collections.abc import Collection, Iterable
from dataclasses import dataclass

import numpy as np

from sbpc.propagation.pairwise import Factor, PairwiseProblem


@dataclass(frozen=True)
class Fixed:
    node: int
    label: int


@dataclass(frozen=True)
class Leaf:
    node: int
    parent: int
    parent_groups: np.ndarray
    best: np.ndarray  # parent group -> label


@dataclass(frozen=True)
class Series:
    node: int
    a: int
    b: int
    ga: np.ndarray
    gb: np.ndarray
    best: np.ndarray  # (a group, b group) -> label


@dataclass(frozen=True)
class Relabel:
    node: int
    kept: np.ndarray  # new label -> label before
    mapping: np.ndarray  # label before -> new label (a dropped one: its dominator)


Record = Fixed | Leaf | Series | Relabel


def shrink(
    problem: PairwiseProblem,
    frozen: Collection[int] = (),
    start: Iterable[int] | None = None,
) -> list[Record]:
    """Eliminate nodes of ``problem`` in place; returns the records for ``expand``.

    ``start``: the nodes to look at first (default all); a node is looked at
    again whenever a neighbour is eliminated.
    """
    records: list[Record] = []
    frozen = set(frozen)
    work = deque(range(len(problem)) if start is None else sorted(set(start)))
    queued = [False] * len(problem)
    for v in work:
        queued[v] = True
    while work:
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
            record = _leaf(problem, v, neighbours[0])
        else:
            record = _series(problem, v, *neighbours)
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


def _leaf(problem: PairwiseProblem, v: int, a: int) -> Leaf:
    f = problem.remove_factor(v, a)
    ga, gv, table = f.side(a)
    cost = table[:, gv] + problem.unary[v][None, :]  # (a groups, v labels)
    best = np.argmin(cost, axis=1)
    problem.unary[a] = problem.unary[a] + cost[np.arange(len(best)), best][ga]
    return Leaf(v, a, ga, best)


def _series(problem: PairwiseProblem, v: int, a: int, b: int) -> Series:
    fa = problem.remove_factor(v, a)
    fb = problem.remove_factor(v, b)
    ga, gva, ta = fa.side(a)
    gb, gvb, tb = fb.side(b)
    left = ta[:, gva] + problem.unary[v][None, :]  # (a groups, v labels)
    right = tb[:, gvb]  # (b groups, v labels)
    total = left[:, :, None] + right.T[None, :, :]  # (a groups, v labels, b groups)
    best = np.argmin(total, axis=1)
    table = np.take_along_axis(total, best[:, None, :], axis=1)[:, 0, :]
    problem.add_factor(Factor(a, b, ga, gb, table))
    return Series(v, a, b, ga, gb, best)


def prune_dominated(
    problem: PairwiseProblem, frozen: Collection[int] = ()
) -> list[Record]:
    """Drop every label ``i`` of an alive node for which some kept label
    ``j`` costs no more under every choice of the neighbours:
    ``u(i) - u(j) + sum_w min_l (f_w(i, l) - f_w(j, l)) >= 0``.

    Labels are dropped one at a time, each against labels still present, so
    an optimum always survives (of two equal labels, one stays).  Only nodes
    whose factors changed since the last call are examined: call again until
    it returns nothing to reach the fixed point.
    """
    records: list[Record] = []
    frozen = set(frozen)
    todo = sorted(problem.touched)
    problem.touched.clear()
    seen: dict[tuple, np.ndarray] = {}
    for v in todo:
        if not problem.alive[v] or v in frozen or problem.sizes[v] < 2:
            continue
        diff = _dominance(problem, v, seen) >= 0
        np.fill_diagonal(diff, False)
        if not diff.any():
            continue
        alive = np.ones(problem.sizes[v], dtype=bool)
        dominator = list(range(problem.sizes[v]))
        for i in np.flatnonzero(diff.any(axis=1)):
            by = np.flatnonzero(diff[i] & alive)
            if by.size:
                alive[i] = False
                dominator[i] = int(by[0])
        kept = [int(i) for i in np.flatnonzero(alive)]
        if len(kept) < problem.sizes[v]:
            new_index = {old: new for new, old in enumerate(kept)}
            mapping = []
            for i in range(problem.sizes[v]):
                while i not in new_index:
                    i = dominator[i]
                mapping.append(new_index[i])
            _relabel(problem, v, np.array(kept))
            records.append(Relabel(v, np.array(kept), np.array(mapping)))
    return records


def relabel_forward(records: list[Record], labels: list[int]) -> None:
    """Carry a full labelling of the original problem onto the current labels,
    a dropped label onto the one that dominated it (never more costly)."""
    for r in records:
        if isinstance(r, Relabel):
            labels[r.node] = int(r.mapping[labels[r.node]])


def _dominance(
    problem: PairwiseProblem, v: int, seen: dict[tuple, np.ndarray]
) -> np.ndarray:
    """``d[i, j]``: the least that label ``i`` costs more than label ``j``.

    ``seen``: the group-pair minima of tables already met (repeated layers
    repeat their tables), by value; the sum is taken in the same order.
    """
    u = problem.unary[v]
    with np.errstate(invalid="ignore"):
        d = u[:, None] - u[None, :]
        d[np.isinf(u)[:, None] & np.isinf(u)[None, :]] = 0.0
        for w in problem.neighbours[v]:
            gv, _, rows = problem.factor(v, w).side(v)  # (groups of v, of w)
            key = (rows.shape, rows.tobytes())
            least = seen.get(key)
            if least is None:
                # per pair of v's *groups* (fewer than its labels), then spread
                pair = rows[:, None, :] - rows[None, :, :]
                both = np.isinf(rows)[:, None, :] & np.isinf(rows)[None, :, :]
                pair[both] = np.inf  # infeasible with either label: no evidence
                least = seen[key] = pair.min(axis=2)
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
