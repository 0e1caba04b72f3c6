"""``sbp-propagate``: give every tensor op one legal SBP signature.

A thin adapter: the graph bridge (``bridge/graph.py``) reads each function
into plain ``SbpGraph``s (one per placement, candidate signatures from the op
rules); the propagation driver runs the chosen strategy (``greedy``: OneFlow;
``bfs``: MindSpore's propagation from configured ops; ``optimal``: an integer
program; or any other registered one) with layout changes priced by the
boxing planner under the cost model; the bridge writes the answer back:

- ``sbp.sig`` on every tensor op (a signature present before is a constraint);
- ``sbp.nd_sbp`` on every function argument and result without one, so the
  later passes see every layout.

Options: ``strategy``, ``cost_model`` (``CostModel.parse`` syntax),
``report`` (a path, or ``-`` for stderr) with ``report_format`` text|json|html|dot
(html: one self-contained page with the plan's picture, ``docs/plan-report.md``),
``memory_budget`` (bytes per device: optimal plans within it, greedy and
bfs fail when their plan does not fit; without it, the cost
model's ``mem=`` capacity is the budget of every strategy: optimal plans
within it, greedy and bfs fail when their plan does not fit), ``time_limit`` (seconds,
optimal only), ``trip_count`` (iterations assumed for a ``while`` whose count
is not JAX's counted form; see ``bridge/regions.py``), ``cluster`` (optimal
only; 0: solve the whole core's LP instead of one repeated layer certified
by a bound, ``docs/planning-time.md``), ``improve`` (greedy and bfs: 0
keeps the strategy's own choice, without the local improvement of
``sbpc/propagation/improve.py``).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache, partial

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner as boxing
from sbpc.boxing.collective_kind import CollectiveKind
from sbpc.boxing.combine_schedule import DEFAULT_MAX_BYTES
from sbpc.boxing.cost_model import CostModel
from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.sbp import verify_sbp_annotations
from sbpc.dialects.sbp.pipeline import pipeline_options
from sbpc.output import OutputError, write_file
from sbpc.propagation.collective_memory import combined_collectives
from sbpc.propagation.combined_cost import CombinedCost, combined_cost
from sbpc.propagation.combining import (
    BYTES_DEARER,
    REFERENCE_SECONDS,
    Candidate,
    combined_plan,
    later_scales,
    priced_once,
    refine_with_combining,
    search_with_combining,
    split_work,
)
from sbpc.propagation.driver import (
    STRATEGIES,
    mark_gathers_per_use,
    propagate,
    strategy_named,
)
from sbpc.propagation.edge_costs import EdgeCosts, EdgeTable
from sbpc.propagation.graph import (
    EdgeCost,
    GraphError,
    PropagationError,
    SbpGraph,
)
from sbpc.propagation.improve import (
    ShrunkProblem,
    improve_each,
    shrunk_problem_steps,
)
from sbpc.propagation.lower_bound import combined_lower_bound, lower_bound
from sbpc.propagation.memory import argument_bytes, layouts_of
from sbpc.propagation.optimal import MIN_SOLVE_SECONDS, Optimal
from sbpc.propagation.order_fences import FENCE_FRACTION, order_fences
from sbpc.propagation.plan import Plan, build_plan, proven_bound
from sbpc.propagation.report.dot import ReportError, format_dot
from sbpc.propagation.report.html import format_html
from sbpc.propagation.report.summary import format_bytes, format_report
from sbpc.propagation.report.view import plan_view
from sbpc.propagation.scenarios import least_worst_regret
from sbpc.propagation.solver.idle_work import Ahead, queued
from sbpc.propagation.solver.later_proof import (
    ProofFailed,
    proofs_later,
    settle_stats,
)
from sbpc.propagation.strategy import BudgetError
from sbpc.timing import active_timer, phase

from .bridge.fences import write_fences
from .bridge.graph import FunctionGraphs, function_graphs
from .budget_hints import budget_hints
from .options import (
    OptionError,
    count,
    one_of,
    parse_cost_model,
    positive_number,
    writable_file,
)
from .pipeline_target import pipeline_reports, with_section

REPORT_FORMATS = ("text", "json", "html", "dot")


@dataclass(frozen=True)
class FunctionPlan:
    """The plan chosen for one function on one placement."""

    function: str
    placement: Placement
    plan: Plan


@dataclass(frozen=True)
class _Problem:
    """What every solve of one function's graph on one placement reads: the
    cost model it is priced under, the memory budget (None: unset) and the
    pass's deadline (seconds on ``time.perf_counter``, None: none)."""

    graph: SbpGraph
    placement: Placement
    cost_model: CostModel
    budget: float | None = None
    deadline: float | None = None

    def under(self, cost_model: CostModel) -> _Problem:
        """The same problem priced under ``cost_model``."""
        return replace(self, cost_model=cost_model)

    def edge_prices(self) -> tuple[EdgeCost, EdgeCost, EdgeTable]:
        """Time, bytes and whole-table prices of layout changes."""
        return _edge_prices(self.placement, self.cost_model)

    def edge_costs(self, single_device: bool = False) -> EdgeCosts:
        """``edge_prices`` as the propagation's ``EdgeCosts``."""
        seconds, nbytes, table = self.edge_prices()
        return EdgeCosts(seconds, nbytes, single_device, table)


