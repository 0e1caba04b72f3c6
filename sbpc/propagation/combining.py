"""Search that sees collective combining: plan, combine, re-price, iterate.

Every strategy prices an edge alone, so it cannot know that the emitter will
run independent collectives of one kind as one.  This loop lets any strategy
(greedy, bfs, optimal) plan anyway: it plans with every link latency scaled
by ``s``, prices the plan with combining (``combined_cost``), and replans
with ``s`` set to the share of latency that combining left (a fixed point:
a plan whose collectives all combine sees latency nearly free, one with a
serial chain sees all of it).  It starts from both ends, ``s = 1`` (the plain
model: so the plan the search without combining would give is always a
candidate, and the combined search never returns a costlier one) and
``s = 0`` (latency free), follows each for a bounded number of rounds, and
keeps the plan that is cheapest under the combined model.  No latency is
chosen by hand: the machine's own latency is priced as combined.

This search is the default (``CostModel.combine``), so its price is every
plan's: a third start from the middle, ``s = 1/2``, once found a plan both
ends' fixed points missed (the MLP training step on a 2x4 mesh with a fixed
cost per launch of 0.7 ms: 13.4 ms modeled against 13.9 ms), but on the
examples under the default and calibrated models it found nothing the two
ends did not, for a third more solves; it is no longer tried.  Scales within
``SAME_SCALE`` of one already planned are not planned again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sbpc.propagation.combined_cost import CombinedCost
from sbpc.propagation.plan import Plan

STARTS = (1.0, 0.0)  # the plain model first, then latency free
ROUNDS_PER_START = 2  # replans after each start (so at most 6 plans)
SAME_SCALE = 0.05  # a scale this close to one planned is not planned again
# Plans whose modeled times differ by less than this share are a tie: the
# model's error.  Calibrations of one machine a day apart moved a plan's
# modeled time by more (docs/performance.md), and two plans it priced 3-4%
# apart ran in the other order (``mlp`` dp: 780 against 812 us, measured
# 1.15-1.21x the other way; ``gpt`` 2d: 536 against 550 us, 1.04x).
TOLERANCE = 0.05


@dataclass(frozen=True)
class Candidate:
    """One plan the loop made, at latency scale ``scale``, priced combined."""

    scale: float
    plan: Plan
    cost: CombinedCost

    @property
    def total_time(self) -> float:
        return self.plan.compute_time + self.cost.comm_time


def search_with_combining(
    solve: Callable[[float], Plan],
    price: Callable[[Plan], CombinedCost],
    rounds_per_start: int = ROUNDS_PER_START,
) -> tuple[Candidate, list[Candidate]]:
    """The cheapest plan under combining, and every candidate tried.

    ``solve(s)`` plans with every link latency times ``s``; ``price`` prices
    a plan's communication with combining.  Scales already tried (to
    ``SAME_SCALE``) are not planned again.  Ties keep the earlier candidate
    (the plain model).
    """
    tried: list[Candidate] = []
    for start in STARTS:
        scale: float | None = start
        for _ in range(rounds_per_start + 1):
            if scale is None or any(abs(c.scale - scale) < SAME_SCALE for c in tried):
                break
            plan = solve(scale)
            candidate = Candidate(scale, plan, price(plan))
            tried.append(candidate)
            scale = candidate.cost.latency_scale
    return split_work(tried), tried


def split_work(tried: list[Candidate]) -> Candidate:
    """The cheapest candidate, or, among those within ``TOLERANCE`` of it,
    the one that keeps work split: least compute per device, then least
    peak memory (ties: the cheaper, then the earlier).  A near-tie then
    does not flip with calibration noise towards a plan that replicates
    work to save a collective."""
    cheapest = min(tried, key=lambda c: c.total_time)
    close = [c for c in tried if c.total_time <= cheapest.total_time * (1 + TOLERANCE)]
    least = min(c.plan.compute_time for c in close)
    close = [c for c in close if c.plan.compute_time <= least * (1 + 1e-9)]
    return min(close, key=lambda c: (c.plan.peak_memory, c.total_time))


def combined_plan(best: Candidate, tried: list[Candidate], repriced: Plan) -> Plan:
    """``repriced`` (``best``'s options priced by the real model, latency per
    collective) with its communication priced combined, and the search's stats."""
    stats = {**repriced.stats, **combining_stats(best, tried, repriced.comm_time)}
    return replace(repriced, comm_time=best.cost.comm_time, stats=stats)


def combining_stats(
    best: Candidate, tried: list[Candidate], uncombined: float
) -> dict[str, Any]:
    """What the report says about the search: rounds, scales, and any trade.

    A *trade* is a chosen plan that moves more bytes than the fewest-bytes
    plan the search found: it buys less compute, less memory or fewer
    (combined) collectives with those bytes, and the report says which.
    """
    stats: dict[str, Any] = {
        "combining_plans": len(tried),
        "latency_scale": round(best.scale, 4),
        "collectives": best.cost.collectives,
        "combined_collectives": best.cost.groups,
        "uncombined_comm_time": uncombined,
    }
    fewest = min(tried, key=lambda c: (_bytes(c), c.total_time))
    if _bytes(best) > _bytes(fewest):
        stats["trade"] = trade_text(best, fewest)
    cheapest = min(tried, key=lambda c: c.total_time)
    if cheapest.total_time < best.total_time:
        stats["tolerance"] = tie_text(best, cheapest)
    return stats


def tie_text(kept: Candidate, cheapest: Candidate) -> str:
    """One line saying why ``kept`` won over the cheaper ``cheapest``."""
    above = kept.total_time / cheapest.total_time - 1
    bought = _less_work(kept, cheapest)
    return (
        f"kept a plan modeled at {kept.total_time * 1e6:.1f} us over one at "
        f"{cheapest.total_time * 1e6:.1f} us ({above:.1%} more, within the "
        f"model's error of {TOLERANCE:.0%}) for "
        + (" and ".join(bought) or "an equal share of work")
    )


def trade_text(best: Candidate, fewest: Candidate) -> str:
    """One line naming what ``best`` buys with its extra bytes over ``fewest``."""
    bought = _less_work(best, fewest)
    fewer = fewest.cost.groups - best.cost.groups
    if fewer > 0:
        bought.append(f"{fewer} fewer collectives after combining")
    comm = fewest.cost.comm_time - best.cost.comm_time
    if comm > 0:
        bought.append(f"{comm * 1e6:.1f} us less communication")
    return (
        f"moves {_bytes(best):.0f} B per device where another plan moves "
        f"{_bytes(fewest):.0f} B, for {', '.join(bought) or 'an equal modeled time'}"
        f" (modeled {best.total_time * 1e6:.1f} us against "
        f"{fewest.total_time * 1e6:.1f} us)"
    )


def _less_work(kept: Candidate, other: Candidate) -> list[str]:
    """What ``kept`` saves over ``other`` in compute and peak memory."""
    out = []
    compute = other.plan.compute_time - kept.plan.compute_time
    if compute > 0:
        out.append(f"{compute * 1e6:.1f} us less compute")
    memory = other.plan.peak_memory - kept.plan.peak_memory
    if memory > 0:
        out.append(f"{memory:.0f} B less peak memory per device")
    return out


def _bytes(c: Candidate) -> float:
    return c.plan.total_bytes or 0.0
