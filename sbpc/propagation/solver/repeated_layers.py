"""The optimal strategy through a model's repeated layers.

Find the copies of one layer (``layers.find_copies``); solve the LP of a
window around the middle copy; its duals, as messages, bound the factors
inside every copy (``bound.copy_messages``); what they leave (the residual:
the factors between and around the copies) is solved exactly for a lower
bound of the whole core.  The plan replicates the middle copy's labels.
The residual's bound may be computed beside the caller's search
(``later_proof``): the plan is known before its proof.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import highspy

from sbpc.propagation import progress
from sbpc.propagation.solver import exact
from sbpc.propagation.solver.bound import (
    Messages,
    copy_messages,
    covered_factors,
    residual,
    restrict,
    window,
)
from sbpc.propagation.solver.exact import shrink_all, solve_exact
from sbpc.propagation.solver.idle_work import Ahead, Background, queued
from sbpc.propagation.solver.ilp import Ilp, IlpResult, percent
from sbpc.propagation.solver.later_proof import (
    PROOF_KEY,
    PendingProof,
    ProofFailed,
)
from sbpc.propagation.solver.layers import Copies, find_copies
from sbpc.propagation.solver.pairwise import PairwiseProblem, condition
from sbpc.timing import phase

# Clustering: the window around the middle copy reaches this many factors
# beyond it (the next width is tried while the plan is not proven: a narrow
# window's edges can pull its middle copy's labels away from the optimum's);
# its LP's duals are kept this exact (they become messages); it is tried
# only when the copies' inner factors are this share of the core.
WINDOW_HOPS = (2, 4, 8)
# A plan kept without a bound (``accept`` infinite: the memory price's) has
# no gap to widen its window by, so it takes the middle width at once: on
# Llama-3-70B's priced problems, copies trimmed of the end layers
# (``layers.find_copies``) hold 60% more parts, and their middle copy
# labelled from a window of 2 hops cost 7% more, from 4 within 1e-5 of
# what the untrimmed copies gave.
PRICED_WINDOW_HOPS = (4,)
WINDOW_DUAL_TOLERANCE = 1e-10
MIN_COVERED = 0.25


def clustered(
    pairwise: PairwiseProblem,
    core: list[int],
    rel_gap: float,
    threads: int | None,
    accept: float | None = None,
    min_covered: float = MIN_COVERED,
    prove: bool = True,
    later: bool = False,
) -> IlpResult:
    """The core's optimum through its repeated layers, when they prove it.

    Find the copies of one layer (``layers.find_copies``); solve the LP of
    a window around the middle copy; give its duals, as messages, to the
    factors inside every copy (``bound.copy_messages``, away from each
    copy's edge); solve what the messages leave exactly (``bound.residual``:
    the factors between and around the copies) for a lower bound of the
    whole core.  The plan: the middle copy's labels in every copy but the
    first and last, the other nodes solved with those fixed.  A window too
    narrow can mislead its middle copy: wider ones (``WINDOW_HOPS``) are
    tried in turn.  Proven when its cost meets the
    bound within ``rel_gap``; kept, unproven, with its gap in the stats,
    when within ``accept`` (default ``rel_gap``); otherwise the result has
    no labels and its ``cluster`` stat says why (then the caller solves the
    whole core).  Tried only when the copies' inner factors are at least
    ``min_covered`` of the core's.  ``prove``: a bound its residual's own
    copies left above ``rel_gap`` is tightened by the residual's LP; off,
    only one above ``accept`` (a plan kept within ``accept`` needs no
    proof: the memory price's, where that LP took most of a price's time).
    An infinite ``accept`` keeps the plan unbounded: no residual is solved.
    """
    accept = rel_gap if accept is None else accept
    with phase("find layers"):
        copies = find_copies(pairwise, core)
        covered = covered_factors(pairwise, copies) if copies else set()
    stats: dict = {
        "cluster_copies": copies.count if copies else 0,
        "cluster_parts": len(copies.tuples) if copies else 0,
        "cluster_covered_factors": len(covered),
    }
    if copies is None or len(covered) < min_covered * len(pairwise.factors):
        return _declined("too few repeated factors", stats)
    started = time.perf_counter()
    for hops in WINDOW_HOPS if math.isfinite(accept) else PRICED_WINDOW_HOPS:
        stats["cluster_window_hops"] = hops
        result = _clustered_at(
            pairwise,
            core,
            copies,
            covered,
            hops,
            (rel_gap, accept, rel_gap if prove else accept),
            threads,
            stats,
            later and hops == WINDOW_HOPS[0],
        )
        stats["seconds_cluster"] = time.perf_counter() - started
        if result is not None:
            return result
    return _declined(stats.pop("cluster_why"), stats)


def _clustered_at(
    pairwise: PairwiseProblem,
    core: list[int],
    copies: Copies,
    covered: set[tuple[int, int]],
    hops: int,
    gaps: tuple[float, float, float],
    threads: int | None,
    stats: dict,
    later: bool = False,
) -> IlpResult | None:
    """``clustered`` with a window of ``hops``: the result within
    ``accept`` of its bound, or None (``stats["cluster_why"]`` says why).
    ``gaps``: (``rel_gap``, ``accept``, the gap above which a bound from
    the residual's copies is tightened by its LP).  ``later``: the bound is
    computed beside the caller's search and the result's stats hold its
    ``PendingProof`` (``later_proof``), which fails where this would have
    returned None."""
    rel_gap, accept, _ = gaps
    started = time.perf_counter()
    with phase("window lp"):
        # the memory price's plans (``accept`` infinite) read no duals
        nodes, relaxed, messages = _window_messages(
            pairwise, copies, covered, rel_gap, threads, hops, math.isfinite(accept)
        )
    stats["cluster_window_nodes"] = len(nodes)
    if relaxed is None or messages is None:
        stats["cluster_why"] = "window LP not integral"
        return None
    source = dict(zip(nodes, relaxed.labels, strict=True))
    # The stack's first and last copies meet what comes before and after it
    # and may want other labels than its middle: they are solved exactly
    # with the rest (a superset of the plans replicating into every copy,
    # so never costlier; on a flax decoder with free parameters the ends
    # alone made the difference between a 2e-5 gap and proven).
    # (left out of ``copies`` already when it was ``trimmed``)
    ends = copies.count > 2 and not copies.trimmed
    inner = range(1, copies.count - 1) if ends else range(copies.count)

    def replicate() -> list[int] | None:
        with phase("replicate"):
            return _replicated(pairwise, copies, source, inner, rel_gap, threads)

    if later and math.isfinite(accept):
        return _proven_later(
            pairwise, core, messages, replicate, gaps, threads, stats, hops
        )
    # The plan and the bound read the window's answer, not each other: the
    # plan is made while the residual's LP runs (``idle_work``).
    replicated = Ahead(replicate)
    if math.isfinite(accept):
        with phase("residual"), queued(replicated):
            rest, covered_min = residual(pairwise, messages)
            rest_bound, by_copies = _residual_bound(rest, rel_gap, threads)
    labels = replicated.result()
    if labels is None:
        stats["cluster_why"] = "no plan found"
        return None
    energy = pairwise.energy(labels)
    if not math.isfinite(accept):  # any plan kept: no bound asked for
        if not math.isfinite(energy):
            stats["cluster_why"] = "no plan of finite cost"
            return None
        stats.update(objective=energy, gap=math.inf, proven=False)
        stats.update(status="repeated layers, not bounded", cluster="not bounded")
        return IlpResult([labels[v] for v in core], energy, stats["status"], stats)
    proof = _finish_proof(
        pairwise, messages, energy, (rest, covered_min, rest_bound, by_copies),
        gaps, threads, stats, hops, started,
    )  # fmt: skip
    if proof is None:
        return None
    stats.update(proof)
    return IlpResult([labels[v] for v in core], energy, stats["status"], stats)


def _proven_later(
    pairwise: PairwiseProblem,
    core: list[int],
    messages: Messages,
    replicate: Callable[[], list[int] | None],
    gaps: tuple[float, float, float],
    threads: int | None,
    stats: dict,
    hops: int,
) -> IlpResult | None:
    """``_clustered_at``'s result with its bound still computing: the
    residual's bound in a helper thread (``idle_work.Background``) while
    the plan is made here, the rest of the proof (``_finish_proof``) when
    the caller settles it."""
    started = time.perf_counter()
    rel_gap = gaps[0]

    def bound() -> tuple[PairwiseProblem, float, float, bool]:
        rest, covered_min = residual(pairwise, messages)
        return (rest, covered_min, *_residual_bound(rest, rel_gap, threads))

    bounding = Background(bound, "sbpc-proof")
    bounding.solving()  # its Python alone, then its LP beside the plan's
    labels = replicate()
    if labels is None:  # the next window is tried: no bound left running
        bounding.result()
        stats["cluster_why"] = "no plan found"
        return None
    energy = pairwise.energy(labels)
    own = dict(stats)  # the stats as they are now: the settled proof's own

    def finish() -> dict:
        proof = _finish_proof(
            pairwise, messages, energy, bounding.result(), gaps, threads, own,
            hops, started,
        )  # fmt: skip
        if proof is None:
            raise ProofFailed(own.get("cluster_why", "not proven"))
        return proof

    stats.update(objective=energy, status="repeated layers, proof pending")
    stats[PROOF_KEY] = PendingProof(finish)
    return IlpResult([labels[v] for v in core], energy, stats["status"], stats)


def _finish_proof(
    pairwise: PairwiseProblem,
    messages: Messages,
    energy: float,
    bounded: tuple[PairwiseProblem, float, float, bool],
    gaps: tuple[float, float, float],
    threads: int | None,
    stats: dict,
    hops: int,
    started: float,
) -> dict | None:
    """The stats a plan of cost ``energy`` adds once its residual is
    ``bounded`` (the residual, its covered factors' minima, its bound and
    whether its own copies gave it): its gap, proven or kept; None when the
    gap is over ``accept`` (``stats["cluster_why"]`` says why)."""
    rel_gap, accept, tighten = gaps
    rest, covered_min, rest_bound, by_copies = bounded
    gap = _gap(energy, pairwise.constant + covered_min + rest_bound)
    if by_copies and gap > tighten:
        # the residual's own copies bounded it too loosely: its exact LP
        with phase("residual"):
            rest, _ = residual(pairwise, messages)
            solved = solve_exact(rest, rel_gap, threads)
        rest_bound = -math.inf if solved is None else solved[1]
        gap = _gap(energy, pairwise.constant + covered_min + rest_bound)
        by_copies = False
    out: dict = {
        "cluster_residual_bound": "its own copies" if by_copies else "its LP",
        "cluster_residual_factors": len(rest.factors),
        "objective": energy,
        "gap": gap,
    }
    progress.current().done(
        f"optimal: clustered ({hops} hops)",
        time.perf_counter() - started,
        f"gap {percent(gap)}",
    )
    if not math.isfinite(energy) or gap > accept:
        stats.update(
            cluster_residual_bound=out["cluster_residual_bound"],
            cluster_residual_factors=out["cluster_residual_factors"],
            cluster_gap=gap,
            cluster_why=f"gap {percent(gap)} above mip_rel_gap",
        )
        return None
    if gap <= rel_gap:
        out["status"] = "Optimal (repeated layers, certified)"
        out.update({"proven": True, "cluster": "proven"})
    else:  # a large core: its whole LP would cost minutes
        out["status"] = f"repeated layers, within {percent(gap)} of optimal"
        out.update({"proven": False, "cluster": f"kept at gap {percent(gap)}"})
    for narrower in ("cluster_gap", "cluster_why"):  # a narrower window's
        stats.pop(narrower, None)
    return out


def _replicated(
    pairwise: PairwiseProblem,
    copies: Copies,
    source: dict[int, int],
    which: range,
    rel_gap: float,
    threads: int | None,
) -> list[int] | None:
    """Labels of every node: the middle copy's (``source``) in each copy of
    ``which``, every other node solved exactly with those fixed (None when
    HiGHS finds no labelling)."""
    middle = copies.count // 2
    fixed = {part[k]: source[part[middle]] for part in copies.tuples for k in which}
    plan = solve_exact(condition(pairwise, fixed), rel_gap, threads)
    if plan is None:
        return None
    labels = plan[0]
    for v, label in fixed.items():
        labels[v] = label
    return labels


def _gap(energy: float, bound: float) -> float:
    """The relative gap of a plan's cost to a lower bound (a bound above
    the cost would be a numerical fault: counted as a gap, not a proof)."""
    if not math.isfinite(bound):
        return math.inf
    return abs(energy - bound) / max(abs(energy), 1e-300)


def _window_messages(
    problem: PairwiseProblem,
    copies: Copies,
    covered: set[tuple[int, int]],
    rel_gap: float,
    threads: int | None,
    hops: int = WINDOW_HOPS[0],
    exact_duals: bool = True,
) -> tuple[list[int], IlpResult | None, Messages | None]:
    """(the window around the middle copy, its LP's result when integral,
    its duals as messages for the ``covered`` factors of every copy; None
    when the LP has no optimum).  Messages need no integral LP: any
    messages give a valid bound.  ``exact_duals``: solve to
    ``WINDOW_DUAL_TOLERANCE`` (a tighter bound from the messages) unless
    the window's LP alone has more than ``LARGE_CORE_COLUMNS`` columns
    (then so has the core, whose plan is kept within ``LARGE_CORE_GAP``,
    not proven); off, or so large, HiGHS's own tolerance: on Mixtral-8x7B
    (329,000 columns) 2.7 s less, and its messages bounded the plan within
    0.17% (0.29% at 1e-10: the LP is degenerate, its duals many), while a
    flax stack's window of 118,000 columns proved its plan only at 1e-10."""
    middle = copies.count // 2
    nodes = window(problem, copies.nodes(middle), hops)
    ilp = Ilp(restrict(problem, nodes), nodes, None, None)
    precise = exact_duals and ilp.n_cols <= exact.LARGE_CORE_COLUMNS
    tolerance = WINDOW_DUAL_TOLERANCE if precise else None
    relaxed = ilp.solve_relaxation(None, rel_gap, threads, tolerance)
    if ilp.relaxed.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return nodes, None, None
    duals = copy_messages(problem, copies, middle, ilp.factor_duals())
    return nodes, relaxed, {key: duals[key] for key in covered if key in duals}