@dataclass(frozen=True)
class SbpPropagatePass(ModulePass):
    """Choose one SBP signature for every tensor op, priced by a cost model."""

    name = "sbp-propagate"

    strategy: str = "greedy"
    cost_model: str = "default"
    report: str = ""
    report_format: str = "text"
    # str: ``1e30`` reaches the pass as text; ``__post_init__`` makes it a float
    memory_budget: int | float | str | None = None
    time_limit: int | float | str | None = None
    trip_count: int = 1
    cluster: int = 1
    improve: int = 1
    # The emitter's ``combine-bytes`` (``jax-target``): the memory model
    # counts the buffers of the collectives it combines (0: none).
    combine_bytes: int = DEFAULT_MAX_BYTES
    # Buffers of at least this many bytes per device keep the memory model's
    # order (``order_fences``): unset, 1/64 of the device's memory where the
    # cost model knows it (none where it does not); 0: no fences.
    fence_bytes: int | float | str | None = None

    def __post_init__(self) -> None:
        """Every option value checked and converted once, as the pipeline is
        parsed (``OptionError`` before any work); the solve and the reports
        read the converted values."""
        one_of("strategy", self.strategy, tuple(STRATEGIES))
        one_of("report_format", self.report_format, REPORT_FORMATS)
        count("trip_count", self.trip_count)
        count("cluster", self.cluster)
        count("improve", self.improve)
        count("combine_bytes", self.combine_bytes)
        writable_file("report", self.report)
        object.__setattr__(self, "_cost_model", parse_cost_model(self.cost_model))
        object.__setattr__(self, "fence_bytes", _fence_bytes(self.fence_bytes))
        for name, unit in (("memory_budget", "bytes"), ("time_limit", "seconds")):
            object.__setattr__(
                self, name, positive_number(name, getattr(self, name), unit)
            )

    @property
    def parsed_cost_model(self) -> CostModel:
        """The ``cost_model`` option as a ``CostModel``."""
        return self._cost_model  # type: ignore[attr-defined]

    def limits(self) -> tuple[float | None, float | None]:
        """``memory_budget`` and ``time_limit`` as numbers (None: unset)."""
        return self.memory_budget, self.time_limit  # type: ignore[return-value]

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        plans = self.plan_module(op)
        if self.report:
            try:
                timer = active_timer()  # sbpc-opt --timing: the phases so far
                text = self.format_plans(
                    plans, timer.format("Execution time so far") if timer else None
                )
                text = self._with_pipelines(op, plans, text)
            except ReportError as e:
                raise LocatedError(op, str(e)) from e
            if self.report == "-":
                print(text, file=sys.stderr)
            else:
                ending = "\n" if text and not text.endswith("\n") else ""
                try:
                    write_file(self.report, text + ending, "report")
                except OutputError as e:
                    raise LocatedError(op, str(e)) from e

    def plan_module(
        self, op: ModuleOp, held_to_budget: bool = True
    ) -> list[FunctionPlan]:
        """Propagate every defined function, write the answer back, and return
        the plans (the API reads them instead of a report file).
        ``held_to_budget``: a greedy or bfs plan over ``memory_budget`` is an
        error (``_check_budget``); the pipeline search, which prices each
        candidate's memory per stage and schedule itself, plans without it."""
        cost_model = self.parsed_cost_model
        # ``time_limit`` bounds the whole pass: every solve of every function,
        # placement, scenario and latency scale gets what is left of it.
        budget, seconds = self.limits()
        deadline = None if seconds is None else time.perf_counter() + seconds
        # The graph bridge trusts the annotations; sbpc-opt --no-sbp-verify
        # (or an API caller) may hand over a module nobody checked.
        placements = verify_sbp_annotations(op)
        plans: list[FunctionPlan] = []
        for f in op.ops:
            if isinstance(f, func.FuncOp) and not f.is_declaration:
                try:
                    with phase("build graph"):
                        graphs = function_graphs(
                            op, f, cost_model, self.trip_count, placements
                        )
                except GraphError as e:
                    raise LocatedError(f, str(e)) from e
                for placement, graph in graphs.graphs.items():
                    problem = _Problem(graph, placement, cost_model, budget, deadline)
                    plan = self._solve(f, problem)
                    if held_to_budget:
                        self._check_budget(f, plan, problem)
                    self._gather_per_use(plan, problem)
                    self._count_collectives(plan, problem)
                    with phase("write back"):
                        graphs.write_back(placement, plan)
                    self._write_fences(graphs, placement, plan)
                    plans.append(FunctionPlan(f.sym_name.data, placement, plan))
        return plans

    def _with_pipelines(
        self, module: ModuleOp, plans: list[FunctionPlan], text: str
    ) -> str:
        """The report with each pipelined function's schedule, step time and
        memory per stage (text, json: appended; html: a section)."""
        if self.report_format == "dot":
            return text
        peaks = {(p.function, p.placement): p.plan.peak_memory for p in plans}
        for costs in pipeline_reports(module, peaks, self.cost_model):
            if self.report_format == "html":
                text = with_section(text, costs.html())
            else:
                text += "\n" + costs.text()
        return text

    def format_plans(self, plans: list[FunctionPlan], timing: str | None = None) -> str:
        """The report of ``plans`` in ``report_format`` (``timing``: a phase
        table the HTML page shows after the plans)."""
        if self.report_format in ("html", "dot"):
            views = [
                plan_view(
                    p.plan,
                    f"@{p.function} on {p.placement}",
                    cost_model=self.parsed_cost_model,
                    memory_budget=self.limits()[0]
                    or self.parsed_cost_model.memory_capacity,
                )
                for p in plans
            ]
            if self.report_format == "dot":
                return format_dot(views)
            return format_html(views, timing=timing)
        return "\n".join(self._report(p) for p in plans)

    def _report(self, p: FunctionPlan) -> str:
        if self.report_format == "json":
            return format_report(p.plan, "json")
        header = f"// sbp-propagate @{p.function} on {p.placement}"
        return header + "\n" + format_report(p.plan, "text")

    def _check_budget(self, f: func.FuncOp, plan: Plan, problem: _Problem) -> None:
        """A strategy that does not honour ``memory_budget`` (greedy, bfs)
        plans without it, and fails when its plan does not fit, as it does
        over the device's memory (``driver._within_capacity``): never a plan
        over the budget the user gave without a word."""
        budget = problem.budget
        if budget is None or plan.graph.is_single_device:
            return
        if strategy_named(self.strategy).honours_memory_budget:
            return
        if plan.peak_memory > budget:
            raise LocatedError(
                f,
                f"the {self.strategy} plan needs {format_bytes(plan.peak_memory)} "
                f"({plan.peak_memory:.0f} bytes) per device, more than the "
                f"memory_budget of {format_bytes(budget)} ({budget:.0f} bytes), "
                "which only strategy=optimal plans within",
            )

    def _gather_per_use(self, plan: Plan, problem: _Problem) -> None:
        """Mark the arguments ``plan`` gathers per use where the budget in
        force (the problem's, else the device's memory) needs it
        (``mark_gathers_per_use``; the search may have tried other plans of
        its graph last)."""
        budget = problem.budget
        if budget is None:
            budget = problem.cost_model.memory_capacity
        if plan.graph.is_single_device or not (
            strategy_named(self.strategy).honours_memory_budget
        ):
            budget = None
        mark_gathers_per_use(plan.graph, plan.options, budget)

    def _write_fences(
        self, graphs: FunctionGraphs, placement: Placement, plan: Plan
    ) -> None:
        """Keep the model's order where the buffers are large
        (``order_fences``, ``fence_bytes``)."""
        min_bytes = self.fence_bytes
        if min_bytes is None:
            capacity = self.parsed_cost_model.memory_capacity
            min_bytes = capacity / FENCE_FRACTION if capacity else 0
        # A pipelined function's order is its schedule's (sbp-pipeline).
        if (
            not min_bytes
            or plan.graph.is_single_device
            or pipeline_options(graphs.function) is not None
        ):
            return
        with phase("order fences"):
            fences = order_fences(
                plan.graph,
                layouts_of(plan.graph, plan.options),
                float(min_bytes),
            )
            written = write_fences(graphs, placement, plan, fences)
        if written:
            plan.stats["order_fences"] = written

    def _count_collectives(self, plan: Plan, problem: _Problem) -> None:
        """Make ``plan``'s memory count the buffers of the collectives the
        emitter combines (``collective_memory``), computed when first read."""
        if self.combine_bytes and not problem.graph.is_single_device:
            options, limit = plan.options, self.combine_bytes
            plan.count_collectives(
                lambda: combined_collectives(
                    problem.graph,
                    options,
                    problem.placement,
                    problem.cost_model,
                    limit,
                )
            )

    def _solve(self, f: func.FuncOp, problem: _Problem) -> Plan:
        """The driver's plan, with layout changes priced by the boxing planner
        (with ``combine=1`` in the cost model: the search that sees combining;
        with scenarios: the plan of least worst regret across them)."""
        cost_model = problem.cost_model
        try:
            # A number out of range (numpy's warnings raised, not printed):
            # a located error, never a warning on stderr and a wrong plan.
            with np.errstate(over="raise", divide="raise", invalid="raise"):
                if problem.graph.is_single_device:
                    return self._propagate(problem)
                if cost_model.scenarios:
                    plan = self._solve_scenarios(problem)
                    plan.bound = self._bound(problem, None)
                    return plan
                if not cost_model.combine:
                    plan = self._propagate(problem)
                    plan.bound = self._bound(problem, plan)
                    return plan
                best, tried = self._search_combined(problem)
                repriced = _reprice(problem, best.plan)
                plan = combined_plan(
                    best, tried, repriced, lambda: self._fewest_bytes(problem)
                )
                free = next((c.plan for c in tried if c.scale == 0.0), None)
                plan.bound = _combined_bound(problem, free)
                return plan
        except BudgetError as e:
            hints = budget_hints(f, e.smallest / e.budget)
            raise LocatedError(f, f"{e}{hints}") from e
        except (PropagationError, GraphError, boxing.LayoutSpaceError) as e:
            raise LocatedError(f, str(e)) from e
        except (FloatingPointError, OverflowError) as e:
            raise LocatedError(
                f,
                f"arithmetic out of range while planning ({e}): the cost "
                "model's numbers or the tensor sizes are too large or too small",
            ) from e

    def _bound(
        self, problem: _Problem, solved: Plan | None
    ) -> float | Callable[[], float | None] | None:
        """A lower bound on every plan's total under the problem's cost model:
        the one an optimal plan ``solved`` under it proved, else a computation
        of one for the report to run when read (``Plan.bound``)."""
        if solved is not None and solved.strategy == Optimal.name:
            return proven_bound(solved.stats)
        costs = problem.edge_costs()
        return lambda: lower_bound(problem.graph, costs)

    def _search_combined(self, problem: _Problem) -> tuple[Candidate, list[Candidate]]:
        """The search that sees combining, under the problem's cost model: the
        strategy's plan under the plain model, then local improvements at
        the latency scales combining leaves (``refine_with_combining``).
        Under a memory budget, which only the strategy honours, the strategy
        plans both ends (latency whole and free) and each end's later rounds
        improve the best plan within the budget; with ``improve=0`` (the
        strategy's own plans only) it plans every round
        (``search_with_combining``)."""

        cost_model = problem.cost_model

        def solve(scale: float) -> Plan:
            return self._propagate(problem.under(cost_model.with_latency_scale(scale)))

        @priced_once  # refine reads the strategy's plan's price again
        def price(plan: Plan) -> CombinedCost:
            with phase("combining: price"):
                return combined_cost(plan, problem.placement, cost_model)

        if problem.budget is not None or not self.improve:
            budget = problem.budget
            # Only a plan of a strategy that honours the budget gathers
            # arguments per use (``_gather_per_use``): greedy's and bfs's
            # refinements are priced as they will be emitted.
            per_use = strategy_named(self.strategy).honours_memory_budget

            def refine_under_budget(scale: float, plan: Plan) -> list[Plan]:
                model = cost_model.with_latency_scale(scale)
                found = _refined(
                    problem.under(model), plan, scale, budget=budget, per_use=per_use
                )
                return [_refined_from(plan, p, scale) for p in found]

            # Under a budget the starts are solved and their later rounds
            # refined; ``improve=0`` keeps the strategy's own plans only.
            refine = refine_under_budget if self.improve else None
            best, tried = search_with_combining(solve, price, refine=refine)
            return _fitting(best, tried, budget, self.strategy), tried

        # The latency-free round's problem does not depend on the strategy's
        # plan: it is built in steps while the strategy's LPs run
        # (``idle_work``; what one LP leaves, the next takes on).
        latency_free = Ahead.in_steps(
            partial(_round_problem_steps, problem, cost_model, 0.0)
        )

        # The later rounds' problems, at the scales they take when the
        # strategy's plan stays the best (``later_scales``: on the library
        # decoders, every round), are built in steps while the latency-free
        # round's block solves run; a round at another scale builds its own.
        later: dict[float, Ahead[ShrunkProblem | None]] = {}

        def refine(scale: float, plan: Plan) -> list[Plan]:
            model = cost_model.with_latency_scale(scale)
            if scale != 0.0:
                ahead = later.pop(scale, None)
                ready = None if ahead is None else ahead.result
                return _refined(problem.under(model), plan, scale, ready)
            for s in later_scales(price(plan).latency_scale):
                if s not in later:
                    steps = partial(_round_problem_steps, problem, cost_model, s)
                    later[s] = Ahead.in_steps(steps)
            with queued(*later.values()):
                return _refined(problem.under(model), plan, 0.0, latency_free.result)

        with queued(latency_free):
            if cost_model.memory_capacity is not None:  # its plans are priced
                return refine_with_combining(solve, refine, price)
            return _settled_search(solve, refine, price)

    def _fewest_bytes(self, problem: _Problem) -> Candidate | None:
        """The strategy's plan with every byte ``BYTES_DEARER`` times dearer
        (the fewest bytes it can move), priced combined under the problem's
        cost model: what a chosen plan's extra bytes are reported against.
        Solved when a report is read, after the plan was kept: the graph's
        per-use gathers (which a budgeted solve marks) are put back, and a
        solve that fails (no plan under the budget) or runs out of its
        ``REFERENCE_SECONDS`` leaves the report without a reference (None),
        not without a report."""
        graph, kept = problem.graph, problem.graph.gathered_per_use
        deadline = time.perf_counter() + REFERENCE_SECONDS
        try:
            model = problem.cost_model.with_bytes_dearer(BYTES_DEARER)
            plan = self._propagate(replace(problem.under(model), deadline=deadline))
        except (BudgetError, PropagationError):
            return None
        finally:
            graph.gathered_per_use = kept
        if time.perf_counter() >= deadline:
            return None  # stopped at the limit: not known to be the fewest
        return Candidate(
            1.0, plan, combined_cost(plan, problem.placement, problem.cost_model)
        )

    def _solve_scenarios(self, problem: _Problem) -> Plan:
        """Plan under every scenario, price every plan found under every
        scenario, keep the least worst regret (``sbpc.propagation.scenarios``);
        the plan is then priced, and reported, under the nominal model."""
        cost_model, placement = problem.cost_model, problem.placement
        models = (cost_model, *cost_model.scenarios)
        if cost_model.combine:
            searches = [self._search_combined(problem.under(m)) for m in models]
            found = [c.plan for _, tried in searches for c in tried]
            scales = {id(c.plan): c.scale for _, tried in searches for c in tried}

            def price(plan: Plan, model: CostModel) -> float:
                return (
                    plan.compute_time + combined_cost(plan, placement, model).comm_time
                )

        else:
            found = [self._propagate(problem.under(m)) for m in models]

            def price(plan: Plan, model: CostModel) -> float:
                return _reprice(problem.under(model), plan).total_time

        plans: list[Plan] = []  # distinct plans, first found first
        for plan in found:
            if all(plan.options != p.options for p in plans):
                plans.append(plan)
        choice = least_worst_regret([[price(p, m) for m in models] for p in plans])
        chosen = plans[choice.index]
        repriced = _reprice(problem, chosen)
        stats: dict[str, object] = {
            "scenarios": len(models),
            "scenario_plans": len(plans),
            "worst_regret": round(choice.regrets[choice.index], 4),
        }
        if note := choice.note():
            stats["robust"] = note
        if not cost_model.combine:
            repriced.stats.update(stats)
            return repriced
        candidates = [
            Candidate(scales[id(p)], p, combined_cost(p, placement, cost_model))
            for p in plans
        ]
        plan = combined_plan(candidates[choice.index], candidates, repriced)
        plan.stats.update(stats)
        return plan

    def _propagate(self, problem: _Problem) -> Plan:
        edge_cost, edge_bytes, edge_table = problem.edge_prices()
        strategy: str | Optimal = self.strategy
        if self.strategy == Optimal.name and not self.cluster:
            strategy = Optimal(cluster=False)
        return propagate(
            problem.graph,
            edge_cost,
            strategy,
            edge_bytes=edge_bytes,
            edge_table=edge_table,
            memory_budget=problem.budget,
            time_limit=_seconds_left(problem.deadline),
            # The device's memory (``mem=``, the machine presets) is the
            # budget when none is given.
            memory_capacity=problem.cost_model.memory_capacity,
            improve=bool(self.improve),
        )


