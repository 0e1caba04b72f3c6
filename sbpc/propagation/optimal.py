"""Globally optimal propagation: an Alpa-style integer program solved by HiGHS.

Model (over the pairwise problem, shrunk and with dominated labels pruned,
see ``shrink``):

- ``x[v, i]`` binary: node ``v`` takes label ``i``; ``sum_i x[v, i] = 1``;
- for every factor between ``a`` and ``b`` with grouped table ``T``:
  ``e[r, c] >= 0`` for each (row group, column group) pair with a finite
  cost, tied to the nodes by the marginal constraints
  ``sum_c e[r, c] = sum_{i in group r} x[a, i]`` and
  ``sum_r e[r, c] = sum_{j in group c} x[b, j]``.  With ``x`` integral they
  force ``e`` to the one pair chosen, so ``e`` needs no integrality; this is
  the local-polytope (marginalisation) linearisation, tighter than
  ``e >= x_a + x_b - 1``, and exact (integral) on trees;
- objective: unary costs (compute, folded edges) plus ``T[r, c] * e[r, c]``;
  infinite costs forbid their label or pair (upper bound 0);
- memory budget (optional): the linear part of the memory model
  (``memory_rows``) ``<= budget`` at every half-step where some buffer
  dies.  The rows estimate the exact model (``memory``), so a plan over the
  budget lowers the rows it exceeds by its gap and is solved again
  (``_refine``; else the plan of least peak, when it fits).  When no plan
  fits, the error names the exact peak of the plan of least peak under the
  rows (searched from greedy's plan within what ``time_limit`` left, else
  ``peak_seconds``): a budget that fits, not proven the least.  A budget
  below ``MemoryRows.floor`` fails without the first program.

Costs are scaled to O(1) for the solver and the gap tolerance is tight
(``mip_rel_gap``, default 1e-7), so "optimal" means proven optimal to that
relative precision; under a time limit the best plan found is returned with
HiGHS's proven gap in ``plan.stats``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import highspy
import numpy as np

from sbpc.propagation import progress
from sbpc.propagation.graph import PropagationError
from sbpc.propagation.greedy import Greedy
from sbpc.propagation.memory import plan_memory
from sbpc.propagation.memory_rows import MemoryRows
from sbpc.propagation.plan import complete_sinks
from sbpc.propagation.solver.bound import (
    Messages,
    copy_messages,
    covered_factors,
    residual,
    restrict,
    window,
)
from sbpc.propagation.solver.content_memo import ContentMemo
from sbpc.propagation.solver.layers import Copies, find_copies
from sbpc.propagation.solver.pairwise import PairwiseProblem, condition
from sbpc.propagation.solver.shrink import (
    Record,
    expand,
    prune_dominated,
    relabel_forward,
    shrink,
)
from sbpc.propagation.strategy import Choice, Problem, Strategy, budget_error
from sbpc.timing import phase

# Clustering: the window around the middle copy reaches this many factors
# beyond it (the next width is tried while the plan is not proven: a narrow
# window's edges can pull its middle copy's labels away from the optimum's);
# its LP's duals are kept this exact (they become messages); it is tried
# only when the copies' inner factors are this share of the core.
WINDOW_HOPS = (2, 4, 8)
WINDOW_DUAL_TOLERANCE = 1e-10
MIN_COVERED = 0.25
# Under a memory budget: how often a plan over the exact model's budget
# tightens the rows and solves again (``Optimal._refine``).
REFINE_ROUNDS = 8
_UNREFINED = "no plan within the budget after refining the memory rows"
# What a solve gets when the time limit is spent: HiGHS returns its start
# (greedy's plan) at once.
MIN_SOLVE_SECONDS = 1e-3
# What a solve may take: the seconds the time limit left (None: no limit).
Seconds = Callable[[], float | None]


@dataclass(frozen=True)
class Optimal(Strategy):
    """The plan of least total modeled time (communication + compute).

    ``Problem.memory_budget``: bytes per device the live values may take at
    once.  ``Problem.time_limit``: seconds for HiGHS; the plan may then be
    suboptimal, with ``stats["gap"]`` the proven relative gap.
    ``shrink_graph`` / ``prune_labels``: the exact reductions before the ILP
    (off only to measure or cross-check the ILP itself).  ``lp_first``:
    solve the LP relaxation first (dual simplex, no presolve: seconds where
    the MIP takes tens of them); the local-polytope relaxation is usually
    integral on these problems, and an integral LP optimum is a proven
    optimum of the integer program.  Otherwise the MIP runs as before.
    ``cluster``: without a budget or time limit, first solve one repeated
    layer and certify its copies with a bound of the whole core
    (``_clustered``); the whole core's LP runs only when that proves nothing.
    """

    name: ClassVar[str] = "optimal"
    honours_memory_budget: ClassVar[bool] = True

    shrink_graph: bool = True
    prune_labels: bool = True
    mip_rel_gap: float = 1e-7
    threads: int | None = None
    # Seconds for the smallest-budget search when the run has no time limit.
    peak_seconds: float = 20.0
    lp_first: bool = True
    # Solve one repeated layer and certify its copies (``_clustered``); off:
    # the LP of the whole core, as before.
    cluster: bool = True

    def choose(self, problem: Problem) -> Choice:
        started = time.perf_counter()
        graph, memory_budget, time_limit = (
            problem.graph,
            problem.memory_budget,
            problem.time_limit,
        )
        # ``time_limit`` bounds every HiGHS solve of this choice together:
        # each gets what the ones before it left (the smallest-budget search
        # included), so the choice ends within the limit whatever it solves.
        deadline = None if time_limit is None else started + time_limit

        def left() -> float | None:
            if deadline is None:
                return None
            return max(deadline - time.perf_counter(), MIN_SOLVE_SECONDS)

        with phase("pairwise problem"):
            pairwise = PairwiseProblem.from_graph(graph, problem.costs)
        built = time.perf_counter()
        memory = MemoryRows.of(graph) if memory_budget is not None else None
        frozen = memory.frozen if memory is not None else set()
        nodes_before = len(pairwise)
        factors_before = len(pairwise.factors)
        records: list[Record] = []
        if self.shrink_graph:
            with phase("shrink"):
                records = shrink_all(pairwise, frozen, self.prune_labels)
        core = [v for v in range(len(pairwise)) if pairwise.alive[v]]
        shrunk = time.perf_counter()
        report = progress.current()
        report.done(
            "optimal: pairwise problem", built - started, f"{nodes_before} nodes"
        )
        report.done("optimal: shrink", shrunk - built, f"core of {len(core)} nodes")
        stats = {
            "nodes": nodes_before,
            "factors": factors_before,
            "core_nodes": len(core),
            "core_factors": len(pairwise.factors),
        }
        if not math.isfinite(pairwise.constant):
            raise PropagationError("no plan of finite cost exists")
        labels = [0] * len(pairwise)
        if core:
            start = None
            if (
                time_limit is not None
            ):  # an incumbent from the start: never empty-handed
                start = _greedy_start(problem, core, records)

            def no_plan_fits() -> PropagationError:
                assert memory is not None and memory_budget is not None
                seconds = left()
                least = self._least_peak(
                    problem, pairwise, core, records, memory, start, seconds
                )
                seconds = self.peak_seconds if seconds is None else seconds
                return _no_plan_fits(memory_budget, least, seconds)

            if (
                memory is not None
                and memory_budget is not None
                and memory.floor() > memory_budget
            ):
                raise no_plan_fits()
            result = None
            if self.cluster and memory is None and time_limit is None:
                result = _clustered(pairwise, core, self.mip_rel_gap, self.threads)
                if result.labels is None:
                    stats.update(result.stats)  # not proven: the LP decides
                    result = None
            if result is None:
                with phase("ilp build"):
                    ilp = _Ilp(pairwise, core, memory, memory_budget)
                result = self._solve(ilp, left, start)
                if memory is not None and memory_budget is not None:
                    result = self._refine(
                        problem, ilp, memory, records, result, left, start
                    )
            stats.update(result.stats)
            if result.status == _UNREFINED or (
                memory is not None and result.status == "Infeasible"
            ):
                # The plan of least peak may still fit (the rows estimate).
                assert memory is not None and memory_budget is not None
                full, exact = self._least_peak(
                    problem, pairwise, core, records, memory, start, left()
                )
                if full is None or exact > memory_budget:
                    least = min(result.objective, exact)
                    raise budget_error(memory_budget, least, proven=False)
                stats["status"] = (
                    "the plan of least peak (none cheaper was found to fit)"
                )
                return self._done(full, stats, started, built, shrunk)
            if result.labels is None:
                if (
                    memory is None
                    or memory_budget is None
                    or result.status != "Infeasible"
                ):
                    raise PropagationError(
                        f"no plan found (HiGHS status: {result.status}); "
                        "a plan of finite cost may not exist"
                    )
                raise no_plan_fits()
            for v, label in zip(core, result.labels, strict=True):
                labels[v] = label
        else:
            stats.update({"proven": True, "gap": 0.0, "status": "solved by shrinking"})
            stats["objective"] = pairwise.constant
            if memory is not None and memory_budget is not None:
                full = list(labels)
                expand(records, full)
                peak_bytes = plan_memory(graph, full, memory.liveness).peak
                if peak_bytes > memory_budget:  # the only plan there is
                    raise budget_error(memory_budget, peak_bytes, proven=True)
        expand(records, labels)
        return self._done(labels, stats, started, built, shrunk)

    @staticmethod
    def _done(
        labels: list[int], stats: dict, started: float, built: float, shrunk: float
    ) -> Choice:
        """The choice, with the phases' seconds in its stats."""
        solved = time.perf_counter()
        stats["seconds_build"] = built - started
        stats["seconds_shrink"] = shrunk - built
        stats["seconds_solve"] = solved - shrunk
        return Choice(labels, stats)

    def _solve(self, ilp: _Ilp, left: Seconds, start: list[int] | None) -> _Result:
        """The integer program's optimum: its LP relaxation when integral,
        else the MIP; each solve within what ``left()`` says is left."""
        result = None
        if self.lp_first:
            with phase("lp relaxation"):
                result = ilp.solve_relaxation(left(), self.mip_rel_gap, self.threads)
        if result is None:
            with phase("ilp solve"):
                result = ilp.solve(left(), self.mip_rel_gap, self.threads, start)
        return result

    def _refine(
        self,
        problem: Problem,
        ilp: _Ilp,
        memory: MemoryRows,
        records: list[Record],
        result: _Result,
        left: Seconds,
        start: list[int] | None,
    ) -> _Result:
        """``result`` checked against the exact memory model (``plan_memory``;
        the rows only estimate it, ``memory_rows``): while the plan exceeds
        the budget, each row that covers a half-step over it is lowered by
        that half-step's gap, and the program solved again; a lowering that
        leaves no plan is taken back by half.  ``REFINE_ROUNDS`` at most;
        then ``_UNREFINED`` with the least exact peak met as its objective."""
        budget = ilp.budget
        assert budget is not None
        least = math.inf
        lowered: dict[int, float] = {}  # the last lowering, to take back
        for round_ in range(REFINE_ROUNDS + 1):
            result.stats["refinements"] = round_
            if result.labels is None:
                if not lowered or round_ == REFINE_ROUNDS:
                    break
                lowered = {r: gap / 2 for r, gap in lowered.items()}
                ilp.tighten({r: -gap for r, gap in lowered.items()})
                result = self._solve(ilp, left, start)
                continue
            full = [0] * len(ilp.problem)
            for v, label in zip(ilp.core, result.labels, strict=True):
                full[v] = label
            rows = memory.values(dict(zip(ilp.core, result.labels, strict=True)))
            expand(records, full)
            exact = plan_memory(problem.graph, full, memory.liveness)
            least = min(least, exact.peak)
            gaps: dict[int, float] = {}
            for h, held in enumerate(exact.held):
                if held > budget * (1 + 1e-9):
                    r = memory.row_of(h)
                    gaps[r] = max(gaps.get(r, 0.0), held - rows[r])
            if not gaps:
                return result
            if round_ == REFINE_ROUNDS:
                break
            ilp.tighten(gaps)
            lowered = gaps
            result = self._solve(ilp, left, start)
        if least == math.inf and result.status == "Infeasible":
            return result  # the rows as given admit no plan
        return _Result(None, least, _UNREFINED, result.stats)

    def _least_peak(
        self,
        problem: Problem,
        pairwise: PairwiseProblem,
        core: list[int],
        records: list[Record],
        memory: MemoryRows,
        start: list[int] | None,
        seconds: float | None,
    ) -> tuple[list[int] | None, float]:
        """The plan of least peak under the rows, searched from greedy's plan
        within ``seconds`` (what the time limit left, else
        ``peak_seconds``): its labels (every node) and its exact peak;
        ``(None, inf)`` when none is found.  With no time left, greedy's."""
        if start is None:
            start = _greedy_start(problem, core, records)
        seconds = self.peak_seconds if seconds is None else seconds
        found: list[int] | None = start
        if start is None or seconds > MIN_SOLVE_SECONDS:
            ilp = _Ilp(pairwise, core, memory, None, minimise_peak=True)
            found = ilp.solve(seconds, self.mip_rel_gap, self.threads, start).labels
        if found is None:
            return None, math.inf
        full = [0] * len(pairwise)
        for v, label in zip(core, found, strict=True):
            full[v] = label
        expand(records, full)
        return full, plan_memory(problem.graph, full, memory.liveness).peak


