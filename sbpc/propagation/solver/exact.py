"""A pairwise problem solved exactly: the shrink, then the core's LP.

The local-polytope LP of what the exact reductions leave (``shrink``),
solved by HiGHS (``ilp``): its optimum is the integer program's when it is
integral, a bound when not (then the MIP's labels).  A large core is solved
one connected component at a time.  The optimal strategy and the searches
that need an exact sub-plan (the repeated layers' residual and replicated
copies, the improvement's block sweeps, the lower bounds) all solve here.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence
from functools import partial

import highspy

from sbpc.propagation.solver.content_memo import ContentMemo
from sbpc.propagation.solver.idle_work import Ahead, queued
from sbpc.propagation.solver.ilp import Ilp
from sbpc.propagation.solver.pairwise import (
    PairwiseProblem,
    components,
    lp_columns,
    subproblem,
)
from sbpc.propagation.solver.shrink import (
    Record,
    drain,
    expand,
    prune_dominated,
    shrink_steps,
)

# A core whose LP would have more columns than this (a 2-D mesh's factor
# tables times tens of layers: 745k columns for 4 layers of Llama-3-70B on
# 8 x 8, most of a minute per solve) keeps the repeated layers' plan when
# its proven gap is at most ``LARGE_CORE_GAP``, rather than solving the
# whole LP; smaller cores are solved to the strategy's own gap.
LARGE_CORE_COLUMNS = 250_000
# A core whose LP has more columns is solved one connected component at a
# time (the two ends of Mixtral-8x7B's repeated layers: 640,069 columns,
# 20.4 s whole and 12.1 s apart at load 5).
SPLIT_COLUMNS = 50_000
LARGE_CORE_GAP = 1e-2


def shrink_all(
    pairwise: PairwiseProblem,
    frozen: set[int],
    prune: bool = True,
    memo: ContentMemo | None = None,
) -> list[Record]:
    """The exact reductions to their fixed point; the records to expand.

    ``memo``: steps met before are reused (``content_memo``; one is made
    when none is given; pass one to share it between problems)."""
    return drain(shrink_all_steps(pairwise, frozen, prune, memo))


def shrink_all_steps(
    pairwise: PairwiseProblem,
    frozen: set[int],
    prune: bool = True,
    memo: ContentMemo | None = None,
) -> Generator[None, None, list[Record]]:
    """``shrink_all`` in steps (``shrink.shrink_steps``); returns the records."""
    memo = ContentMemo() if memo is None else memo
    records = yield from shrink_steps(pairwise, frozen, memo=memo)
    while prune and (pruned := prune_dominated(pairwise, frozen, memo)):
        records += pruned
        # only relabelled nodes and their neighbours can shrink further
        records += yield from shrink_steps(
            pairwise, frozen, start=pairwise.touched, memo=memo
        )
    return records


def solve_exact(
    problem: PairwiseProblem,
    rel_gap: float,
    threads: int | None,
    prune: bool = True,
    time_limit: float | None = None,
) -> tuple[list[int], float] | None:
    """(labels of every node, a lower bound on the optimum) of a problem
    with no memory budget: shrink, then the LP; when the LP is fractional,
    the MIP's labels and no bound (``-inf``: nothing is certified by it).
    None when HiGHS finds no labelling.  ``prune``: drop dominated labels too;
    ``time_limit``: seconds per HiGHS solve (the MIP's labels then unproven)."""
    records = shrink_all(problem, set(), prune)
    core = [v for v in range(len(problem)) if problem.alive[v]]
    solved = core_lp(problem, core, rel_gap, threads, time_limit)
    return None if solved is None else expanded(problem, core, records, *solved)


def core_lp(
    problem: PairwiseProblem,
    core: list[int],
    rel_gap: float,
    threads: int | None,
    time_limit: float | None,
    rounded_gap: float | None = None,
) -> tuple[list[int], float] | None:
    """(labels of ``core``, a lower bound on the optimum): the LP, or when it
    is fractional the MIP's labels and no bound (``-inf``); None when HiGHS
    finds no labelling.  A core of more than ``SPLIT_COLUMNS`` columns is
    solved one connected component at a time (each with ``time_limit``),
    its bound the sum of theirs.  ``rounded_gap``: a fractional LP's
    rounding kept within it of the bound, no MIP (``Ilp._integral_result``)."""
    if not core:
        return [], problem.constant
    large = lp_columns(problem, core) > SPLIT_COLUMNS
    parts = components(problem, core) if large else [core]
    if len(parts) > 1:  # each apart: HiGHS is faster on the parts than the whole
        # The later parts are solved while the first one's LP runs, each
        # LP beside the next (``idle_work``); so all are solved even when
        # one has no labelling (then the whole has none: rare, and None).
        solves = [
            Ahead(
                partial(
                    core_lp,
                    subproblem(problem, part),
                    list(range(len(part))),
                    rel_gap,
                    threads,
                    time_limit,
                    rounded_gap,
                )
            )
            for part in parts
        ]
        with queued(*solves[1:]):
            solves[0].run()
        labels: dict[int, int] = {}
        bound = problem.constant
        for part, ahead in zip(parts, solves, strict=True):
            solved = ahead.result()
            if solved is None:
                return None
            labels.update(zip(part, solved[0], strict=True))
            bound += solved[1]
        return [labels[v] for v in core], bound
    ilp = Ilp(problem, core, None, None)
    result = ilp.solve_relaxation(time_limit, rel_gap, threads, rounded_gap=rounded_gap)
    if result is not None:  # integral or rounded: its bound is the LP's optimum
        objective = result.stats["objective"]
        bound = objective - result.stats["gap"] * abs(objective)
    else:
        result = ilp.solve(time_limit, rel_gap, threads)
        bound = -math.inf
    return None if result.labels is None else (result.labels, bound)


def expanded(
    problem: PairwiseProblem,
    core: list[int],
    records: list[Record],
    core_labels: list[int],
    bound: float,
) -> tuple[list[int], float]:
    """(labels of every node, ``bound``) from the core's, through the shrink."""
    return every_label(problem, core, records, core_labels), bound


def every_label(
    problem: PairwiseProblem,
    core: list[int],
    records: list[Record],
    core_labels: Sequence[int],
) -> list[int]:
    """Every node's label from the core's, through the shrink (``expand``)."""
    labels = [0] * len(problem)
    for v, label in zip(core, core_labels, strict=True):
        labels[v] = label
    expand(records, labels)
    return labels


def accepted_gap(
    problem: PairwiseProblem, core: Sequence[int], rel_gap: float
) -> float:
    """The proven gap at which the repeated layers' plan is kept."""
    if lp_columns(problem, core) > LARGE_CORE_COLUMNS:
        return max(rel_gap, LARGE_CORE_GAP)
    return rel_gap


def solved_relaxation(
    problem: PairwiseProblem, core: list[int], time_limit: float | None
) -> tuple[highspy.Highs, float]:
    """HiGHS after the LP relaxation over ``core``, and its objective's scale."""
    ilp = Ilp(problem, core, None, None)
    ilp.solve_relaxation(time_limit, 0.0, None)
    return ilp.relaxed, ilp.scale