def _settled_search(
    solve: Callable[[float], Plan],
    refine: Callable[[float, Plan], list[Plan]],
    price: Callable[[Plan], CombinedCost],
) -> tuple[Candidate, list[Candidate]]:
    """``refine_with_combining`` with the strategy's proof finished beside
    the later rounds (``later_proof``): every candidate's pending proof is
    settled before the search returns, and where one fails (its plan is
    not the strategy's) the search runs again waiting for the proof."""

    def solve_later(scale: float) -> Plan:
        with proofs_later():
            return solve(scale)

    try:
        best, tried = refine_with_combining(solve_later, refine, price)
        with phase("settle proof"):  # what is left of it: waited for here
            for candidate in tried:
                settle_stats(candidate.plan.stats)
        return best, tried
    except ProofFailed:
        return refine_with_combining(solve, refine, price)


def _fitting(
    best: Candidate, tried: list[Candidate], budget: float | None, strategy: str
) -> Candidate:
    """``best``, or where a strategy that plans without the memory budget
    (greedy, bfs) made it over ``budget``, the best of the candidates that
    fit (the later rounds' refinements keep only plans that fit): its own
    plan over the budget is an error (``_check_budget``) only when the
    search found none within it."""
    if budget is None or strategy_named(strategy).honours_memory_budget:
        return best
    if best.plan.graph.is_single_device or best.plan.peak_memory <= budget:
        return best
    fits = [c for c in tried if c.plan.peak_memory <= budget]
    return split_work(fits) if fits else best


