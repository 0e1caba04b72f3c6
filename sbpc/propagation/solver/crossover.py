"""Crossing a memory price's plans: the exact program where they disagree.

A memory price (``memory_price``) is one number for the whole plan, and
between the last price whose plan is over the budget and the first whose
plan fits no price gives a plan (a Lagrangian's duality gap): on
Llama-3-70B's scanned step the cheapest plan that fits was 0.02% above
Megatron's layout pinned.  The plans the search met hold the parts of a
better one: the budgeted integer program (``Ilp`` with ``memory_rows``),
with every node cut to the labels those plans give it, is small (a node
where they all agree is fixed; on the 70B 473 of 1,413 nodes stay free,
each with two to four labels) and solves in seconds where the whole one
does not solve in minutes.  This is the crossover of MIP solvers (SCIP's
``crossover`` heuristic: fix what good solutions share, solve the rest
exactly), with the rows' estimate checked against the exact model
(``plan_memory``) as the optimal strategy's refinement does.

Deterministic: the branch and bound is bounded by its nodes
(``MAX_NODES``), not by a clock; a caller's deadline still cuts it short.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from sbpc.propagation.memory_rows import MemoryRows
from sbpc.propagation.solver.ilp import Ilp
from sbpc.propagation.solver.pairwise import PairwiseProblem, condition, restrict, saves

# Branch-and-bound nodes per solve (the 70B's solves at its root).
MAX_NODES = 2_000
# Strong branching before each pseudo-cost is trusted (HiGHS's default):
# off.  The GPT example's step under half its replicated peak crossed five
# times, each a MIP of 5,006 columns, 5,731 rows and 5-37 nodes: 24.0 s
# with it, 15.5 s without, the same five optima (and the same seven on a
# flax decoder's step, 9.5 against 7.4 s): docs/planning-time.md.
RELIABLE_BRANCHING = False
# Solves after the first, each with the rows the exact model found low
# lowered (``Optimal._refine``'s step).
REFINE_ROUNDS = 3
# Free nodes, and entries of the rows written out (``MemoryRows.entries``),
# above which the program is not built: the unrolled 70B's plans disagree
# on 12,876 nodes, and its rows alone would take minutes to write out.
MAX_FREE = 5_000
MAX_ENTRIES = 5_000_000


@dataclass
class Crossed:
    """The crossover's answer: ``labels`` (every node) when it found a
    cheaper plan that fits, else None; what it did, for the stats."""

    labels: list[int] | None
    free: int
    solves: int
    why: str


def crossover(
    problem: PairwiseProblem,
    memory: MemoryRows,
    budget: float,
    best: Sequence[int],
    others: Sequence[Sequence[int]],
    held: Callable[[list[int]], Sequence[float]],
    rel_gap: float = 1e-7,
    threads: int | None = None,
    time_limit: Callable[[], float | None] = lambda: None,
) -> Crossed:
    """The cheapest plan within ``budget`` whose every node takes a label
    ``best`` or one of ``others`` gives it, when it costs less than
    ``best`` (which fits).

    ``problem``: the unpriced problem, its ``energy`` the cost; ``memory``:
    its rows; ``held(labels)``: the exact bytes held per half-step (the
    answer must fit them); ``time_limit()``: seconds left for a solve
    (None: no limit)."""
    kept = [
        np.unique([best[v], *(other[v] for other in others)])
        if problem.alive[v]
        else np.array([best[v]])
        for v in range(len(problem))
    ]
    free = [v for v in range(len(problem)) if len(kept[v]) > 1]
    if not free:
        return Crossed(None, 0, 0, "the plans agree")
    if len(free) > MAX_FREE:
        return Crossed(None, len(free), 0, f"more than {MAX_FREE} free nodes")
    rows = memory.restricted(kept)
    if rows.entries > MAX_ENTRIES:
        return Crossed(None, len(free), 0, f"rows of more than {MAX_ENTRIES} entries")
    fixed = {v: 0 for v in range(len(problem)) if len(kept[v]) == 1}
    ilp = Ilp(condition(restrict(problem, kept), fixed), free, rows, budget)
    start = [int(np.searchsorted(kept[v], best[v])) for v in free]
    # ``best`` fits the exact model, so it is a plan of every program
    # solved here: a row it exceeds (the rows only estimate) is raised to
    # what it holds there, and a row is lowered at most to that.
    room = [budget - b for b in rows.values(dict(zip(free, start, strict=True)))]
    ilp.tighten({r: gap for r, gap in enumerate(room) if gap < 0})
    room = [max(gap, 0.0) for gap in room]
    cost = problem.energy(best)
    for solves in range(1, REFINE_ROUNDS + 2):
        result = ilp.solve(
            time_limit(),
            rel_gap,
            threads,
            start,
            MAX_NODES,
            reliable_branching=RELIABLE_BRANCHING,
        )
        if result.labels is None:
            return Crossed(None, len(free), solves, result.status)
        labels = list(best)
        for v, label in zip(free, result.labels, strict=True):
            labels[v] = int(kept[v][label])
        if not saves(problem.energy(labels), cost):
            return Crossed(None, len(free), solves, "no cheaper plan")
        exact = held(labels)
        if max(exact) <= budget:
            return Crossed(labels, len(free), solves, "a cheaper plan")
        # over the budget where the rows said it fits: lower those rows
        estimate = rows.values(dict(zip(free, result.labels, strict=True)))
        gaps = rows.shortfalls(exact, estimate, budget)
        gaps = {
            r: min(gap, room[r]) for r, gap in gaps.items() if min(gap, room[r]) > 0
        }
        if not gaps:
            return Crossed(None, len(free), solves, "the rows cannot tell it")
        for r, gap in gaps.items():
            room[r] -= gap
        ilp.tighten(gaps)
    return Crossed(None, len(free), REFINE_ROUNDS + 1, "over the budget")