def _no_plan_fits(
    budget: float, least: tuple[list[int] | None, float], seconds: float
) -> PropagationError:
    """The error for a budget no plan fits, from ``Optimal._least_peak``'s
    answer: that plan's exact peak, a budget that fits; not proven the least
    (the rows only estimate the model)."""
    full, exact = least
    if full is None:
        return PropagationError(
            f"no plan fits the memory budget of {budget:.0f} bytes per device, "
            f"and no plan was found within {seconds:g} s to bound the "
            "smallest budget"
        )
    return budget_error(budget, exact, proven=False)


def shrink_all(
    pairwise: PairwiseProblem,
    frozen: set[int],
    prune: bool = True,
    memo: ContentMemo | None = None,
) -> list[Record]:
    """The exact reductions to their fixed point; the records to expand.

    ``memo``: steps met before are reused (``content_memo``; one is made
    when none is given; pass one to share it between problems)."""
    memo = ContentMemo() if memo is None else memo
    records = shrink(pairwise, frozen, memo=memo)
    while prune and (pruned := prune_dominated(pairwise, frozen, memo)):
        records += pruned
        # only relabelled nodes and their neighbours can shrink further
        records += shrink(pairwise, frozen, start=pairwise.touched, memo=memo)
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
    labels = [0] * len(problem)
    bound = problem.constant
    if core:
        ilp = _Ilp(problem, core, None, None)
        result = ilp.solve_relaxation(time_limit, rel_gap, threads)
        if result is not None:  # integral: its bound is the LP's optimum
            objective = result.stats["objective"]
            bound = objective - result.stats["gap"] * abs(objective)
        else:
            result = ilp.solve(time_limit, rel_gap, threads)
            bound = -math.inf
        if result.labels is None:
            return None
        for v, label in zip(core, result.labels, strict=True):
            labels[v] = label
    expand(records, labels)
    return labels, bound