def _fence_bytes(value: int | float | str | None) -> float | None:
    """The ``fence_bytes`` option as a number: None (unset), 0 (no fences)
    or a positive number of bytes."""
    if value is None:
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not (number == 0 or 0 < number < math.inf):
        raise OptionError(
            f"fence_bytes must be 0 or a positive number of bytes, not {value}"
        )
    return number


def _seconds_left(deadline: float | None) -> float | None:
    """The seconds a solve may take before ``deadline`` (None: no limit);
    when none are left, ``MIN_SOLVE_SECONDS``: the optimal strategy then
    returns its start, greedy's plan."""
    if deadline is None:
        return None
    return max(deadline - time.perf_counter(), MIN_SOLVE_SECONDS)


def _sweeps(scale: float) -> int:
    """The block sweeps of the refinement round at ``scale``.

    Blocks are solved in the latency-free round only: later rounds' prices
    differ from it by latency alone, and node moves follow them (on the
    examples, block sweeps there found no cheaper plan and cost a second or
    more per round: docs/performance.md, "Planning time")."""
    return 1 if scale == 0.0 else 0


def _round_problem_steps(
    problem: _Problem, cost_model: CostModel, scale: float
) -> Generator[None, None, ShrunkProblem | None]:
    """The pairwise problem a refinement round at latency ``scale`` moves
    on (``shrunk_problem_steps``), in steps."""
    under = problem.under(cost_model.with_latency_scale(scale))
    return (
        yield from shrunk_problem_steps(under.graph, under.edge_costs(), _sweeps(scale))
    )


