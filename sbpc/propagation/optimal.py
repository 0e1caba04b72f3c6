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
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from sbpc.propagation import progress
from sbpc.propagation.graph import PropagationError
from sbpc.propagation.greedy import Greedy
from sbpc.propagation.memory import plan_memory
from sbpc.propagation.memory_rows import MemoryRows
from sbpc.propagation.plan import build_plan, complete_sinks
from sbpc.propagation.solver.exact import (
    accepted_gap,
    core_lp,
    every_label,
    expanded,
    shrink_all,
    solve_exact,
)
from sbpc.propagation.solver.ilp import Ilp, IlpResult
from sbpc.propagation.solver.later_proof import proofs_may_wait
from sbpc.propagation.solver.memory_price import Solver, within_budget
from sbpc.propagation.solver.pairwise import PairwiseProblem
from sbpc.propagation.solver.repeated_layers import (
    clustered,
)
from sbpc.propagation.solver.shrink import Record, expand, relabel_forward
from sbpc.propagation.strategy import Choice, Problem, Strategy, budget_error
from sbpc.timing import phase

# A priced problem (the memory price's) prices each layer's values by the
# hot rows they span, which differ from layer to layer: fewer factors repeat
# (10-16% on 8 layers of Llama-3-70B with every layer recomputed), yet the
# repeated layers' plan was within 1e-6 of its bound there in 180 s, where
# the whole core's LP took 992 s.  So it is tried down to this share.
PRICED_MIN_COVERED = 0.05
# A large priced core's repeated-layer plan is kept without a bound (no
# residual solved): the memory price needs a good plan, not a proof, and
# the residual's exact LP (its own copies bounding it too loosely, or
# covering too little of it) took 30-110 s a price on 16 layers of
# Llama-3-70B, where the plans it bounded were within 0.1%.  Cores of
# ordinary size are still proven.
PRICED_ACCEPT = math.inf
# ... and where a priced core's LP (the whole core's, the repeated layers
# declining) ends fractional, its rounding is kept within this gap of the
# LP's bound instead of running HiGHS's MIP: on Mixtral-8x7B's scanned step
# with the experts pinned over ``model`` (``ep``), two prices' MIPs took
# 114 and 48 s.
PRICED_ROUNDED_GAP = 1e-2
# Under a memory budget: how often a plan over the exact model's budget
# tightens the rows and solves again (``Optimal._refine``).
REFINE_ROUNDS = 8
# When the rows admit no plan under the budget, the program is solved again
# with the rows' budget raised by these factors: the rows over-estimate the
# model where an output's allocation lends itself to temporaries before the
# output is written (``memory._unhosted``, not linear), and a plan over
# the budget in the rows may fit it exactly.  The cheapest that fits is
# kept over the plan of least peak (a Megatron FFN on 2x4 under 30,000
# bytes: 16.1 us against 47.6 us, its rows 34,816 bytes, its exact peak
# 28,672).
RELAXED_BUDGETS = (1.125, 1.25, 1.5, 2.0)
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
    (``clustered``); the whole core's LP runs only when that proves nothing.
    ``price_above``: under a budget, a graph of more nodes prices memory
    (``memory_price``: fast, not proven) instead of the budgeted program.
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
    # Solve one repeated layer and certify its copies (``clustered``); off:
    # the LP of the whole core, as before.
    cluster: bool = True
    price_above: int = 400

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
        memory = None
        if memory_budget is not None:
            with phase("memory rows"):
                memory = MemoryRows.of(graph)
        frozen = memory.frozen if memory is not None else set()
        nodes_before = len(pairwise)
        factors_before = len(pairwise.factors)
        if (
            memory is not None
            and memory_budget is not None
            and len(graph.nodes) > self.price_above
            and memory.floor() <= memory_budget
        ):  # a memory price: its own problems, each shrunk (not this one)
            stats = {"nodes": nodes_before, "factors": factors_before}
            full = within_budget(
                graph, problem.costs, memory, memory_budget, stats,
                self._price_solver(stats), problem.unbudgeted, deadline,
                problem.unbudgeted_bound, self.mip_rel_gap, self.threads,
            )  # fmt: skip
            return self._done(full, stats, started, built, built)
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
                accept = accepted_gap(pairwise, core, self.mip_rel_gap)
                result = clustered(
                    pairwise,
                    core,
                    self.mip_rel_gap,
                    self.threads,
                    accept,
                    later=proofs_may_wait(),
                )
                if result.labels is None:
                    stats.update(result.stats)  # not proven: the LP decides
                    result = None
            if result is None:
                with phase("ilp build"):
                    ilp = Ilp(pairwise, core, memory, memory_budget)
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
                    # (the raised rows are not tried here: a budget no plan
                    # fits, the usual case, would pay four more solves)
                    least = min(result.objective, exact)
                    raise budget_error(memory_budget, least, proven=False)
                stats["status"] = (
                    "the plan of least peak (none cheaper was found to fit)"
                )
                relaxed = self._relaxed(
                    problem, memory, (pairwise, core, records), left, start
                )
                if relaxed is not None and relaxed[1] < _cost(problem, full):
                    full = relaxed[0]
                    stats["status"] = (
                        "the cheapest plan found to fit (the memory rows, "
                        "which over-estimate, admitted none under the budget)"
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

    def _price_solver(self, stats: dict) -> Solver:
        """The memory price's solver: through the repeated layers
        (``solve_repeated``) when ``cluster``, else the core's LP
        (``solve_exact``); ``stats["memory_price_paths"]`` counts the path
        that solved each price."""
        paths: list[str] = []

        def solve(problem: PairwiseProblem) -> tuple[list[int], float] | None:
            started = time.perf_counter()
            if self.cluster:
                solved = solve_repeated(problem, self.mip_rel_gap, self.threads, paths)
            else:
                solved = solve_exact(problem, self.mip_rel_gap, self.threads)
                paths.append("whole core LP")
            progress.current().done(
                f"optimal: memory price {len(paths)}",
                time.perf_counter() - started,
                paths[-1],
            )
            stats["memory_price_paths"] = "; ".join(
                f"{n} x {path}" for path, n in Counter(paths).items()
            )
            return solved

        return solve

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

    def _solve(self, ilp: Ilp, left: Seconds, start: list[int] | None) -> IlpResult:
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
        ilp: Ilp,
        memory: MemoryRows,
        records: list[Record],
        result: IlpResult,
        left: Seconds,
        start: list[int] | None,
    ) -> IlpResult:
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
            full = every_label(ilp.problem, ilp.core, records, result.labels)
            rows = memory.values(dict(zip(ilp.core, result.labels, strict=True)))
            exact = plan_memory(problem.graph, full, memory.liveness)
            least = min(least, exact.peak)
            gaps = memory.shortfalls(exact.held, rows, budget)
            if not gaps:
                return result
            if round_ == REFINE_ROUNDS:
                break
            ilp.tighten(gaps)
            lowered = gaps
            result = self._solve(ilp, left, start)
        if least == math.inf and result.status == "Infeasible":
            return result  # the rows as given admit no plan
        return IlpResult(None, least, _UNREFINED, result.stats)

    def _relaxed(
        self,
        problem: Problem,
        memory: MemoryRows,
        shrunk: tuple[PairwiseProblem, list[int], list[Record]],
        left: Seconds,
        start: list[int] | None,
    ) -> tuple[list[int], float] | None:
        """The cheapest plan (every node's label, and its cost) of the
        program with the rows' budget raised by each ``RELAXED_BUDGETS``
        factor whose exact peak fits the budget; None when none does."""
        budget = problem.memory_budget
        assert budget is not None
        pairwise, core, records = shrunk  # the problem, its core, the shrink
        best: tuple[list[int], float] | None = None
        for factor in RELAXED_BUDGETS:
            ilp = Ilp(pairwise, core, memory, budget * factor)
            result = self._solve(ilp, left, start)
            if result.labels is None:
                continue
            full = every_label(pairwise, core, records, result.labels)
            if plan_memory(problem.graph, full, memory.liveness).peak > budget:
                continue
            cost = _cost(problem, full)
            if best is None or cost < best[1]:
                best = (full, cost)
        return best

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
            ilp = Ilp(pairwise, core, memory, None, minimise_peak=True)
            found = ilp.solve(seconds, self.mip_rel_gap, self.threads, start).labels
        if found is None:
            return None, math.inf
        full = every_label(pairwise, core, records, found)
        return full, plan_memory(problem.graph, full, memory.liveness).peak