def solved_relaxation(
    problem: PairwiseProblem, core: list[int], time_limit: float | None
) -> tuple[highspy.Highs, float]:
    """HiGHS after the LP relaxation over ``core``, and its objective's scale."""
    ilp = _Ilp(problem, core, None, None)
    ilp.solve_relaxation(time_limit, 0.0, None)
    return ilp.relaxed, ilp.scale


def _clustered(
    pairwise: PairwiseProblem, core: list[int], rel_gap: float, threads: int | None
) -> _Result:
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
    bound within ``rel_gap``; otherwise the result has no labels and its
    ``cluster`` stat says why (then the caller solves the whole core).
    """
    with phase("find layers"):
        copies = find_copies(pairwise, core)
        covered = covered_factors(pairwise, copies) if copies else set()
    stats: dict = {
        "cluster_copies": copies.count if copies else 0,
        "cluster_parts": len(copies.tuples) if copies else 0,
        "cluster_covered_factors": len(covered),
    }
    if copies is None or len(covered) < MIN_COVERED * len(pairwise.factors):
        return _declined("too few repeated factors", stats)
    started = time.perf_counter()
    for hops in WINDOW_HOPS:
        stats["cluster_window_hops"] = hops
        result = _clustered_at(
            pairwise, core, copies, covered, hops, rel_gap, threads, stats
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
    rel_gap: float,
    threads: int | None,
    stats: dict,
) -> _Result | None:
    """``_clustered`` with a window of ``hops``: the proven result, or None
    (``stats["cluster_why"]`` says why)."""
    started = time.perf_counter()
    with phase("window lp"):
        nodes, relaxed, messages = _window_messages(
            pairwise, copies, covered, rel_gap, threads, hops
        )
    stats["cluster_window_nodes"] = len(nodes)
    if relaxed is None or messages is None:
        stats["cluster_why"] = "window LP not integral"
        return None
    with phase("residual"):
        rest, covered_min = residual(pairwise, messages)
        rest_bound, by_copies = _residual_bound(rest, rel_gap, threads)
    source = dict(zip(nodes, relaxed.labels, strict=True))
    # The stack's first and last copies meet what comes before and after it
    # and may want other labels than its middle: they are solved exactly
    # with the rest (a superset of the plans replicating into every copy,
    # so never costlier; on a flax decoder with free parameters the ends
    # alone made the difference between a 2e-5 gap and proven).
    inner = range(1, copies.count - 1) if copies.count > 2 else range(copies.count)
    with phase("replicate"):
        labels = _replicated(pairwise, copies, source, inner, rel_gap, threads)
    if labels is None:
        stats["cluster_why"] = "no plan found"
        return None
    energy = pairwise.energy(labels)
    gap = _gap(energy, pairwise.constant + covered_min + rest_bound)
    if by_copies and gap > rel_gap:
        # the residual's own copies bounded it too loosely: its exact LP
        with phase("residual"):
            rest, _ = residual(pairwise, messages)
            solved = solve_exact(rest, rel_gap, threads)
        rest_bound = -math.inf if solved is None else solved[1]
        gap = _gap(energy, pairwise.constant + covered_min + rest_bound)
        by_copies = False
    stats["cluster_residual_bound"] = "its own copies" if by_copies else "its LP"
    stats.update(
        {
            "cluster_residual_factors": len(rest.factors),
            "objective": energy,
            "gap": gap,
        }
    )
    progress.current().done(
        f"optimal: clustered ({hops} hops)",
        time.perf_counter() - started,
        f"gap {_percent(gap)}",
    )
    if not math.isfinite(energy) or gap > rel_gap:
        stats["cluster_gap"] = gap
        del stats["objective"], stats["gap"]
        stats["cluster_why"] = f"gap {_percent(gap)} above mip_rel_gap"
        return None
    stats.update({"status": "Optimal (repeated layers, certified)", "proven": True})
    stats["cluster"] = "proven"
    for narrower in ("cluster_gap", "cluster_why"):  # a narrower window's
        stats.pop(narrower, None)
    return _Result([labels[v] for v in core], energy, stats["status"], stats)


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
) -> tuple[list[int], _Result | None, Messages | None]:
    """(the window around the middle copy, its LP's result when integral,
    its duals as messages for the ``covered`` factors of every copy; None
    when the LP has no optimum).  Messages need no integral LP: any
    messages give a valid bound."""
    middle = copies.count // 2
    nodes = window(problem, copies.nodes(middle), hops)
    ilp = _Ilp(restrict(problem, nodes), nodes, None, None)
    relaxed = ilp.solve_relaxation(None, rel_gap, threads, WINDOW_DUAL_TOLERANCE)
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


def _declined(why: str, stats: dict) -> _Result:
    """Clustering's answer when it proves nothing: no labels, and why."""
    stats["cluster"] = why
    return _Result(None, math.inf, why, stats)