def _refined(
    problem: _Problem,
    plan: Plan,
    scale: float,
    shrunk: Callable[[], ShrunkProblem | None] | None = None,
    budget: float | None = None,
    per_use: bool = True,
) -> list[Plan]:
    """``plan`` improved locally under the problem's cost model (latency scaled by
    ``scale``; block sweeps at ``scale`` 0 only), from itself and from the
    replicated plan: each a candidate
    (``improve.improve_each``); those with no finite price, or over the
    device's memory (``mem=``), are dropped, and so is ``plan`` itself
    come back unmoved (the search has it: on a model at full depth its
    plan and peak memory cost seconds to build again).  One whose
    arguments alone are over the memory (``memory.argument_bytes``, a
    lower bound of the peak) is dropped before it is built: the
    replicated start's in the node-move rounds, on Mixtral-8x7B at full
    depth.  ``shrunk``: the round's pairwise problem, built before
    (``improve.shrunk_problem``).  ``budget``: a memory budget, which a
    plan must fit too; its peak is then priced with the arguments it
    gathers per use under the budget (``mark_gathers_per_use``), as the
    budgeted solves price theirs; ``per_use`` off, without such gathers (a
    greedy or bfs plan is emitted without them)."""
    graph, costs = problem.graph, problem.edge_costs()
    limits = [m for m in (problem.cost_model.memory_capacity, budget) if m is not None]
    capacity = min(limits, default=None)
    out = []
    sweeps = _sweeps(scale)
    marked = graph.gathered_per_use
    try:
        for found in improve_each(
            graph, costs, plan.options, sweeps=sweeps, shrunk=shrunk
        ):
            if found.options == plan.options:
                continue
            if capacity is not None and argument_bytes(graph, found.options) > capacity:
                continue  # its arguments alone are over: so is its peak, unbuilt
            stats = {"refined_at_scale": round(scale, 4), **found.stats}
            with phase("improve: build plans"):
                try:
                    better = build_plan(
                        graph, found.options, costs, plan.strategy, stats
                    )
                except PropagationError:
                    continue
                if budget is not None and per_use:
                    mark_gathers_per_use(graph, better.options, budget)
                if capacity is None or better.peak_memory <= capacity:
                    out.append(better)
    finally:
        graph.gathered_per_use = marked
    return out


