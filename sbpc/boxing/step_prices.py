"""Bytes and modeled time of the single boxing steps of one tensor, each
computed once.

The boxing planner's step graph of a tensor type tries every (layout, dims,
new entry) step: tens of thousands of steps over a few dozen layouts, whose
prices depend only on a handful of inputs: ``T`` (``group_bytes``) on the
layout and the dims, the step's bytes and time on its kind, dims and ``T``.
Pricing each step from scratch spent most of the planner's time in
``Fraction`` arithmetic and local shapes.  ``StepPrices`` keeps each distinct
input's result (the same exact ``Fraction``\\ s the cost model returns), so
the graph, its shortest paths and every price built from them are unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from sbpc.algebra.sbp import NdSbp
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.collective_kind import CollectiveKind
from sbpc.boxing.cost_model import CostModel, collective_bytes, group_bytes


class StepPrices:
    """The prices of steps of ``tensor`` on ``hierarchy`` under ``cost_model``."""

    def __init__(
        self, tensor: TensorType, hierarchy: Sequence[int], cost_model: CostModel
    ) -> None:
        self.tensor = tensor
        self.hierarchy = tuple(hierarchy)
        self.cost_model = cost_model
        self._group_bytes: dict[tuple[NdSbp, tuple[int, ...]], int] = {}
        self._step: dict[
            tuple[CollectiveKind, tuple[int, ...], int], tuple[Fraction, Fraction]
        ] = {}

    def group_bytes(self, nd: NdSbp, dims: tuple[int, ...]) -> int:
        """``cost_model.group_bytes`` of ``nd`` on ``dims``."""
        key = (nd, dims)
        found = self._group_bytes.get(key)
        if found is None:
            found = self._group_bytes[key] = group_bytes(
                nd, dims, self.tensor, self.hierarchy
            )
        return found

    def step(
        self, kind: CollectiveKind, dims: tuple[int, ...], group: int
    ) -> tuple[Fraction, Fraction]:
        """(bytes each device sends, modeled seconds) of a ``kind`` step on
        ``dims`` whose groups hold ``group`` bytes (``T``)."""
        key = (kind, dims, group)
        found = self._step.get(key)
        if found is None:
            found = self._step[key] = step_price(
                kind, dims, group, self.hierarchy, self.cost_model
            )
        return found


def step_price(
    kind: CollectiveKind,
    dims: tuple[int, ...],
    group: int,
    hierarchy: Sequence[int],
    cost_model: CostModel,
) -> tuple[Fraction, Fraction]:
    """(bytes each device sends, modeled seconds) of a ``kind`` step on
    ``dims`` of ``hierarchy`` whose groups hold ``group`` bytes: the same
    for every tensor of that group size."""
    nbytes = collective_bytes(kind, math.prod(hierarchy[d] for d in dims), group)
    return nbytes, cost_model.step_time(kind, dims, hierarchy, nbytes)
