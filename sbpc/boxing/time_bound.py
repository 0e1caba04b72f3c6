"""A lower bound on the time of the steps from any layout to one target.

A search from a source settles every layout cheaper than its target.  When
the target has ``B`` entries (the gather before a transfer between
placements: all ``B``) that is nearly every layout, since partial and split
entries are a few free local steps from anything and only collectives cost
time; on a rank-4 tensor over 5 hierarchy dims that was all 32,768 layouts
for one plan (5 s).  With ``TimeBound`` the planner's search skips the
layouts that cannot reach the target in time (A*: the bound added to the
cost when ordering the layouts to settle).

Local steps only turn ``B`` into ``S`` or ``P`` and ``S`` into ``P``, so a
hierarchy dim whose entry ``x`` differs from the target's ``t`` needs a
collective on it unless ``x`` is ``B`` or (``S``, ``P``), and a collective
that writes ``B`` (all_gather, all_reduce) when ``t`` is ``B``.  A
collective on dims ``D`` costs at least its ``step_time`` at the least
bytes a group on ``D`` can hold (the tensor over the devices of every other
dim).  The bound of a layout is the least total of collectives that meet
every dim's need (a DP over the dims' needs).  It is consistent: a local
step never lowers a dim's need, a collective meets at most the needs of its
dims at no less than its own price, and the needs it does not meet stay.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

from sbpc.algebra.sbp import Broadcast, Partial, Sbp, Split
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.collective_kind import COLLECTIVES, CollectiveKind
from sbpc.boxing.cost_model import CostModel
from sbpc.boxing.step_prices import step_price
from sbpc.boxing.step_space import StepKinds, dim_groups

# What a hierarchy dim needs: nothing, a collective on it, one writing B on it.
_NONE, _ANY, _GATHER = 0, 1, 2
_WRITES_B = (CollectiveKind.ALL_GATHER, CollectiveKind.ALL_REDUCE)


def _need(have: Sbp, want: Sbp) -> int:
    """What a dim holding ``have`` needs before it holds ``want``."""
    if have == want or isinstance(have, Broadcast):
        return _NONE
    if isinstance(want, Broadcast):
        return _GATHER
    if isinstance(have, Split) and isinstance(want, Partial):
        return _NONE  # local_to_partial
    return _ANY


class TimeBound:
    """The least seconds from a layout to ``target`` (layout indices of
    ``kinds``) under ``least`` (``least_totals``): ``seconds[state(node)]``."""

    def __init__(
        self, kinds: StepKinds, target: int, least: tuple[Fraction, ...]
    ) -> None:
        self.seconds = least
        self._size = kinds.size
        want = kinds.digits(target)
        ndim = len(want)
        # A layout's state: bit d its dim d's need of a collective, bit
        # ndim + d of one writing B; read off its index's low and high digits.
        low = ndim // 2
        self._split = len(kinds.entries) ** low

        def table(dims: range) -> list[int]:
            states = [0]
            for d in dims:
                bits = [
                    _bits(_need(have, kinds.entries[want[d]]), d, ndim)
                    for have in kinds.entries
                ]
                states = [s | b for s in states for b in bits]
            return states

        self._high = table(range(ndim - low))
        self._low = table(range(ndim - low, ndim))

    def state(self, node: int) -> int:
        """Layout ``node``'s needs (``side * size + index`` across
        placements: the same on both sides)."""
        high, low = divmod(node % self._size, self._split)
        return self._high[high] | self._low[low]


def _bits(need: int, d: int, ndim: int) -> int:
    if need == _ANY:
        return 1 << d
    if need == _GATHER:
        return 1 << (ndim + d)
    return 0


@lru_cache(maxsize=256)
def least_totals(
    tensor: TensorType, hierarchy: tuple[int, ...], cost_model: CostModel
) -> tuple[Fraction, ...]:
    """The least seconds of collectives meeting the needs of each state
    (``TimeBound.state``): whatever the target, for ``tensor`` on
    ``hierarchy`` under ``cost_model``."""
    ndim = len(hierarchy)
    full = (1 << ndim) - 1
    # price[level][F]: the least price of one collective meeting needs of
    # ``level`` on every dim of mask F (on those dims or more).
    price: dict[int, list[Fraction | None]] = {
        _ANY: [None] * (full + 1),
        _GATHER: [None] * (full + 1),
    }
    for dims in dim_groups(ndim):
        outside = math.prod(n for d, n in enumerate(hierarchy) if d not in dims)
        group = tensor.nbytes // outside  # the least bytes a group can hold
        times = {
            kind: step_price(kind, dims, group, hierarchy, cost_model)[1]
            for kind in COLLECTIVES
        }
        mask = sum(1 << d for d in dims)
        for level, meeting in ((_ANY, COLLECTIVES), (_GATHER, _WRITES_B)):
            least = min(times[kind] for kind in meeting)
            for sub in _submasks(mask):
                known = price[level][sub]
                if known is None or least < known:
                    price[level][sub] = least
    # totals[m1 | m2 << ndim]: the least total meeting needs ``_ANY`` on
    # mask m1 and ``_GATHER`` on mask m2, one collective per part of them
    # (one on more dims costs no less than on a part of them).
    totals: list[Fraction] = [Fraction(0)] * (1 << 2 * ndim)
    for m2 in range(full + 1):  # fewer needs first: the parts read them
        for m1 in [0, *reversed(_submasks(full & ~m2))]:
            mask = m1 | m2
            if not mask:
                continue
            low = mask & -mask
            best: Fraction | None = None
            for part in _submasks(mask):
                step = price[_GATHER if part & m2 else _ANY][part]
                if not part & low or step is None:
                    continue
                rest = (m1 & ~part) | (m2 & ~part) << ndim
                if best is None or step + totals[rest] < best:
                    best = step + totals[rest]
            assert best is not None  # every single dim has its collectives
            totals[m1 | m2 << ndim] = best
    return tuple(totals)


def _submasks(mask: int) -> list[int]:
    """Every non-empty submask of ``mask``, largest first."""
    out = []
    sub = mask
    while sub:
        out.append(sub)
        sub = (sub - 1) & mask
    return out