_IMPROVED = "improved locally"


def _refined_from(origin: Plan, plan: Plan, scale: float) -> Plan:
    """``plan``, refined from the budgeted ``origin``, saying so: its status
    names the origin's, and it keeps what the origin's memory price did
    (``memory_price*``: the crossover that made the plan it started from)."""
    kept = {k: v for k, v in origin.stats.items() if k.startswith("memory_price")}
    status = str(origin.stats.get("status", origin.strategy))
    if status.startswith(_IMPROVED):  # refined twice: the plan solved first
        status = status.split(" from: ", 1)[1]
    plan.stats = {
        **kept,
        **plan.stats,
        "status": f"{_IMPROVED} at latency scale {scale:.3g} from: {status}",
        "proven": False,
    }
    return plan  # not ``replace``d: its peak, priced with its gathers, is kept


def _combined_bound(problem: _Problem, free: Plan | None) -> Callable[[], float | None]:
    """``lower_bound.combined_lower_bound`` of the problem's graph under its
    cost model, to compute when read; ``free``: an optimal plan with fixed
    costs free (its proven bound is the first term)."""
    free_bound = None
    if free is not None and free.strategy == Optimal.name:
        free_bound = proven_bound(free.stats)
    placement, cost_model = problem.placement, problem.cost_model
    free_costs = problem.under(cost_model.with_latency_scale(0.0)).edge_costs()

    def local_table(
        srcs: Sequence[NdSbp], dsts: Sequence[NdSbp | None], tensor: TensorType
    ) -> np.ndarray:
        return price_table(srcs, dsts, tensor, placement, cost_model, local=True)

    def local_time(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
        return float(local_table([src], [dst], tensor)[0, 0])

    hierarchy = placement.hierarchy
    fixed = min(
        float(cost_model.step_latency(kind, (d,), hierarchy))
        for d, n in enumerate(hierarchy)
        if n > 1
        for kind in (CollectiveKind.ALL_GATHER, CollectiveKind.ALL_TO_ALL)
    )
    return lambda: combined_lower_bound(
        problem.graph,
        free_costs,
        EdgeCosts(local_time, None, False, local_table),
        fixed,
        free_bound,
    )


def _reprice(problem: _Problem, plan: Plan) -> Plan:
    """``plan``'s options with every layout change priced under the
    problem's cost model (one latency per collective)."""
    graph = problem.graph
    costs = problem.edge_costs(graph.is_single_device)
    return build_plan(graph, plan.options, costs, plan.strategy, plan.stats)


def _edge_prices(
    placement: Placement, cost_model: CostModel
) -> tuple[EdgeCost, EdgeCost, EdgeTable]:
    """Time, bytes and whole-table prices of layout changes on ``placement``."""

    def edge_cost(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
        boxing.check_layout_space(tensor, placement.hierarchy)
        try:
            return boxing.plan(src, dst, tensor, placement, cost_model).time
        except boxing.BoxingError:
            return math.inf

    def edge_bytes(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
        try:
            return boxing.plan(src, dst, tensor, placement, cost_model).bytes
        except boxing.BoxingError:
            return math.inf

    def edge_table(
        srcs: Sequence[NdSbp], dsts: Sequence[NdSbp | None], tensor: TensorType
    ) -> np.ndarray:
        return price_table(srcs, dsts, tensor, placement, cost_model)

    return edge_cost, edge_bytes, edge_table


def price_table(
    srcs: Sequence[NdSbp],
    dsts: Sequence[NdSbp | None],
    tensor: TensorType,
    placement: Placement,
    cost_model: CostModel,
    local: bool = False,
) -> np.ndarray:
    """The boxing planner's time for every (src, dst) pair, as the pass's
    ``edge_cost`` gives it one by one: 0 to keep a layout or to a free
    result (``None``), ``inf`` where no collectives get there (``local``:
    where local steps alone do not, ``boxing.local_matrix``)."""
    boxing.check_layout_space(tensor, placement.hierarchy)
    times = _padded_times(tensor, placement.hierarchy, cost_model, local)
    rows = _positions(times.index, srcs)
    padded = times.with_rows(rows)
    out = padded[np.ix_(rows, _positions(times.index, dsts))]
    for c, d in enumerate(dsts):
        if d is None:
            out[:, c] = 0.0
    for r in np.flatnonzero(rows < 0):  # rejected layouts: only keeping is free
        for c, d in enumerate(dsts):
            if d == srcs[r]:
                out[r, c] = 0.0
    return out


# Where each layout of a tuple sits in its tensor's time matrix, by the
# tuple's identity: the combining search prices one graph's layout tuples
# (``edge_uses``') at every latency scale, and looking each layout up hashes
# ``Sbp`` dataclasses (a scanned decoder's step: 561 tables a problem, four
# problems).  Lists are looked up each time (one may change after it is
# priced); the memo holds what it keys, so an id found again is the same
# object.
_POSITIONS: dict[tuple[int, int], tuple[dict, tuple, np.ndarray]] = {}
_POSITIONS_KEPT = 8192


def _positions(index: dict[NdSbp, int], layouts: Sequence[NdSbp | None]) -> np.ndarray:
    """``index[layout]`` per layout, -1 for a layout the planner rejects or
    a free result (None); read-only."""
    key = (id(index), id(layouts))
    hit = _POSITIONS.get(key)
    if hit is not None and hit[0] is index and hit[1] is layouts:
        return hit[2]
    found = np.array(
        [-1 if nd is None else index.get(nd, -1) for nd in layouts], dtype=np.int64
    )
    found.flags.writeable = False
    if isinstance(layouts, tuple):
        if len(_POSITIONS) >= _POSITIONS_KEPT:
            _POSITIONS.clear()
        _POSITIONS[key] = (index, layouts, found)
    return found


@dataclass
class _Times:
    """``boxing.time_matrix`` of one tensor as an array, each row computed
    when first asked for (``boxing.time_rows``), with one more row and column
    of ``inf`` (index -1) for layouts the planner rejects; ``local``:
    ``inf`` too where local steps alone do not connect a pair."""

    tensor: TensorType
    hierarchy: tuple[int, ...]
    cost_model: CostModel
    local: bool
    index: dict[NdSbp, int]
    padded: np.ndarray
    filled: np.ndarray  # which rows hold their times

    def with_rows(self, rows: np.ndarray) -> np.ndarray:
        """The array, ``rows`` filled in."""
        missing = np.unique(rows[~self.filled[rows]]).tolist()
        if not missing:
            return self.padded
        found = boxing.time_rows(self.tensor, self.hierarchy, self.cost_model, missing)
        self.padded[missing, :-1] = found
        if self.local:
            _, reach = boxing.local_matrix(self.tensor, self.hierarchy, self.cost_model)
            for r in missing:
                self.padded[r, :-1][~np.array(reach[r], dtype=bool)] = math.inf
        self.filled[missing] = True
        return self.padded


@lru_cache(maxsize=256)
def _padded_times(
    tensor: TensorType,
    hierarchy: tuple[int, ...],
    cost_model: CostModel,
    local: bool = False,
) -> _Times:
    """The tensor's ``_Times``, no row computed yet."""
    index = boxing.layout_index(tensor, hierarchy, cost_model)
    n = len(index)
    filled = np.zeros(n + 1, dtype=bool)
    filled[-1] = True  # the rejected layouts' row: inf
    padded = np.full((n + 1, n + 1), math.inf)
    return _Times(tensor, hierarchy, cost_model, local, index, padded, filled)
