"""Search that sees collective combining: plan, combine, re-price, iterate.

Every strategy prices an edge alone, so it cannot know that the emitter will
run independent collectives of one kind as one.  This loop lets any strategy
(greedy, bfs, optimal) plan anyway: it plans with every link latency scaled
by ``s``, prices the plan with combining (``combined_cost``), and replans
with ``s`` set to the share of latency that combining left (a fixed point:
a plan whose collectives all combine sees latency nearly free, one with a
serial chain sees all of it).  It starts from both ends, ``s = 1`` (the plain
model) and ``s = 0`` (latency free), and from the middle, ``s = 1/2``,
follows each for a bounded number of rounds, and keeps the plan that is
cheapest under the combined model.  The middle start matters once a fixed
cost per launch (``overhead``) dominates: both ends' fixed points can then
miss a plan with a few more, mostly combined, collectives and fewer bytes
(the MLP training step on a 2x4 mesh: 13.4 ms modeled against 13.9 ms).  No
latency is chosen by hand: the machine's own latency is priced as combined.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sbpc.propagation.combined_cost import CombinedCost
from sbpc.propagation.plan import Plan

STARTS = (1.0, 0.0, 0.5)  # the plain model first, latency free, halfway
ROUNDS_PER_START = 2  # replans after each start (so at most 9 plans)


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
    a plan's communication with combining.  Scales already tried (to 1e-2)
    are not planned again.  Ties keep the earlier candidate (the plain model).
    """
    tried: list[Candidate] = []
    for start in STARTS:
        scale: float | None = start
        for _ in range(rounds_per_start + 1):
            if scale is None or any(abs(c.scale - scale) < 1e-2 for c in tried):
                break
            plan = solve(scale)
            candidate = Candidate(scale, plan, price(plan))
            tried.append(candidate)
            scale = candidate.cost.latency_scale
    best = min(tried, key=lambda c: c.total_time)
    return best, tried


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
    return stats


# What a plan may buy with more bytes: (how to say it, how to measure it).
_GAINS: tuple[tuple[str, Callable[[Candidate], float]], ...] = (
    ("{:.1f} us less compute", lambda c: c.plan.compute_time * 1e6),
    ("{:.0f} B less peak memory per device", lambda c: c.plan.peak_memory),
    ("{} fewer collectives after combining", lambda c: c.cost.groups),
    ("{:.1f} us less communication", lambda c: c.cost.comm_time * 1e6),
)


def trade_text(best: Candidate, fewest: Candidate) -> str:
    """One line naming what ``best`` buys with its extra bytes over ``fewest``."""
    bought = [
        text.format(less)
        for text, measure in _GAINS
        if (less := measure(fewest) - measure(best)) > 0
    ]
    return (
        f"moves {_bytes(best):.0f} B per device where another plan moves "
        f"{_bytes(fewest):.0f} B, for {', '.join(bought) or 'an equal modeled time'}"
        f" (modeled {best.total_time * 1e6:.1f} us against "
        f"{fewest.total_time * 1e6:.1f} us)"
    )


def _bytes(c: Candidate) -> float:
    return c.plan.total_bytes or 0.0
