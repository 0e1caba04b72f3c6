"""Which collectives of a straight-line program can run as one, and in what order.

Each collective costs a fixed latency (a rendezvous, a ring's first round)
on top of its bytes; a training step has one gradient collective per
parameter.  XLA combines independent all-reduces on every backend but
all-gathers and reduce-scatters only on some (not on CPU), so the JAX
emitter combines them itself: collectives of one *key* (kind, mesh axes,
reduction, element type) that do not depend on each other become one
collective on their pieces concatenated.

Independence: collectives are grouped by a *level* that grows strictly along
every dependency between two of them: the number of combinable collectives
on the longest dataflow path into a collective (as soon as possible) or
that depth minus the longest path out of it (as late as possible: a
training step's gradient reductions then wait for each other and form one
bucket); whichever gives fewer collectives.  Collectives of one level never
depend on each other, and contracting each (level, key) group to one node
leaves the dataflow graph acyclic: every order this module returns is a
valid schedule.  Groups are
cut into chunks of at most ``max_bytes`` (XLA's combiners have the same
threshold) so a combined buffer never holds a whole model's gradients.

Plain data in, plain data out: the emitter decides how to write a group;
``combine_key`` says which boxing steps may form one (for the emitter and the
search that prices its plans alike).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from sbpc.algebra.sbp import NdSbp, Partial
from sbpc.boxing.collective_kind import CollectiveKind

Node = TypeVar("Node")

# XLA's default combine threshold on GPU (all-reduce, all-gather, reduce-scatter).
DEFAULT_MAX_BYTES = 30 * 1024 * 1024


def combine_key(
    kind: str, dims: Sequence[int], src: NdSbp, element: str
) -> Hashable | None:
    """What boxing steps must share to run as one collective; None: alone.

    Booleans reduce through int32 and max/min reduce-scatters are a reduce
    and a slice: both stay single.
    """
    dims = tuple(dims)
    if kind == CollectiveKind.ALL_GATHER:
        return (CollectiveKind.ALL_GATHER, dims, element)
    first = src[dims[0]] if dims else None
    if element == "i1" or not isinstance(first, Partial):
        return None
    if kind == CollectiveKind.ALL_REDUCE:
        return (CollectiveKind.ALL_REDUCE, dims, first.kind, element)
    if kind == CollectiveKind.REDUCE_SCATTER and first.kind == "sum":
        return (CollectiveKind.REDUCE_SCATTER, dims, element)
    return None


@dataclass(frozen=True)
class Combined(Generic[Node]):
    """Several collectives of one key run as one: members in program order."""

    key: Hashable
    members: tuple[Node, ...]


def combine_groups(
    nodes: Sequence[Node],
    operands: Callable[[Node], Sequence[Hashable]],
    results: Callable[[Node], Sequence[Hashable]],
    key: Callable[[Node], Hashable | None],
    nbytes: Callable[[Node], int],
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Grouping[Node]:
    """``nodes`` (a valid program order) with combinable collectives grouped.

    ``key(node)`` is ``None`` for a node that is not a combinable collective.
    Values no node defines are inputs, available from the start.  Of the
    level functions (``_levels``) the one giving the fewest collectives is
    kept (a tie: ASAP).
    """
    producer: dict[Hashable, int] = {}
    for i, n in enumerate(nodes):
        for v in results(n):
            producer[v] = i
    deps = [sorted({producer[v] for v in operands(n) if v in producer}) for n in nodes]
    for i, ds in enumerate(deps):
        if any(d >= i for d in ds):
            raise ValueError(f"node {i} uses a value defined at or after it")
    if not nodes:
        return Grouping(nodes, key, deps, [], {})
    chunkings = [
        _chunks(nodes, level, key, nbytes, max_bytes)
        for level in _levels(nodes, deps, key)
    ]
    unit_of, members = min(chunkings, key=lambda c: len(c[1]))
    return Grouping(nodes, key, deps, unit_of, members)


@dataclass(frozen=True)
class Grouping(Generic[Node]):
    """A program's nodes grouped into units: each node's dependencies, its
    unit's representative, and each combinable unit's members."""

    nodes: Sequence[Node]
    key: Callable[[Node], Hashable | None]
    deps: list[list[int]]
    unit_of: list[int]
    members: dict[int, list[int]]

    def units(self) -> list[tuple[Node, ...]]:
        """Each combined group's members (in program order) and every other
        node alone, by their first member's place in ``nodes``: what a price
        needs (``sbpc.propagation.combined_cost``), without ordering the
        whole program as ``schedule`` does."""
        nodes, members = self.nodes, self.members
        return [
            tuple(nodes[j] for j in members.get(i, [i]))
            for i, unit in enumerate(self.unit_of)
            if unit == i
        ]

    def schedule(self) -> list[Node | Combined[Node]]:
        """The nodes rescheduled with each group run as one: groups of one
        are the node itself; the relative order of everything else follows
        the program order as far as the groups allow."""
        nodes, key, deps = self.nodes, self.key, self.deps
        unit_of, members = self.unit_of, self.members
        # Kahn's algorithm on the contracted graph; a unit is placed by the
        # program position of its last member, so grouping delays rather than
        # hoists, and ungrouped code keeps its order.
        units = sorted({unit_of[i] for i in range(len(nodes))})
        place = {u: max(members.get(u, [u])) for u in units}
        unit_deps: dict[int, set[int]] = {u: set() for u in units}
        for i in range(len(nodes)):
            u = unit_of[i]
            unit_deps[u].update(unit_of[d] for d in deps[i] if unit_of[d] != u)
        users: dict[int, list[int]] = {u: [] for u in units}
        for u, ds in unit_deps.items():
            for d in ds:
                users[d].append(u)
        waiting = {u: len(ds) for u, ds in unit_deps.items()}
        ready = [(place[u], u) for u in units if waiting[u] == 0]
        heapq.heapify(ready)
        order: list[Node | Combined[Node]] = []
        while ready:
            _, u = heapq.heappop(ready)
            group = members.get(u, [u])
            if len(group) == 1:
                order.append(nodes[u])
            else:
                k = key(nodes[u])
                assert k is not None
                order.append(Combined(k, tuple(nodes[i] for i in group)))
            for w in users[u]:
                waiting[w] -= 1
                if waiting[w] == 0:
                    heapq.heappush(ready, (place[w], w))
        if len(order) != len(units):
            raise AssertionError("combined schedule is cyclic")  # impossible by levels
        return order


def _levels(
    nodes: Sequence[Node],
    deps: list[list[int]],
    key: Callable[[Node], Hashable | None],
) -> list[list[int]]:
    """Two level functions for the combinable nodes: as soon and as late as possible.

    ASAP: combinable collectives on the longest path into the node.  ALAP:
    the deepest level minus those on the longest path out of it, so a
    gradient's reduction waits for the others (one bucket) instead of
    running as soon as its backward step is done.  Both increase strictly
    along every dependency between combinable nodes.
    """
    combinable = [key(n) is not None for n in nodes]
    asap: list[int] = []
    after: list[int] = []  # ASAP level of what the node produces
    for i in range(len(nodes)):
        lvl = max((after[d] for d in deps[i]), default=0)
        asap.append(lvl)
        after.append(lvl + combinable[i])
    users: list[list[int]] = [[] for _ in nodes]
    for i, ds in enumerate(deps):
        for d in ds:
            users[d].append(i)
    height = [0] * len(nodes)  # combinable nodes on the longest path from i on
    for i in reversed(range(len(nodes))):
        height[i] = combinable[i] + max((height[u] for u in users[i]), default=0)
    depth = max(after)
    alap = [depth - height[i] for i in range(len(nodes))]
    return [asap, alap]


def _chunks(
    nodes: Sequence[Node],
    level: list[int],
    key: Callable[[Node], Hashable | None],
    nbytes: Callable[[Node], int],
    max_bytes: int,
) -> tuple[list[int], dict[int, list[int]]]:
    """Chunks of one (level, key) class, in program order, up to ``max_bytes``.

    Returns each node's representative (its unit) and each combinable
    unit's members.
    """
    unit_of = list(range(len(nodes)))
    members: dict[int, list[int]] = {}
    open_chunk: dict[tuple[int, Hashable], tuple[int, int]] = {}  # rep, bytes
    for i, n in enumerate(nodes):
        k = key(n)
        if k is None:
            continue
        size = nbytes(n)
        cls = (level[i], k)
        chunk = open_chunk.get(cls)
        if chunk is not None and chunk[1] + size <= max_bytes:
            rep, used = chunk
            members[rep].append(i)
            unit_of[i] = rep
            open_chunk[cls] = (rep, used + size)
        else:
            members[i] = [i]
            open_chunk[cls] = (i, size)
    return unit_of, members
