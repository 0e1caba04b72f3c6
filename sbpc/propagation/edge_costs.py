"""Memoized edge prices: the strategies ask the same question many times.

The cost model (another module, behind the ``EdgeCost`` callback) may run a
boxing planner per question; a transformer asks about a few dozen distinct
(src, dst, tensor type) triples thousands of times.  Here also live the
rules every strategy shares: keeping a layout is free, a result that accepts
any layout (``dst`` None) is free, and on a single device every layout is the
same data, so every change is free.
"""

from __future__ import annotations

from sbpc.algebra.sbp import NdSbp
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.graph import EdgeCost

Key = tuple[NdSbp, NdSbp, TensorType]


class EdgeCosts:
    def __init__(
        self,
        edge_cost: EdgeCost,
        edge_bytes: EdgeCost | None = None,
        single_device: bool = False,
    ) -> None:
        self._cost = edge_cost
        self._bytes = edge_bytes
        self.single_device = single_device
        self._time_cache: dict[Key, float] = {}
        self._bytes_cache: dict[Key, float] = {}

    @property
    def has_bytes(self) -> bool:
        return self._bytes is not None

    def time(self, src: NdSbp, dst: NdSbp | None, tensor: TensorType) -> float:
        if dst is None or src == dst or self.single_device:
            return 0.0
        key = (src, dst, tensor)
        cost = self._time_cache.get(key)
        if cost is None:
            cost = float(self._cost(src, dst, tensor))
            self._time_cache[key] = cost
        return cost

    def bytes(self, src: NdSbp, dst: NdSbp | None, tensor: TensorType) -> float | None:
        """Bytes moved, or None when no ``edge_bytes`` callback was given."""
        if self._bytes is None:
            return None
        if dst is None or src == dst or self.single_device:
            return 0.0
        key = (src, dst, tensor)
        moved = self._bytes_cache.get(key)
        if moved is None:
            moved = float(self._bytes(src, dst, tensor))
            self._bytes_cache[key] = moved
        return moved
