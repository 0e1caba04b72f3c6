"""Memoized edge prices: the strategies ask the same question many times.

The cost model (another module, behind the ``EdgeCost`` callback) may run a
boxing planner per question; a transformer asks about a few dozen distinct
(src, dst, tensor type) triples thousands of times.  Here also live the
rules every strategy shares: keeping a layout is free, a result that accepts
any layout (``dst`` None) is free, and on a single device every layout is the
same data, so every change is free.  Weighted edges (uses inside loops) cost
their weight times the change; a tied edge cannot change at all.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeAlias

import numpy as np

from sbpc.algebra.sbp import NdSbp
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.graph import EdgeCost, EdgeTensor

Key = tuple[NdSbp, NdSbp, TensorType]

# The prices of every (src, dst) pair of two layout lists over one tensor
# type, as a ``len(srcs) x len(dsts)`` array: what ``EdgeCost`` answers one
# pair at a time, for a cost model that can price a whole table at once.
EdgeTable: TypeAlias = Callable[
    [Sequence[NdSbp], Sequence[NdSbp | None], TensorType], np.ndarray
]


def _memo(cache: dict[Key, float], price: EdgeCost, key: Key) -> float:
    """``price(*key)`` as a float, computed once per key."""
    value = cache.get(key)
    if value is None:
        value = float(price(*key))
        cache[key] = value
    return value


def kept(srcs: Sequence[NdSbp], dsts: Sequence[NdSbp | None]) -> np.ndarray:
    """Which pairs change nothing: ``dst`` is ``src`` or takes any layout
    (None).  Layouts are numbered once each, so a table of a loop's edge
    hashes ``len(srcs) + len(dsts)`` layouts rather than comparing every
    pair (a scanned decoder's bodies: most of its tables' pricing)."""
    number: dict[NdSbp, int] = {}
    rows = np.fromiter(
        (number.setdefault(s, len(number)) for s in srcs), np.int64, len(srcs)
    )
    cols = np.fromiter(
        (-1 if d is None else number.setdefault(d, len(number)) for d in dsts),
        np.int64,
        len(dsts),
    )
    return (rows[:, None] == cols[None, :]) | (cols < 0)[None, :]


class EdgeCosts:
    def __init__(
        self,
        edge_cost: EdgeCost,
        edge_bytes: EdgeCost | None = None,
        single_device: bool = False,
        edge_table: EdgeTable | None = None,
    ) -> None:
        self._cost = edge_cost
        self._table = edge_table
        self._bytes = edge_bytes
        self.single_device = single_device
        self._time_cache: dict[Key, float] = {}
        self._bytes_cache: dict[Key, float] = {}

    @property
    def has_bytes(self) -> bool:
        return self._bytes is not None

    def time(self, src: NdSbp, dst: NdSbp | None, tensor: TensorType) -> float:
        if dst is None or src == dst:
            return 0.0
        if isinstance(tensor, EdgeTensor):
            if tensor.tied:
                return math.inf
            if self.single_device:
                return 0.0
            return tensor.weight * self.time(src, dst, tensor.plain)
        if self.single_device:
            return 0.0
        return _memo(self._time_cache, self._cost, (src, dst, tensor))

    def table(
        self, srcs: Sequence[NdSbp], dsts: Sequence[NdSbp | None], tensor: TensorType
    ) -> np.ndarray:
        """``time(s, d, tensor)`` for every ``s`` in ``srcs`` (rows) and ``d``
        in ``dsts`` (columns), from the table callback when there is one."""
        if isinstance(tensor, EdgeTensor):  # a use inside a loop: as ``time``
            keep = kept(srcs, dsts)
            if tensor.tied:
                return np.where(keep, 0.0, math.inf)
            plain = self.table(srcs, dsts, tensor.plain)
            return np.where(keep, 0.0, tensor.weight * plain)
        if self.single_device:
            return np.zeros((len(srcs), len(dsts)))
        if self._table is None:
            return np.array(
                [[self.time(s, d, tensor) for d in dsts] for s in srcs], dtype=float
            ).reshape(len(srcs), len(dsts))
        return np.asarray(self._table(srcs, dsts, tensor), dtype=float)

    def bytes(self, src: NdSbp, dst: NdSbp | None, tensor: TensorType) -> float | None:
        """Bytes moved, or None when no ``edge_bytes`` callback was given."""
        if self._bytes is None:
            return None
        if dst is None or src == dst or self.single_device:
            return 0.0
        if isinstance(tensor, EdgeTensor):
            plain = self.bytes(src, dst, tensor.plain)
            return math.inf if tensor.tied else tensor.weight * (plain or 0.0)
        return _memo(self._bytes_cache, self._bytes, (src, dst, tensor))