def _residual_bound(
    rest: PairwiseProblem, rel_gap: float, threads: int | None
) -> tuple[float, bool]:
    """(a lower bound of ``rest``'s optimum, whether its own copies gave it).

    The residual repeats too (the factors between consecutive layers): when
    it has copies of its own, the same window messages bound it, and only
    what they leave is solved exactly, a far smaller LP than ``rest``'s.
    That bound is valid whatever the messages, but may be loose: the
    caller then asks for the exact one.  Without copies: ``rest``'s LP
    (``-inf`` when HiGHS finds nothing)."""
    shrink_all(rest, set())
    core = [v for v in range(len(rest)) if rest.alive[v]]
    copies = find_copies(rest, core) if core else None
    covered = covered_factors(rest, copies) if copies else set()
    if copies is not None and len(covered) >= MIN_COVERED * len(rest.factors):
        _, _, messages = _window_messages(rest, copies, covered, rel_gap, threads)
        if messages is not None:
            inner, covered_min = residual(rest, messages)
            solved = solve_exact(inner, rel_gap, threads)
            if solved is not None:
                return rest.constant + covered_min + solved[1], True
    solved = solve_exact(rest, rel_gap, threads)
    return (-math.inf if solved is None else solved[1]), False


def _declined(why: str, stats: dict) -> IlpResult:
    """Clustering's answer when it proves nothing: no labels, and why."""
    stats["cluster"] = why
    return IlpResult(None, math.inf, why, stats)