def _cost(problem: Problem, labels: list[int]) -> float:
    """A full labelling's modelled time on the graph (compute and every
    layout change), the plan's own price."""
    graph, costs = problem.graph, problem.costs
    return build_plan(graph, labels, costs, Optimal.name).total_time


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


def solve_repeated(
    problem: PairwiseProblem,
    rel_gap: float,
    threads: int | None,
    paths: list[str] | None = None,
) -> tuple[list[int], float] | None:
    """``solve_exact`` through the repeated layers when they are there: after
    the shrink, ``clustered`` (down to ``PRICED_MIN_COVERED``), its plan
    kept within ``accepted_gap`` (the strategy's own gap on a core of
    ordinary size: proven there), on a large core unbounded
    (``PRICED_ACCEPT``); the core's LP when it declines.  ``paths`` gets
    the path that solved it (for the stats).  The memory price's solver
    (``memory_price.within_budget``): its priced problems repeat as the
    model does (``memory_price.alike``)."""
    records = shrink_all(problem, set())
    core = [v for v in range(len(problem)) if problem.alive[v]]
    path = "solved by shrinking"
    solved: tuple[list[int], float] | None = ([], problem.constant)
    if core:
        accept = accepted_gap(problem, core, rel_gap)
        accept = PRICED_ACCEPT if accept > rel_gap else accept  # a large core
        result = clustered(
            problem, core, rel_gap, threads, accept, PRICED_MIN_COVERED, prove=False
        )
        path = f"repeated layers, {result.stats['cluster']}"
        if result.labels is not None:
            energy = result.objective
            solved = result.labels, energy - result.stats["gap"] * abs(energy)
        else:
            path = f"whole core LP ({result.stats['cluster']})"
            solved = core_lp(problem, core, rel_gap, threads, None, PRICED_ROUNDED_GAP)
    if paths is not None:
        paths.append(path)
    return None if solved is None else expanded(problem, core, records, *solved)


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