def _percent(gap: float) -> str:
    return f"{100 * gap:.3g}%" if math.isfinite(gap) else "unknown"


def _greedy_start(
    problem: Problem, core: list[int], records: list[Record]
) -> list[int] | None:
    """Greedy's labels of the core nodes, carried through the label pruning
    (None when greedy finds no finite plan)."""
    try:
        options = Greedy().choose(problem).options
    except PropagationError:
        return None
    labels = complete_sinks(problem.graph, options, problem.costs)
    if not problem.is_finite(labels):
        return None
    relabel_forward(records, labels)
    return [labels[v] for v in core]


@dataclass
class _Result:
    labels: list[int] | None
    objective: float
    status: str
    stats: dict


class _Ilp:
    """The integer program of one core, built column by column in numpy."""

    def __init__(
        self,
        problem: PairwiseProblem,
        core: Sequence[int],
        memory: MemoryRows | None,
        budget: float | None,
        minimise_peak: bool = False,
    ) -> None:
        self.problem = problem
        self.core = list(core)
        self.minimise_peak = minimise_peak
        self.memory = memory
        self.budget = budget
        col_of: dict[int, int] = {}
        cost: list[np.ndarray] = []
        upper: list[np.ndarray] = []
        n_cols = 0
        for v in self.core:
            col_of[v] = n_cols
            u = problem.unary[v]
            cost.append(np.where(np.isfinite(u), u, 0.0))
            upper.append(np.where(np.isfinite(u), 1.0, 0.0))
            n_cols += len(u)
        self.col_of = col_of
        self.n_x = n_cols
        rows_i: list[np.ndarray] = []
        cols_i: list[np.ndarray] = []
        vals: list[np.ndarray] = []
        lower: list[float] = []
        upper_row: list[float] = []
        n_rows = 0
        for v in self.core:  # one label per node
            k = problem.sizes[v]
            rows_i.append(np.full(k, n_rows))
            cols_i.append(col_of[v] + np.arange(k))
            vals.append(np.ones(k))
            lower.append(1.0)
            upper_row.append(1.0)
            n_rows += 1
        for f in problem.factors.values():
            n_r, n_c = f.table.shape
            flat = f.table.reshape(-1)
            e_cols = n_cols + np.arange(n_r * n_c)
            cost.append(np.where(np.isfinite(flat), flat, 0.0))
            upper.append(np.where(np.isfinite(flat), np.inf, 0.0))
            n_cols += n_r * n_c
            r_of_e = np.repeat(np.arange(n_r), n_c)
            c_of_e = np.tile(np.arange(n_c), n_r)
            # rows: sum_c e[r, c] - sum_{i in r} x[a, i] = 0, then the columns
            rows_i += [n_rows + r_of_e, n_rows + f.ga]
            cols_i += [e_cols, col_of[f.a] + np.arange(len(f.ga))]
            vals += [np.ones(n_r * n_c), -np.ones(len(f.ga))]
            rows_i += [n_rows + n_r + c_of_e, n_rows + n_r + f.gb]
            cols_i += [e_cols, col_of[f.b] + np.arange(len(f.gb))]
            vals += [np.ones(n_r * n_c), -np.ones(len(f.gb))]
            lower += [0.0] * (n_r + n_c)
            upper_row += [0.0] * (n_r + n_c)
            n_rows += n_r + n_c
        if minimise_peak:
            cost = [np.zeros(c.shape) for c in cost]
            self.peak_col = n_cols
            cost.append(np.ones(1))
            upper.append(np.full(1, np.inf))
            n_cols += 1
        self.memory_scale = 1.0
        self.box_col0 = -1  # the first box column (memory rows only)
        if memory is not None and (budget is not None or minimise_peak):
            # Rows in units of the budget (or of the largest row) keep HiGHS's
            # tolerances meaningful for byte counts.
            biggest = max(
                (sum(float(b.max()) for b in row.values()) for row in memory.rows),
                default=1.0,
            )
            scale = budget if budget else max(biggest, 1.0)
            self.memory_scale = scale
            # A column per box, its bytes (in scale units) whenever it exists.
            box0 = n_cols
            cost.append(np.zeros(len(memory.boxes)))
            upper.append(np.full(len(memory.boxes), np.inf))
            n_cols += len(memory.boxes)
            self.box_col0 = box0
            for i, box in enumerate(memory.boxes):
                nb = box.nbytes / scale
                for a, wants_a, b, wants_b, no_copy in box.pairs:
                    # w >= nb * (a wants + b wants - 1 - made); one read: a is b
                    terms = [(a, wants_a), (box.producer, ~no_copy)]
                    constant = 0.0
                    if b != a:
                        terms.append((b, wants_b))
                        constant = -1.0
                    elif wants_b is not wants_a:
                        terms[0] = (a, wants_a & wants_b)
                    # ~no_copy counts as 1 - no_copy: the -1 moves to the bound
                    constant -= 1.0
                    for node, mask in terms:
                        weights = nb * mask.astype(float)
                        if node in col_of:
                            rows_i.append(np.full(len(mask), n_rows))
                            cols_i.append(col_of[node] + np.arange(len(mask)))
                            vals.append(weights)
                        else:
                            constant += float(weights[0]) / nb if nb else 0.0
                    rows_i.append(np.full(1, n_rows))
                    cols_i.append(np.full(1, box0 + i))
                    vals.append(-np.ones(1))
                    lower.append(-np.inf)
                    upper_row.append(-constant * nb)
                    n_rows += 1
            self.memory_row0 = n_rows
            for row, boxed in zip(memory.rows, memory.row_boxes, strict=True):
                constant = 0.0
                for node, b in row.items():
                    if node in col_of:
                        rows_i.append(np.full(len(b), n_rows))
                        cols_i.append(col_of[node] + np.arange(len(b)))
                        vals.append(b / scale)
                    else:
                        constant += float(b[0])
                if boxed:
                    rows_i.append(np.full(len(boxed), n_rows))
                    cols_i.append(box0 + np.array(boxed))
                    vals.append(np.ones(len(boxed)))
                lower.append(-np.inf)
                if minimise_peak:
                    rows_i.append(np.full(1, n_rows))
                    cols_i.append(np.full(1, self.peak_col))
                    vals.append(-np.ones(1))
                    upper_row.append(-constant / scale)
                else:
                    assert budget is not None
                    upper_row.append((budget - constant) / scale)
                n_rows += 1
        c = np.concatenate(cost)
        finite = np.abs(c[np.isfinite(c)])
        self.scale = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
        self.cost = c / self.scale
        self.col_upper = np.concatenate(upper)
        self.n_cols = n_cols
        self.row_lower = np.array(lower)
        self.row_upper = np.array(upper_row)
        self.n_rows = n_rows
        r = np.concatenate(rows_i) if rows_i else np.zeros(0, dtype=np.int64)
        cc = np.concatenate(cols_i) if cols_i else np.zeros(0, dtype=np.int64)
        vv = np.concatenate(vals) if vals else np.zeros(0)
        # No explicit zeros (a memory row over empty tensors holds them): on
        # them HiGHS's presolve ran for minutes past its time limit.
        nonzero = vv != 0
        r, cc, vv = r[nonzero], cc[nonzero], vv[nonzero]
        order = np.lexsort((cc, r))
        self.a_index = cc[order].astype(np.int32)
        self.a_value = vv[order]
        self.a_start = np.searchsorted(r[order], np.arange(n_rows + 1)).astype(np.int32)

    def tighten(self, gaps: dict[int, float]) -> None:
        """Lower memory row ``r``'s bound by ``gaps[r]`` bytes."""
        for r, gap in gaps.items():
            self.row_upper[self.memory_row0 + r] -= gap / self.memory_scale

    def _highs(
        self, time_limit: float | None, threads: int | None, integer: bool
    ) -> highspy.Highs:
        """HiGHS holding this program (its relaxation unless ``integer``)."""
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        if time_limit is not None:
            h.setOptionValue("time_limit", float(time_limit))
        if threads is not None:
            h.setOptionValue("threads", threads)
        lp = highspy.HighsLp()
        lp.num_col_ = self.n_cols
        lp.num_row_ = self.n_rows
        lp.col_cost_ = self.cost
        lp.col_lower_ = np.zeros(self.n_cols)
        lp.col_upper_ = self.col_upper
        lp.row_lower_ = self.row_lower
        lp.row_upper_ = self.row_upper
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.num_col_ = self.n_cols
        lp.a_matrix_.num_row_ = self.n_rows
        lp.a_matrix_.start_ = self.a_start
        lp.a_matrix_.index_ = self.a_index
        lp.a_matrix_.value_ = self.a_value
        if integer:
            integrality = [highspy.HighsVarType.kContinuous] * self.n_cols
            for i in range(self.n_x):
                integrality[i] = highspy.HighsVarType.kInteger
            lp.integrality_ = integrality
        h.passModel(lp)
        return h

    def solve_relaxation(
        self,
        time_limit: float | None,
        rel_gap: float,
        threads: int | None,
        dual_tolerance: float | None = None,
    ) -> _Result | None:
        """The LP relaxation's optimum when it is integral (then it is the
        integer program's proven optimum); None when it is not, or not found.

        Dual simplex without presolve: on these programs HiGHS's presolve
        costs several times the solve itself.
        """
        if self.minimise_peak:
            return None
        h = self._highs(time_limit, threads, integer=False)
        h.setOptionValue("presolve", "off")
        h.setOptionValue("solver", "simplex")
        h.setOptionValue("simplex_strategy", 1)  # dual
        if dual_tolerance is not None:  # duals reused as messages: keep them exact
            h.setOptionValue("dual_feasibility_tolerance", dual_tolerance)
        report = progress.current()
        what = f"optimal: LP relaxation of {self.n_cols} columns"
        started = time.perf_counter()
        report.ticking(lambda: f"{what} ... {time.perf_counter() - started:.1f} s")
        h.run()
        self.relaxed = h
        seconds = time.perf_counter() - started
        result = self._integral_result(h, seconds, rel_gap)
        outcome = "integral: a proven optimum" if result else "not integral: ILP next"
        report.done("optimal: LP relaxation", seconds, outcome)
        return result

    def factor_duals(self) -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
        """Per factor, the solved relaxation's duals of its marginal rows (one
        per row group, one per column group), in cost units: the messages
        that reparametrise the factor to ``table - ya[:, None] - yb[None, :]``."""
        y = np.asarray(self.relaxed.getSolution().row_dual) * self.scale
        duals = {}
        row = len(self.core)
        for key, f in self.problem.factors.items():
            n_r, n_c = f.table.shape
            duals[key] = (y[row : row + n_r], y[row + n_r : row + n_r + n_c])
            row += n_r + n_c
        return duals

    def _integral_result(
        self, h: highspy.Highs, seconds: float, rel_gap: float
    ) -> _Result | None:
        """The solved relaxation as the integer program's result, if it is one."""
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        x = np.asarray(h.getSolution().col_value)[: self.n_x]
        if np.any(np.minimum(x, 1.0 - x) > 1e-6):
            return None  # fractional: the MIP decides
        labels = [
            int(np.argmax(x[self.col_of[v] : self.col_of[v] + self.problem.sizes[v]]))
            for v in self.core
        ]
        objective = self.problem.constant + self.problem_energy(labels)
        bound = self.problem.constant + h.getInfo().objective_function_value * (
            self.scale
        )
        gap = max(0.0, objective - bound) / max(abs(objective), 1e-300)
        if not math.isfinite(objective) or gap > rel_gap:
            return None
        if self.memory is not None and self.budget is not None:
            peak = self.memory.peak(dict(zip(self.core, labels, strict=True)))
            if peak > self.budget:
                return None
        stats = {
            "ilp_columns": self.n_cols,
            "ilp_rows": self.n_rows,
            "ilp_nonzeros": len(self.a_value),
            "status": "Optimal (integral LP relaxation)",
            "proven": True,
            "gap": gap,
            "seconds_highs": seconds,
            "branch_nodes": 0,
            "objective": objective,
        }
        return _Result(labels, objective, stats["status"], stats)

    def solve(
        self,
        time_limit: float | None,
        rel_gap: float,
        threads: int | None,
        start: list[int] | None = None,
    ) -> _Result:
        h = self._highs(time_limit, threads, integer=True)
        h.setOptionValue("mip_rel_gap", rel_gap)
        h.setOptionValue("mip_abs_gap", 0.0)
        if start is not None:
            h.setSolution(self._solution_of(start))
        report = progress.current()
        report.watch_highs(h, f"optimal: ILP of {self.n_cols} columns")
        started = time.perf_counter()
        h.run()
        seconds = time.perf_counter() - started
        status = h.modelStatusToString(h.getModelStatus())
        info = h.getInfo()
        feasible = info.primal_solution_status == 2  # kSolutionStatusFeasible
        proven = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
        gap = 0.0 if proven and not math.isfinite(info.mip_gap) else float(info.mip_gap)
        report.done("optimal: ILP", seconds, f"{status}, gap {_percent(gap)}")
        stats = {
            "ilp_columns": self.n_cols,
            "ilp_rows": self.n_rows,
            "ilp_nonzeros": len(self.a_value),
            "status": status,
            "proven": proven,
            "gap": gap,
            "seconds_highs": seconds,
            "branch_nodes": int(info.mip_node_count),
        }
        if not feasible:
            return _Result(None, math.inf, status, stats)
        x = np.asarray(h.getSolution().col_value)
        labels = []
        for v in self.core:
            start = self.col_of[v]
            labels.append(int(np.argmax(x[start : start + self.problem.sizes[v]])))
        if self.minimise_peak:
            assert self.memory is not None
            objective = self.memory.peak(dict(zip(self.core, labels, strict=True)))
        else:
            objective = self.problem.constant + self.problem_energy(labels)
        stats["objective"] = objective
        return _Result(labels, objective, status, stats)

    def _solution_of(self, labels: list[int]) -> highspy.HighsSolution:
        """Column values of a labelling of the core (x and the e it implies)."""
        x = np.zeros(self.n_cols)
        full = dict(zip(self.core, labels, strict=True))
        for v in self.core:
            x[self.col_of[v] + full[v]] = 1.0
        if self.minimise_peak:
            assert self.memory is not None
            x[self.peak_col] = self.memory.peak(full) / self.memory_scale
        if self.memory is not None and self.box_col0 >= 0:
            for i, box in enumerate(self.memory.boxes):
                x[self.box_col0 + i] = box.held(full) / self.memory_scale
        offset = self.n_x
        for f in self.problem.factors.values():
            n_r, n_c = f.table.shape
            r, c = f.ga[full[f.a]], f.gb[full[f.b]]
            x[offset + r * n_c + c] = 1.0
            offset += n_r * n_c
        solution = highspy.HighsSolution()
        solution.col_value = x
        solution.value_valid = True
        return solution

    def problem_energy(self, labels: list[int]) -> float:
        """Cost of the core labels on the shrunk problem (constant excluded)."""
        full = [0] * len(self.problem)
        for v, label in zip(self.core, labels, strict=True):
            full[v] = label
        return self.problem.energy(full) - self.problem.constant
