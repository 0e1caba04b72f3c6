"""Search that sees collective combining: plan, combine, re-price, iterate.

Every strategy prices an edge alone, so it cannot know that the emitter will
run independent collectives of one kind as one.  These searches let any
strategy (greedy, bfs, optimal) plan anyway: plan with every link latency
scaled by ``s``, price the plan with combining (``combined_cost``), and look
again at ``s`` set to the share of latency that combining left (a fixed
point: a plan whose collectives all combine sees latency nearly free, one
with a serial chain sees all of it).  No latency is chosen by hand.

``refine_with_combining``, the default: the strategy plans once under the
plain model (``s = 1``: the plan the search without combining gives is
always a candidate), then a few rounds of *local improvement*
(``improve.py``) at the scales combining leaves, from the best plan so far
and from the replicated plan, each result a candidate.  It replaced
replanning with the strategy at every scale because that cost too much as a
default: on the 8-layer GPT training step on 2x4, the optimal strategy at
``s = 0`` could not certify its repeated layers (every tie free) and solved
the whole core's LP, 32 s of a 70 s ``sbp-propagate`` against 2.9 s without
combining (docs/performance.md, "Issue 37"); and it found worse plans: a
plan whose collectives all run as one group can cost more per edge at every
scale than the strategy's and still be the cheapest combined (the GPT
training step, tensor parallel: 32 us against 83 us).

``search_with_combining``: the strategy at both ends (``s = 1``, then
``s = 0``), each followed for a bounded number of rounds at the scale the
last round's plan leaves: with ``improve=0``, the strategy at each; under
a memory budget (which only the strategy honours), local improvements of
the best plan so far that fit the budget (a budgeted solve is the memory
price's search and its crossover: on the GPT example's step under half its
replicated peak, six solves took 46 s, two solves and their refinements
10 s, and found a cheaper plan).  A third start from the middle, ``s = 1/2``, once found a
plan both ends' fixed points missed (the MLP training step on a 2x4 mesh
with a fixed cost per launch of 0.7 ms: 13.4 ms modeled against 13.9 ms),
but on the examples it found nothing the two ends did not; it is no longer
tried.  Scales within ``SAME_SCALE`` of one already planned are not planned
again.

Either keeps the plan cheapest under the combined model, a near tie going
to the one that keeps work split (``split_work``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sbpc.propagation.combined_cost import CombinedCost
from sbpc.propagation.plan import Deferred, Plan

STARTS = (1.0, 0.0)  # the plain model first, then latency free
ROUNDS_PER_START = 2  # replans after each start (so at most 6 plans)
SAME_SCALE = 0.05  # a scale this close to one planned is not planned again
REFINES = 4  # rounds of local improvement after the plain plan (the default)
# A round whose every new plan costs no less than the best and more by at
# most this share of the best plan's communication ends the refinement: its
# improvements came back to the best plan's neighbourhood (measured against
# the communication, which is what a refinement changes: on a step whose
# compute dwarfs it, a share of the total hides plans of far fewer bytes).
# On Mixtral-8x7B at full depth the latency-free round's plan was dearer by
# 0.2% of the communication (0.07% of the step), and two more rounds (5 s
# of 35) found plans as close; on the MoE layer with index dispatch (dp)
# it was 14% (0.44% of the step), and the descent after it found the plan
# kept, with a third fewer bytes; on the MLP training step (2d), 98%.
SETTLED = 5e-3
DESCENT = 4  # a stalled refinement tries a quarter of the least scale tried
# Plans whose modeled times differ by less than this share are a tie: the
# model's error.  Calibrations of one machine a day apart moved a plan's
# modeled time by more (docs/performance.md), and two plans it priced 3-4%
# apart ran in the other order (``mlp`` dp: 780 against 812 us, measured
# 1.15-1.21x the other way; ``gpt`` 2d: 536 against 550 us, 1.04x).
TOLERANCE = 0.05
# The fewest-bytes reference plan is solved with every byte this many times
# dearer: bytes decide it, compute and latency only break its ties.
BYTES_DEARER = 1e3
# ... within this many seconds, else the report goes without it: at full
# depth its LP can take many times the plan's own (bytes priced alone
# leave many plans tied: a degenerate LP; Llama-3-70B's two layers with
# the tensor-parallel layouts pinned: over 14 minutes against 57 s).
REFERENCE_SECONDS = 30.0


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
    refine: Callable[[float, Plan], list[Plan]] | None = None,
) -> tuple[Candidate, list[Candidate]]:
    """The cheapest plan under combining, and every candidate tried.

    ``solve(s)`` plans with every link latency times ``s``; ``price`` prices
    a plan's communication with combining.  Scales already tried (to
    ``SAME_SCALE``) are not planned again.  Ties keep the earlier candidate
    (the plain model).

    ``refine(s, plan)``, when given, makes each start's later rounds: local
    improvements of the best plan so far at the scale the last round's
    best leaves, in place of solving that scale again.  The starts are
    always solved (a start refined from the other's plan is no exact
    solve: the latency-free plan that fits a budget is reached from the
    plain one by no local move), and a round that finds no new plan ends
    its start.  Under a memory budget a solve is the memory price's search
    and its crossover, many times a refinement
    (docs/planning-time.md, session 22)."""
    tried: list[Candidate] = []
    solved: list[float] = []
    for start in STARTS:
        if any(abs(s - start) < SAME_SCALE for s in solved):
            continue
        scale: float | None = start
        for k in range(rounds_per_start + 1):
            if k > 0 and (
                scale is None or any(abs(c.scale - scale) < SAME_SCALE for c in tried)
            ):
                break
            assert scale is not None
            if k == 0 or refine is None:
                plans = [solve(scale)]
                solved.append(scale)
            else:
                best = min(tried, key=lambda c: c.total_time)
                plans = [
                    p
                    for p in refine(scale, best.plan)
                    if all(p.options != c.plan.options for c in tried)
                ]
            found = [Candidate(scale, p, price(p)) for p in plans]
            if not found:
                break
            tried += found
            scale = min(found, key=lambda c: c.total_time).cost.latency_scale
    return split_work(tried), tried


def refine_with_combining(
    solve: Callable[[float], Plan],
    refine: Callable[[float, Plan], list[Plan]],
    price: Callable[[Plan], CombinedCost],
    rounds: int = REFINES,
) -> tuple[Candidate, list[Candidate]]:
    """The default search: one plan at ``s = 1`` (``solve``), then up to
    ``rounds`` of ``refine(s, best)`` (local improvements of the best plan
    so far at scale ``s``, each priced as a candidate): first latency free
    (``s = 0``; where the reductions leave no core, as in forward passes,
    that is the exact plan there), then at the share of latency the best
    plan leaves, as in ``search_with_combining``.  When that share comes
    back (to ``SAME_SCALE``) the search descends instead, to a quarter of
    the least positive scale tried (a plan of many combinable collectives
    is found at a low scale, which a plan of few uncombined ones never
    points to), and stops once that is below ``SAME_SCALE``."""
    price = priced_once(price)
    plan = solve(1.0)
    tried = [Candidate(1.0, plan, price(plan))]
    scales = [1.0]
    for k in range(rounds):
        best = min(tried, key=lambda c: c.total_time)
        scale = 0.0 if k == 0 else next_scale(scales, best.cost.latency_scale)
        if scale is None:
            break
        scales.append(scale)
        found = [
            Candidate(scale, p, price(p))
            for p in refine(scale, best.plan)
            if all(p.options != c.plan.options for c in tried)
        ]
        tried += found
        settled = best.total_time + SETTLED * best.cost.comm_time
        if found and all(best.total_time <= c.total_time <= settled for c in found):
            break  # the round came back to the best plan's cost
    return split_work(tried), tried


def next_scale(scales: list[float], share: float) -> float | None:
    """The scale of ``refine_with_combining``'s next round after the
    ``scales`` tried, when the best plan so far leaves ``share`` of its
    latency: that share, or where it was tried, a quarter of the least
    positive scale tried; None when that is as good as latency free."""
    if all(abs(s - share) >= SAME_SCALE for s in scales):
        return share
    scale = min(s for s in scales if s > 0) / DESCENT
    return None if scale < SAME_SCALE else scale


def later_scales(share: float, rounds: int = REFINES) -> list[float]:
    """The scales of ``refine_with_combining``'s rounds after the
    latency-free one when the strategy's plan, which leaves ``share`` of
    its latency, stays the best (on the library decoders, every round): the
    scales whose problems are worth building before they are asked for."""
    scales = [1.0, 0.0]
    for _ in range(rounds - 1):
        scale = next_scale(scales, share)
        if scale is None:
            break
        scales.append(scale)
    return scales[2:]


def priced_once(
    price: Callable[[Plan], CombinedCost],
) -> Callable[[Plan], CombinedCost]:
    """``price``, computed once per distinct options: a round's two starts
    often end on one plan (on every library decoder of
    ``bench/planning_time.py``, the latency-free round's), and a plan's
    combined price reads only its options (its layout changes and compute
    follow from them), so the second is the first's price."""
    known: dict[tuple[int, ...], CombinedCost] = {}

    def once(plan: Plan) -> CombinedCost:
        key = tuple(plan.options)
        found = known.get(key)
        if found is None:
            found = known[key] = price(plan)
        return found

    return once


def split_work(tried: list[Candidate]) -> Candidate:
    """The cheapest candidate, unless one within ``TOLERANCE`` of it (the
    model's error) keeps work split: its compute per device is less than
    the cheapest's by more than that error of the compute itself.  Then the
    cheapest of those (ties: least peak memory, then the earlier).

    A near tie then does not flip with calibration noise towards a plan
    that replicates work to save a collective (replicated work costs a
    multiple of the split work, far beyond 5%), and no plan is kept over a
    cheaper one for a compute saving within the model's error.  The rule
    before kept the least compute however small the saving: ``mixer_train``
    2d, a plan priced 2.8% dearer for 73 us less of 4.6 ms compute, moved
    more bytes than XLA's and ran no faster than the cheapest did;
    ``mlp_train`` tp, 4.8% dearer for 31 us of 2.1 ms, ran 1.10x XLA's step
    where the cheapest was XLA's own program (docs/performance.md)."""
    cheapest = min(tried, key=lambda c: c.total_time)
    close = [c for c in tried if c.total_time <= cheapest.total_time * (1 + TOLERANCE)]
    split = min(c.plan.compute_time for c in close) * (1 + TOLERANCE)
    if cheapest.plan.compute_time <= split:
        return cheapest  # no saving beyond the error: the model's ranking
    close = [c for c in close if c.plan.compute_time <= split]
    best = min(c.total_time for c in close)
    tied = [c for c in close if c.total_time <= best * (1 + 1e-9)]
    if len(tied) == 1:  # no tie to break: its peak memory is not computed
        return tied[0]
    return min(tied, key=lambda c: c.plan.peak_memory)


def combined_plan(
    best: Candidate,
    tried: list[Candidate],
    repriced: Plan,
    reference: Callable[[], Candidate | None] | None = None,
) -> Plan:
    """``repriced`` (``best``'s options priced by the real model, latency per
    collective) with its communication priced combined, and the search's
    stats; ``reference``: the fewest-bytes plan (``combining_stats``)."""
    stats = {
        **repriced.stats,
        **combining_stats(best, tried, repriced.comm_time, reference),
    }
    return replace(repriced, comm_time=best.cost.comm_time, stats=stats)


def combining_stats(
    best: Candidate,
    tried: list[Candidate],
    uncombined: float,
    reference: Callable[[], Candidate | None] | None = None,
) -> dict[str, Any]:
    """What the report says about the search: rounds, scales, and any trade.

    A *trade* is a chosen plan that moves more bytes than the fewest-bytes
    plan: it buys less compute, less memory or fewer (combined) collectives
    with those bytes, and the report says which.  ``reference()``: the plan
    of fewest bytes (solved with bytes ``BYTES_DEARER`` times dearer),
    solved when the report is read (a ``Deferred``: planning does not wait
    on it), unless the chosen plan moves no bytes.  Without it, the fewest
    bytes among ``tried``, which named a trade only when the search happened
    to try a plan of fewer bytes: the same plan was a trade under one
    calibration and not the next (``moe_einsum`` 2d, docs/performance.md).
    """
    stats: dict[str, Any] = {
        "combining_plans": len(tried),
        "latency_scale": round(best.scale, 4),
        "collectives": best.cost.collectives,
        "combined_collectives": best.cost.groups,
        "uncombined_comm_time": uncombined,
    }
    # The strategy's own plan (the first tried, plain model) and the gap it
    # proved there, when the plan kept is another (a local improvement).
    plain = tried[0].plan.stats.get("gap")
    if best is not tried[0] and isinstance(plain, int | float):
        stats["strategy_gap"] = plain
    if reference is not None and _bytes(best) > 0:
        stats["trade"] = Deferred(lambda: _trade([*tried, reference()], best))
    elif trade := _trade(tried, best):
        stats["trade"] = trade
    cheapest = min(tried, key=lambda c: c.total_time)
    if cheapest.total_time < best.total_time:
        stats["tolerance"] = tie_text(best, cheapest)
    return stats


def _trade(plans: list[Candidate | None], best: Candidate) -> str | None:
    """``trade_text`` against the plan of fewest bytes in ``plans`` (ties:
    the cheaper; None: a reference that could not be solved), None when
    ``best`` moves no more."""
    fewest = min(
        (c for c in plans if c is not None), key=lambda c: (_bytes(c), c.total_time)
    )
    return trade_text(best, fewest) if _bytes(best) > _bytes(fewest) else None


# What a plan may buy with more bytes: (how to say it, how to measure it).
_GAINS: tuple[tuple[str, Callable[[Candidate], float]], ...] = (
    ("{:.1f} us less compute", lambda c: c.plan.compute_time * 1e6),
    ("{:.0f} B less peak memory per device", lambda c: c.plan.peak_memory),
    ("{} fewer collectives after combining", lambda c: c.cost.groups),
    ("{:.1f} us less communication", lambda c: c.cost.comm_time * 1e6),
)


def tie_text(kept: Candidate, cheapest: Candidate) -> str:
    """One line saying why ``kept`` won over the cheaper ``cheapest``."""
    above = kept.total_time / cheapest.total_time - 1
    bought = _bought(kept, cheapest, _GAINS[:2])  # compute, memory
    return (
        f"kept a plan modeled at {kept.total_time * 1e6:.1f} us over one at "
        f"{cheapest.total_time * 1e6:.1f} us ({above:.1%} more, within the "
        f"model's error of {TOLERANCE:.0%}) for "
        + (" and ".join(bought) or "an equal share of work")
    )


def trade_text(best: Candidate, fewest: Candidate) -> str:
    """One line naming what ``best`` buys with its extra bytes over ``fewest``."""
    bought = _bought(best, fewest)
    return (
        f"moves {_bytes(best):.0f} B per device where another plan moves "
        f"{_bytes(fewest):.0f} B, for {', '.join(bought) or 'an equal modeled time'}"
        f" (modeled {best.total_time * 1e6:.1f} us against "
        f"{fewest.total_time * 1e6:.1f} us)"
    )


def _bought(
    kept: Candidate,
    other: Candidate,
    gains: tuple[tuple[str, Callable[[Candidate], float]], ...] = _GAINS,
) -> list[str]:
    """What ``kept`` saves over ``other``, in ``gains``' words."""
    return [
        text.format(less)
        for text, measure in gains
        if (less := measure(other) - measure(kept)) > 0
    ]


def _bytes(c: Candidate) -> float:
    return c.plan.total_bytes or 0.0
