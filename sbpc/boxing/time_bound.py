"""A lower bound on the time of the steps from any layout to one target.

A search from a source settles every layout cheaper than its target.  When
the target has ``B`` entries (the gather before a transfer between
placements: all ``B``) that is nearly every layout, since partial and split
entries are a few free local steps from anything and only a ``B`` takes a
collective; on a rank-4 tensor over 5 hierarchy dims that was all 32,768
layouts for one plan (5 s).  With ``TimeBound`` the planner's search skips
the layouts that cannot reach the target in time (A*: the bound added to
the cost when ordering the layouts to settle).

Every hierarchy dim whose entry differs from the target's needs a step
that writes the target's entry there.  A step on dims ``D`` writing entry
``e`` costs at least the least ``step_time`` of a kind that writes ``e``,
at the least bytes a group on ``D`` can hold (the tensor over the devices
of every other dim); it fixes at most the dims of ``D`` whose target entry
is ``e``.  The bound of a layout is the least total of such steps that
fix every differing dim.  It is consistent: a step costs at least the
bound's price of the dims it fixes, and the dims it leaves (or makes)
differing are still to be fixed, so that the bound drops by no more than
the step costs.
"""

from __future__ import annotations

import math
from fractions import Fraction

from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.collective_kind import COLLECTIVES
from sbpc.boxing.cost_model import CostModel, collective_kind
from sbpc.boxing.step_prices import step_price
from sbpc.boxing.step_space import StepKinds, dim_groups


class TimeBound:
    """The least seconds from a layout to ``target`` (layout indices of
    ``kinds``), for ``tensor`` on ``hierarchy`` under ``cost_model``."""

    def __init__(
        self,
        kinds: StepKinds,
        target: int,
        tensor: TensorType,
        hierarchy: tuple[int, ...],
        cost_model: CostModel,
    ) -> None:
        self._kinds = kinds
        self._target = kinds.digits(target)
        ndim = len(hierarchy)
        entries = kinds.entries
        # fix[F]: the least price of one step that fixes every dim of mask F.
        fix: list[Fraction | None] = [None] * (1 << ndim)
        for dims in dim_groups(ndim):
            outside = math.prod(n for d, n in enumerate(hierarchy) if d not in dims)
            group = tensor.nbytes // outside  # the least bytes a group can hold
            for e, entry in enumerate(entries):
                fixed = sum(1 << d for d in dims if self._target[d] == e)
                if not fixed:
                    continue
                writers = {collective_kind(s, entry) for s in entries} - {None}
                prices = [
                    step_price(kind, dims, group, hierarchy, cost_model)[1]
                    for kind in writers
                    if kind is not None and (len(dims) == 1 or kind in COLLECTIVES)
                ]
                if prices:
                    best = min(prices)
                    known = fix[fixed]
                    fix[fixed] = best if known is None else min(known, best)
        # A step that fixes F fixes each part of F.
        for mask in range(len(fix) - 1, 0, -1):
            price = fix[mask]
            if price is None:
                continue
            for d in range(ndim):
                sub = mask & ~(1 << d)
                if sub == mask or not sub:
                    continue
                known = fix[sub]
                if known is None or price < known:
                    fix[sub] = price
        # least[M]: the least total of steps fixing every dim of M.
        least: list[Fraction] = [Fraction(0)] * (1 << ndim)
        for mask in range(1, 1 << ndim):
            low = mask & -mask
            best: Fraction | None = None
            sub = mask
            while sub:
                price = fix[sub]
                if sub & low and price is not None:
                    total = price + least[mask & ~sub]
                    if best is None or total < best:
                        best = total
                sub = (sub - 1) & mask
            assert best is not None  # every single dim can be written
            least[mask] = best
        self._least = least

    def __call__(self, node: int) -> Fraction:
        """The bound of layout ``node`` (``side * size + index`` across
        placements: the same on both sides)."""
        mask = 0
        digits = self._kinds.digits(node % self._kinds.size)
        for d, (have, want) in enumerate(zip(digits, self._target, strict=True)):
            if have != want:
                mask |= 1 << d
        return self._least[mask]
