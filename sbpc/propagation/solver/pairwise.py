"""The propagation graph as a pairwise cost problem over option indices.

Choosing one option per node to minimise the sum of per-node costs (compute)
and per-edge costs (layout changes) is a pairwise labelling problem.  This
module holds it in the form the shrinking and the ILP work on:

- node ``v`` has ``sizes[v]`` labels (its options) and a ``unary`` cost
  vector;
- a ``Factor`` between ``a < b`` prices every label pair, *grouped*: an edge
  cost depends only on the layout of one operand, not on the whole signature,
  so the 36 signatures of a 2-D matmul fall into a handful of groups per
  edge.  ``table[ga[i], gb[j]]`` is the cost of labels ``(i, j)``; parallel
  edges between the same two nodes are merged into one factor.

Keeping the grouping through every transformation keeps the ILP small: it
needs one variable per *group pair*, not per label pair.
"""

from __future__ import annotations

import weakref
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import SbpGraph
from sbpc.propagation.solver.content_memo import content


class Factor(NamedTuple):
    """A grouped table between nodes ``a`` and ``b``.  A named tuple, not a
    dataclass: the shrink makes tens of thousands per problem, and a frozen
    dataclass's construction took four times as long."""

    a: int
    b: int
    ga: np.ndarray  # label of a -> row
    gb: np.ndarray  # label of b -> column
    table: np.ndarray  # rows x columns, float, may hold inf

    def side(self, v: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(v's groups, the other node's groups, table with v's groups as rows)."""
        if v == self.a:
            return self.ga, self.gb, self.table
        return self.gb, self.ga, self.table.T

    def other(self, v: int) -> int:
        return self.b if v == self.a else self.a

    def full(self) -> np.ndarray:
        return self.table[np.ix_(self.ga, self.gb)]


REL_TOL = 1e-9  # a move must save this share of what it re-prices


def saves(new: float, old: float) -> bool:
    """Whether ``new`` is cheaper than ``old`` by more than rounding."""
    return new < old - REL_TOL * abs(old)


def _regroup(
    groups: np.ndarray, table: np.ndarray, axis: int
) -> tuple[np.ndarray, np.ndarray]:
    """Drop unused and duplicate rows (axis 0) or columns (axis 1).

    Lines are told apart by their bytes, sliced from one copy of the whole
    array (a scanned decoder's tables hold 25-80 lines: a numpy view and its
    ``tobytes`` per line took up to twice as long)."""
    lines = table if axis == 0 else table.T
    width = lines.shape[1] * lines.itemsize
    data = np.ascontiguousarray(lines).tobytes()
    index: dict[bytes, int] = {}
    new_of_old = np.full(len(lines), -1, dtype=np.int64)
    keep: list[int] = []
    used = np.flatnonzero(np.bincount(groups, minlength=len(lines))).tolist()
    for old in used:
        key = data[old * width : (old + 1) * width]
        new = index.get(key)
        if new is None:
            new = index[key] = len(keep)
            keep.append(old)
        new_of_old[old] = new
    kept = lines[keep]
    return new_of_old[groups], kept if axis == 0 else kept.T


def compact(f: Factor) -> Factor:
    ga, table = _regroup(f.ga, f.table, 0)
    gb, table = _regroup(f.gb, table, 1)
    return Factor(f.a, f.b, ga, gb, table)


def merge(f: Factor, g: Factor) -> Factor:
    """The sum of two factors over the same node pair."""
    assert (f.a, f.b) == (g.a, g.b)
    rows_g, cols_g = g.table.shape
    ra, ga = np.unique(f.ga * rows_g + g.ga, return_inverse=True)
    cb, gb = np.unique(f.gb * cols_g + g.gb, return_inverse=True)
    table = (
        f.table[np.ix_(ra // rows_g, cb // cols_g)]
        + g.table[np.ix_(ra % rows_g, cb % cols_g)]
    )
    return Factor(f.a, f.b, ga.reshape(-1), gb.reshape(-1), table)


def split_off(f: Factor) -> tuple[np.ndarray, np.ndarray, Factor | None]:
    """(unary for a, unary for b, what is left) when ``f`` is additively
    separable: one row, one column, or ``table[r, c] = u[r] + w[c]``."""
    t = f.table
    rows, cols = t.shape
    if rows == 1:
        return np.zeros(len(f.ga)), t[0, f.gb], None
    if cols == 1:
        return t[f.ga, 0], np.zeros(len(f.gb)), None
    if np.isfinite(t).all():
        rest = t - t[:, :1] - t[:1, :] + t[0, 0]
        if np.abs(rest).max() <= 1e-12 * max(np.abs(t).max(), 1e-300):
            return t[f.ga, 0], t[0, f.gb] - t[0, 0], None
    return np.zeros(len(f.ga)), np.zeros(len(f.gb)), f


def condition(problem: PairwiseProblem, fixed: Mapping[int, int]) -> PairwiseProblem:
    """``problem`` with the nodes of ``fixed`` set to their labels: their
    unaries and factors to fixed nodes go into the constant, factors to a
    free node into its unary; the fixed nodes are no longer alive."""
    free = PairwiseProblem(problem.unary)
    free.alive = [alive and v not in fixed for v, alive in enumerate(problem.alive)]
    free.constant = problem.constant + sum(
        float(problem.unary[v][label]) for v, label in fixed.items()
    )
    for f in problem.factors.values():
        la, lb = fixed.get(f.a), fixed.get(f.b)
        if la is not None and lb is not None:
            free.constant += float(f.table[f.ga[la], f.gb[lb]])
        elif la is not None:
            free.unary[f.b] = free.unary[f.b] + f.table[f.ga[la], f.gb]
        elif lb is not None:
            free.unary[f.a] = free.unary[f.a] + f.table[f.ga, f.gb[lb]]
        else:
            free.add_factor(f)
    return free


def restrict(problem: PairwiseProblem, kept: Sequence[np.ndarray]) -> PairwiseProblem:
    """``problem`` with node ``v``'s labels cut to ``kept[v]`` (ascending
    indices into its labels; label ``i`` of the result is ``kept[v][i]``)."""
    out = PairwiseProblem([problem.unary[v][kept[v]] for v in range(len(problem))])
    out.alive = list(problem.alive)
    out.constant = problem.constant
    for f in problem.factors.values():
        out.add_factor(Factor(f.a, f.b, f.ga[kept[f.a]], f.gb[kept[f.b]], f.table))
    return out


def components(problem: PairwiseProblem, nodes: Sequence[int]) -> list[list[int]]:
    """The connected components of ``nodes`` (each in increasing order)."""
    inside = set(nodes)
    seen: set[int] = set()
    out = []
    for v in nodes:
        if v in seen:
            continue
        seen.add(v)
        part, stack = [], [v]
        while stack:
            u = stack.pop()
            part.append(u)
            for w in problem.neighbours[u]:
                if w in inside and w not in seen:
                    seen.add(w)
                    stack.append(w)
        out.append(sorted(part))
    return out


def subproblem(problem: PairwiseProblem, nodes: Sequence[int]) -> PairwiseProblem:
    """``nodes`` (increasing) of ``problem`` as a problem of their own,
    renumbered in that order, with the factors between them as they are
    (no constant): a component solved apart."""
    index = {v: i for i, v in enumerate(nodes)}
    sub = PairwiseProblem([problem.unary[v] for v in nodes])
    for v in nodes:
        for w in problem.neighbours[v]:
            if v < w and w in index:
                f = problem.factors[(v, w)]
                a, b = index[v], index[w]
                sub.factors[(a, b)] = Factor(a, b, f.ga, f.gb, f.table)
                sub.neighbours[a].add(b)
                sub.neighbours[b].add(a)
    return sub


class PairwiseProblem:
    """Labels, unary costs and grouped pairwise factors; mutated by shrinking."""

    def __init__(self, unary: Sequence[np.ndarray]) -> None:
        self.unary: list[np.ndarray] = [np.asarray(u, dtype=float) for u in unary]
        self.sizes: list[int] = [len(u) for u in self.unary]
        self.factors: dict[tuple[int, int], Factor] = {}
        self.neighbours: list[set[int]] = [set() for _ in self.unary]
        self.alive: list[bool] = [True] * len(self.unary)
        self.constant = 0.0
        # Nodes whose factors changed since the last look (label pruning
        # re-examines only these).
        self.touched: set[int] = set(range(len(self.unary)))
        self._prepared: dict[tuple, tuple] = {}
        # (the arrays merged, what merging them prepared), by their ids
        self._merged: dict[tuple[int, ...], tuple[tuple, tuple]] = {}

    def __len__(self) -> int:
        return len(self.unary)

    def factor(self, v: int, w: int) -> Factor:
        return self.factors[(min(v, w), max(v, w))]

    def local_costs(self, labels: Sequence[int], v: int) -> np.ndarray:
        """The total's terms that depend on ``v``, per label of ``v``, with
        every other node at its label."""
        total = self.unary[v]
        for w in self.neighbours[v]:
            mine, theirs, table = self.factor(v, w).side(v)
            total = total + table[mine, theirs[labels[w]]]
        return total

    def descend(self, labels: list[int], start: Iterable[int]) -> int:
        """Single-node moves (iterated conditional modes) from the nodes of
        ``start``, then from each moved node's neighbours, until none lowers
        the total; ``labels`` (every node's) moved in place; the count."""
        queue = deque(v for v in start if self.alive[v] and self.sizes[v] > 1)
        queued = set(queue)
        moves = 0
        while queue:
            v = queue.popleft()
            queued.discard(v)
            local = self.local_costs(labels, v)
            best = int(np.argmin(local))
            if not saves(float(local[best]), float(local[labels[v]])):
                continue
            labels[v] = best
            moves += 1
            for w in self.neighbours[v]:
                if w not in queued and self.sizes[w] > 1:
                    queued.add(w)
                    queue.append(w)
        return moves

    def add_factor(self, f: Factor) -> None:
        """Add ``f`` (any orientation), merged into an existing one, compacted,
        and folded into the unaries when separable."""
        if f.a > f.b:
            f = Factor(f.b, f.a, f.gb, f.ga, f.table.T)
        old = self.factors.pop((f.a, f.b), None)
        if old is None:
            self._place(f.a, f.b, *self._prepare(f))
        else:
            self._place(f.a, f.b, *self._merge(old, f))

    def _merge(self, f: Factor, g: Factor) -> tuple:
        """``_prepare(merge(f, g))``, once per pair of factors made of the
        same arrays: a model's repeated layers add one table to one factor
        in every layer (the memory price's tables, alike in every layer, on
        Llama-3-70B's 80: half of building each priced problem was these
        merges).  Arrays are never written to, and the memo holds the ones
        it keys, so an id met again is the same array."""
        arrays = (f.ga, f.gb, f.table, g.ga, g.gb, g.table)
        key = tuple(map(id, arrays))
        found = self._merged.get(key)
        if found is None:
            found = self._merged[key] = (arrays, self._prepare(merge(f, g)))
        return found[1]

    def _prepare(self, f: Factor) -> tuple:
        """``split_off(compact(f))``.  Repeated layers give the same tables
        again and again: each distinct one is prepared once (a pure
        function of its contents)."""
        key = content(f.ga, f.gb, f.table)
        prepared = self._prepared.get(key)
        if prepared is None:
            prepared = self._prepared[key] = split_off(compact(f))
        return prepared

    def _place(
        self, a: int, b: int, ua: np.ndarray, ub: np.ndarray, rest: Factor | None
    ) -> None:
        """Add a compacted factor split into unaries and a remainder (a < b)."""
        self.touched.update((a, b))
        self.unary[a] = self.unary[a] + ua
        self.unary[b] = self.unary[b] + ub
        if rest is None:
            self.neighbours[a].discard(b)
            self.neighbours[b].discard(a)
        else:
            self.factors[(a, b)] = Factor(a, b, rest.ga, rest.gb, rest.table)
            self.neighbours[a].add(b)
            self.neighbours[b].add(a)

    def remove_factor(self, v: int, w: int) -> Factor:
        self.touched.update((v, w))
        self.neighbours[v].discard(w)
        self.neighbours[w].discard(v)
        return self.factors.pop((min(v, w), max(v, w)))

    def snapshot(self) -> PairwiseProblem:
        """The problem as it is now, unchanged by later shrinking: its own
        lists and maps, the same arrays (nothing writes an array in place;
        the shrink replaces them)."""
        out = PairwiseProblem.__new__(PairwiseProblem)
        out.__dict__.update(self.__dict__)
        out.unary = list(self.unary)
        out.sizes = list(self.sizes)
        out.factors = dict(self.factors)
        out.neighbours = [set(n) for n in self.neighbours]
        out.alive = list(self.alive)
        out.touched = set(self.touched)
        out._prepared = dict(self._prepared)
        out._merged = dict(self._merged)
        return out

    def energy(self, labels: Sequence[int]) -> float:
        """Total cost of a full labelling (on the problem as it is now)."""
        total = self.constant
        for v, alive in enumerate(self.alive):
            if alive:
                total += float(self.unary[v][labels[v]])
        for f in self.factors.values():
            total += float(f.table[f.ga[labels[f.a]], f.gb[labels[f.b]]])
        return total

    @staticmethod
    def from_graph(graph: SbpGraph, costs: EdgeCosts) -> PairwiseProblem:
        """Node ``i`` is graph node ``i``; one factor per node pair with edges."""
        problem = PairwiseProblem(
            [np.array(n.option_costs, dtype=float) for n in graph.nodes]
        )
        uses = edge_uses(graph)
        # Edges between nodes with the same layouts over the same tensor type
        # are the same factor up to its ends: price and compact each once.
        tables = [costs.table(*key) for key in uses.keys]
        prepared: dict[tuple[int, int, int], tuple] = {}
        for a, b, ia, ib, k in uses.edges:
            grouped = (ia, ib, k)
            hit = prepared.get(grouped)
            if hit is None:
                factor = Factor(0, 1, uses.groups[ia], uses.groups[ib], tables[k])
                hit = prepared[grouped] = problem._prepare(factor)
            if (a, b) in problem.factors:
                ua, ub, rest = hit
                problem._place(a, b, ua, ub, None)
                if rest is not None:
                    problem.add_factor(Factor(a, b, rest.ga, rest.gb, rest.table))
            else:
                problem._place(a, b, *hit)
        return problem


@dataclass(frozen=True)
class EdgeUses:
    """What ``from_graph`` reads of a graph besides the prices: per edge, its
    ends, the grouping of each end's labels by the layout of the value (an
    index into ``groups``) and which table prices it (an index into
    ``keys``: source layouts, target layouts, tensor type).  The combining
    search builds the problem of one graph at several latency scales, and
    only the prices change between them."""

    nodes: tuple[object, ...]  # each node's option list (checked by identity)
    graph_edges: tuple[object, ...]  # the graph's edges (checked by identity)
    groups: tuple[np.ndarray, ...]
    # (tuples: a table's pricer may remember them by identity)
    keys: tuple[tuple[tuple, tuple, object], ...]
    edges: tuple[tuple[int, int, int, int, int], ...]

    def fits(self, graph: SbpGraph) -> bool:
        """Whether ``graph`` still has these nodes' options and these edges."""
        return (
            len(self.nodes) == len(graph.nodes)
            and len(self.graph_edges) == len(graph.edges)
            and all(
                n.options is o for n, o in zip(graph.nodes, self.nodes, strict=True)
            )
            and all(e is f for e, f in zip(graph.edges, self.graph_edges, strict=True))
        )


_USES: weakref.WeakKeyDictionary[SbpGraph, EdgeUses] = weakref.WeakKeyDictionary()


def edge_uses(graph: SbpGraph) -> EdgeUses:
    """``graph``'s ``EdgeUses``, made once while its nodes and edges stay."""
    found = _USES.get(graph)
    if found is not None and found.fits(graph):
        return found
    # Layouts as small integers: tables are then keyed by tuples of ints,
    # which hash far faster than tuples of SBP dataclasses.
    layout_id: dict[object, int] = {}
    layouts: list[object] = []
    group_of: dict[tuple[int, str, int], tuple[int, tuple]] = {}
    groups: list[np.ndarray] = []

    def grouping(node_id: int, kind: str, index: int) -> tuple[int, tuple]:
        node = graph.nodes[node_id]
        options = node.options
        key = (id(options), kind, index)  # options are kept alive by ``nodes``
        hit = group_of.get(key)
        if hit is None:
            layout = node.out_layout if kind == "out" else node.in_layout
            rows: dict[int, int] = {}
            column = []
            for i in range(len(options)):
                nd = layout(i, index)
                lid = layout_id.get(nd)
                if lid is None:
                    lid = layout_id[nd] = len(layouts)
                    layouts.append(nd)
                column.append(rows.setdefault(lid, len(rows)))
            groups.append(np.array(column, dtype=np.int64))
            hit = group_of[key] = (len(groups) - 1, tuple(rows))
        return hit

    key_of: dict[tuple[tuple, tuple, object], int] = {}
    keys: list[tuple[tuple, tuple, object]] = []
    edges = []
    for edge in graph.edges:
        ia, src_ids = grouping(edge.src, "out", edge.src_index)
        ib, dst_ids = grouping(edge.dst, "in", edge.dst_index)
        tensor = graph.tensor(edge)
        key = (src_ids, dst_ids, tensor)
        k = key_of.get(key)
        if k is None:
            k = key_of[key] = len(keys)
            keys.append(
                (
                    tuple(layouts[i] for i in src_ids),
                    tuple(layouts[i] for i in dst_ids),
                    tensor,
                )
            )
        assert edge.src < edge.dst  # the builder adds producers first
        edges.append((edge.src, edge.dst, ia, ib, k))
    found = EdgeUses(
        tuple(n.options for n in graph.nodes),
        tuple(graph.edges),
        tuple(groups),
        tuple(keys),
        tuple(edges),
    )
    _USES[graph] = found
    return found


def lp_columns(problem: PairwiseProblem, core: Sequence[int]) -> int:
    """Columns of the core's local-polytope LP: one per label of a core
    node, one per entry of a factor's table."""
    labels = sum(len(problem.unary[v]) for v in core)
    return labels + sum(f.table.size for f in problem.factors.values())
