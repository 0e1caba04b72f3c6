"""Repeated layers of a pairwise problem: disjoint copies of one subgraph.

A model with ``L`` identical layers gives a core (after ``shrink``) in which
the same nodes, cost vectors and factor tables occur ``L`` times, up to the
renaming of nodes.  ``find_copies`` recovers them: it colours each node by
its unary costs and the factors around it, takes ``L`` nodes of one colour
as seeds (one per copy), and grows the copies in lockstep.  A neighbour
joins every copy at once, and only when every copy has as many unclaimed
neighbours with the same unary costs over the same factor; the k-th of
them in node order joins (the program orders each layer alike).  The result is
an isomorphism between the copies: tuple ``t`` of ``Copies.tuples`` holds
one node per copy, and ``Copies.internal`` lists the tuple pairs joined by
the same factor table in every copy.

Nothing here decides a label, and nothing depends on the copies being
right: the bound that uses them (``bound.py``) is valid for any copies.
Finding them only makes that bound tight.
"""

from __future__ import annotations

import hashlib
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sbpc.propagation.solver.pairwise import PairwiseProblem

# The copies grown without the stack's first and last layers (in program
# order) are kept when they leave at most this share of the core's nodes
# outside that the copies of every layer leave.  The end layers meet what
# comes before and after the stack, and a memory price can prune a label
# there that it keeps in every other layer: then the growth in lockstep
# stops, and what it leaves is solved whole.  On one price of Llama-3-70B,
# 80 copies grew to 114 parts and left 6,600 of the core's nodes outside
# (their LP: 4.3 million columns, 73 s), where 78 copies left 1,700.
# Where trimming gains little (unpriced: 185 parts against 193), the 80
# copies' window bounds the plan better (a gap of 0.03% against 0.33%).
TRIMMED_OUTSIDE = 0.5


@dataclass(frozen=True)
class Copies:
    """``tuples[t][j]``: the node playing part ``t`` in copy ``j``;
    ``internal``: the (part, part) pairs with the same factor in every copy."""

    tuples: list[tuple[int, ...]]
    internal: list[tuple[int, int]]
    # the stack's first and last layers left out (``TRIMMED_OUTSIDE``):
    # every copy here is an inner one
    trimmed: bool = False

    @property
    def count(self) -> int:
        return len(self.tuples[0]) if self.tuples else 0

    def nodes(self, copy: int) -> list[int]:
        return [t[copy] for t in self.tuples]


def _digest(*parts: bytes) -> bytes:
    h = hashlib.blake2b(digest_size=12)
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.digest()


class _FactorKeys:
    """``factor_key`` of one problem, memoised (each is asked for often)."""

    def __init__(self, problem: PairwiseProblem) -> None:
        self.problem = problem
        self.memo: dict[tuple[int, int], bytes] = {}

    def __call__(self, v: int, w: int) -> bytes:
        key = self.memo.get((v, w))
        if key is None:
            key = self.memo[(v, w)] = factor_key(self.problem, v, w)
        return key


def factor_key(problem: PairwiseProblem, v: int, w: int) -> bytes:
    """The factor between ``v`` and ``w`` as seen from ``v`` (its groups, the
    other end's groups, the table with ``v``'s groups as rows)."""
    gv, gw, table = problem.factor(v, w).side(v)
    return _digest(
        np.ascontiguousarray(gv).tobytes(),
        np.ascontiguousarray(gw).tobytes(),
        np.ascontiguousarray(table).tobytes(),
        repr(table.shape).encode(),
    )


def _unary_keys(problem: PairwiseProblem, core: Sequence[int]) -> dict[int, bytes]:
    return {v: _digest(problem.unary[v].tobytes()) for v in core}


def _colours(keys: _FactorKeys, base: dict[int, bytes]) -> dict[int, bytes]:
    """One round of colour refinement: a node's unary costs, plus the
    multiset of (factor seen from it, the other end's unary costs)."""
    problem = keys.problem
    colour: dict[int, bytes] = {}
    for v in base:
        around = sorted(keys(v, w) + base[w] for w in problem.neighbours[v])
        colour[v] = _digest(base[v], *around)
    return colour


