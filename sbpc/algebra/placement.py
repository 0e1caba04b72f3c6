"""Placements: a device kind and an N-D array of ranks (OneFlow's ParallelDesc).

The shape of the rank array is the *hierarchy*; an nd_sbp has one entry per
hierarchy dimension.  Device coordinates are tuples indexing the rank array.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

Coord: TypeAlias = tuple[int, ...]


# Ranks are device numbers; the emitted program starts max(rank) + 1 devices
# (simulated ones on a CPU), so a rank of 10**20 is a typo, not a cluster.
MAX_RANK = 2**20 - 1


class PlacementError(ValueError):
    """A rank array that cannot be a placement, with a diagnostic message."""


@dataclass(frozen=True)
class Placement:
    """``device`` kind (``cuda``, ``cpu``, ...) and ranks laid out as ``hierarchy``."""

    device: str
    hierarchy: tuple[int, ...]
    ranks: tuple[int, ...]  # row-major flattening of the rank array

    def __post_init__(self) -> None:
        if not self.hierarchy or any(n <= 0 for n in self.hierarchy):
            raise PlacementError("a placement needs a non-empty rank array")
        if math.prod(self.hierarchy) != len(self.ranks):
            raise PlacementError(
                f"hierarchy {list(self.hierarchy)} does not hold "
                f"{len(self.ranks)} ranks"
            )
        if any(r < 0 for r in self.ranks):
            raise PlacementError(f"ranks must be non-negative, got {min(self.ranks)}")
        if any(r > MAX_RANK for r in self.ranks):
            raise PlacementError(
                f"rank {max(self.ranks)} is out of range: ranks are device "
                f"numbers, at most {MAX_RANK}"
            )
        seen: set[int] = set()
        for r in self.ranks:
            if r in seen:
                raise PlacementError(f"rank {r} appears more than once")
            seen.add(r)

    @staticmethod
    def from_nested(device: str, ranks: Any) -> Placement:
        """Build from a nested list such as ``[[0, 1], [2, 3]]``; checks rectangularity."""
        hierarchy = _rectangular_shape(ranks)
        flat = tuple(_flatten(ranks))
        return Placement(device, hierarchy, flat)

    @staticmethod
    def of_size(n: int | Sequence[int], device: str = "cpu") -> Placement:
        """Ranks ``0..N-1`` laid out as hierarchy ``n`` (an int means 1-D)."""
        hierarchy = (n,) if isinstance(n, int) else tuple(n)
        if math.prod(hierarchy) > MAX_RANK + 1:  # before listing the ranks
            raise PlacementError(
                f"{math.prod(hierarchy)} devices are more than {MAX_RANK + 1}"
            )
        return Placement(device, hierarchy, tuple(range(math.prod(hierarchy))))

    @property
    def ndim(self) -> int:
        return len(self.hierarchy)

    @property
    def size(self) -> int:
        return len(self.ranks)

    def coords(self) -> Iterator[Coord]:
        """All device coordinates in row-major order (the order of ``ranks``)."""
        return itertools.product(*(range(n) for n in self.hierarchy))

    def rank_at(self, coord: Coord) -> int:
        index = 0
        for c, n in zip(coord, self.hierarchy, strict=True):
            index = index * n + c
        return self.ranks[index]

    def nested_ranks(self) -> list[Any]:
        """The rank array as nested lists, as written in the IR."""

        def build(dim: int, offset: int) -> list[Any]:
            stride = math.prod(self.hierarchy[dim + 1 :])
            if dim == self.ndim - 1:
                return list(self.ranks[offset : offset + self.hierarchy[dim]])
            return [
                build(dim + 1, offset + i * stride) for i in range(self.hierarchy[dim])
            ]

        return build(0, 0)

    def permuted(self, order: Sequence[int]) -> Placement:
        """The same devices with hierarchy dim ``k`` being this one's dim
        ``order[k]`` (the rank array transposed): how a layout that splits
        by mesh axes in another order than the mesh's is laid out."""
        if sorted(order) != list(range(self.ndim)):
            raise PlacementError(f"{list(order)} is not an order of {self.ndim} dims")
        hierarchy = tuple(self.hierarchy[k] for k in order)
        ranks = tuple(
            self.rank_at(tuple(c[order.index(k)] for k in range(self.ndim)))
            for c in itertools.product(*(range(n) for n in hierarchy))
        )
        return Placement(self.device, hierarchy, ranks)

    def order_in(self, other: Placement) -> tuple[int, ...] | None:
        """The ``order`` with ``other.permuted(order) == self``, None if none
        (the identity first: a placement is its own unpermuted self)."""
        if self.device != other.device or self.ndim != other.ndim:
            return None
        if sorted(self.hierarchy) != sorted(other.hierarchy):
            return None
        for order in itertools.permutations(range(self.ndim)):
            same_shape = [other.hierarchy[k] for k in order] == list(self.hierarchy)
            if same_shape and other.permuted(order) == self:
                return tuple(order)
        return None

    def refined(self, factors: Sequence[Sequence[int]]) -> Placement:
        """The same devices in the same order with hierarchy dim ``k`` split
        into ``factors[k]``, major first (Shardy's sub-axes: ``"x":(1)2``,
        ``"x":(2)2`` of an axis of 4 are factors ``[2, 2]``)."""
        if len(factors) != self.ndim or any(
            math.prod(f) != n for f, n in zip(factors, self.hierarchy, strict=True)
        ):
            raise PlacementError(f"{list(factors)} do not split {list(self.hierarchy)}")
        return Placement(self.device, tuple(n for f in factors for n in f), self.ranks)

    def factors_in(self, other: Placement) -> tuple[tuple[int, ...], ...] | None:
        """The ``factors`` with ``other.refined(factors) == self``, None if none."""
        if self.device != other.device or self.ranks != other.ranks:
            return None
        factors: list[tuple[int, ...]] = []
        rest = list(self.hierarchy)
        for n in other.hierarchy:
            take: list[int] = []
            while rest and math.prod(take) < n:
                take.append(rest.pop(0))
            if math.prod(take) != n:
                return None
            factors.append(tuple(take))
        return tuple(factors) if not rest else None

    def arrangement_in(
        self, other: Placement
    ) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]] | None:
        """The ``(factors, order)`` with ``other.refined(factors).permuted(order)
        == self`` (Shardy's sub-axes listed out of mesh order), None if none;
        the identity order first."""
        if self.device != other.device or sorted(self.ranks) != sorted(other.ranks):
            return None
        factors = self.factors_in(other)  # refined only: no permutation to try
        if factors is not None:
            return factors, tuple(range(self.ndim))
        for order in itertools.permutations(range(self.ndim)):
            back = self.permuted([order.index(k) for k in range(self.ndim)])
            factors = back.factors_in(other)
            if factors is not None:
                return factors, tuple(order)
        return None

    def __str__(self) -> str:
        return f"{self.device}, {self.nested_ranks()}"


def _rectangular_shape(ranks: Any) -> tuple[int, ...]:
    if isinstance(ranks, int):
        raise PlacementError("a placement's ranks must be an array, not a scalar")
    if not isinstance(ranks, list | tuple) or len(ranks) == 0:
        raise PlacementError("a placement needs a non-empty rank array")
    if all(isinstance(r, int) for r in ranks):
        return (len(ranks),)
    if any(isinstance(r, int) for r in ranks):
        raise PlacementError("rank array mixes numbers and sub-arrays (ragged)")
    shapes = {_rectangular_shape(r) for r in ranks}
    if len(shapes) != 1:
        raise PlacementError("rank array is ragged: its rows differ in shape")
    return (len(ranks), *shapes.pop())


def _flatten(ranks: Any) -> Iterator[int]:
    if isinstance(ranks, int):
        yield ranks
        return
    for r in ranks:
        yield from _flatten(r)