def find_copies(
    problem: PairwiseProblem,
    core: Sequence[int],
    min_count: int = 3,
    seeds: int = 4,
    counts: int = 1,
) -> Copies | None:
    """The largest set of repeated copies found from a few seed colours, or
    None when no colour occurs ``min_count`` or more times.

    ``counts``: how many copy counts to try, those whose colours cover the
    most nodes first; the copies holding the most nodes are kept.  Where
    a layer's forward pass is recomputed in its backward one, twice the
    layer count covers more nodes by colour (each forward node twice),
    yet its copies stop where forward and recomputation part: the whole
    problem of 16 layers of Llama-3-70B gave 32 copies of 92 nodes.
    The copies without the first and last layers are kept instead when
    they leave far fewer nodes outside (``TRIMMED_OUTSIDE``)."""
    keys = _FactorKeys(problem)
    base = _unary_keys(problem, core)
    colour = _colours(keys, base)
    classes: dict[bytes, list[int]] = {}
    for v in core:
        classes.setdefault(colour[v], []).append(v)
    sizes = Counter(len(m) for m in classes.values() if len(m) >= min_count)
    if not sizes:
        return None
    # The copy count covering the most nodes: the number of layers.
    tried = sorted(sizes, key=lambda n: (n * sizes[n], n), reverse=True)[:counts]
    best: Copies | None = None
    trimmed: Copies | None = None
    for count in tried:
        candidates = [m for m in classes.values() if len(m) == count]
        for members in candidates[:seeds]:
            seed = tuple(sorted(members))
            copies = _grow(keys, base, seed)
            if best is None or _held(copies) > _held(best):
                best = copies
            if len(seed) - 2 >= min_count:
                inner = _grow(keys, base, seed[1:-1])
                if trimmed is None or _held(inner) > _held(trimmed):
                    trimmed = inner
    if best is not None and trimmed is not None:
        outside = len(core) - _held(best)[0]
        if len(core) - _held(trimmed)[0] <= TRIMMED_OUTSIDE * outside:
            return Copies(trimmed.tuples, trimmed.internal, trimmed=True)
    return best


def _held(copies: Copies) -> tuple[int, int]:
    """(nodes the copies hold, parts per copy): the larger the better."""
    return len(copies.tuples) * copies.count, len(copies.tuples)


def _grow(
    keys: _FactorKeys, unary_key: dict[int, bytes], seed: tuple[int, ...]
) -> Copies:
    """Copies grown from one node per copy, breadth first, in lockstep."""
    problem = keys.problem
    claimed: dict[int, int] = {v: 0 for v in seed}
    tuples: list[tuple[int, ...]] = [seed]
    work = deque([0])
    while work:
        here = tuples[work.popleft()]
        for w0 in sorted(problem.neighbours[here[0]]):
            if w0 in claimed:
                continue
            want = (keys(here[0], w0), unary_key[w0])
            # Equal neighbours (q and k of one attention) are told apart by
            # their order in the program, the same in every layer.
            found = [_alike(keys, unary_key, claimed, v, want) for v in here]
            rank = found[0].index(w0)
            if any(len(f) != len(found[0]) for f in found):
                continue
            found = [f[rank] for f in found]
            if len(set(found)) < len(found):
                continue
            for w in found:
                claimed[w] = len(tuples)
            tuples.append(tuple(found))
            work.append(len(tuples) - 1)
    return Copies(tuples, _internal(keys, tuples, claimed))


def _alike(
    keys: _FactorKeys,
    unary_key: dict[int, bytes],
    claimed: dict[int, int],
    v: int,
    want: tuple[bytes, bytes],
) -> list[int]:
    """Unclaimed neighbours of ``v`` with unary costs ``want[1]`` over a
    factor ``want[0]``, in node order."""
    return [
        w
        for w in sorted(keys.problem.neighbours[v])
        if w not in claimed and unary_key.get(w) == want[1] and keys(v, w) == want[0]
    ]


def _internal(
    keys: _FactorKeys, tuples: list[tuple[int, ...]], part: dict[int, int]
) -> list[tuple[int, int]]:
    """Part pairs whose factor exists, identical, in every copy."""
    problem = keys.problem
    pairs: list[tuple[int, int]] = []
    for s, nodes in enumerate(tuples):
        for w in problem.neighbours[nodes[0]]:
            t = part.get(w)
            if t is None or t <= s or tuples[t][0] != w:
                continue
            key = keys(nodes[0], w)
            if all(
                tuples[t][j] in problem.neighbours[nodes[j]]
                and keys(nodes[j], tuples[t][j]) == key
                for j in range(1, len(nodes))
            ):
                pairs.append((s, t))
    return pairs
