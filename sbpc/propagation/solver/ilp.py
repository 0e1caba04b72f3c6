"""The local-polytope integer program of one core, for HiGHS.

One column per label of a core node and per entry of a factor's table,
marginal rows tying them (so the LP relaxation is the local polytope, and
usually integral on these problems), optional memory rows under a budget.
Built column by column in numpy; ``Optimal`` (``optimal.py``) decides
when to solve it and what to do with the answer.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import highspy
import numpy as np

from sbpc.propagation import progress
from sbpc.propagation.memory_rows import MemoryRows
from sbpc.propagation.solver.idle_work import while_solving
from sbpc.propagation.solver.pairwise import PairwiseProblem

# HiGHS's dual simplex perturbs the costs to get past degenerate vertices
# (multiplier 1 by default).  On the decoders' LPs (every label's marginal
# row degenerate) a tenth of it runs the same number of iterations about a
# third faster and ends on the same vertex: the same labels on the 33 LPs
# of three library rows.  Their duals differ (another optimum of the dual),
# so an LP whose duals are reused as messages keeps the default.
COST_PERTURBATION = 0.1


def percent(gap: float) -> str:
    return f"{100 * gap:.3g}%" if math.isfinite(gap) else "unknown"


@dataclass
class IlpResult:
    labels: list[int] | None
    objective: float
    status: str
    stats: dict


def _starts(sizes: np.ndarray) -> np.ndarray:
    """Where each of consecutive blocks of ``sizes`` starts (0 first)."""
    out = np.zeros(len(sizes), dtype=np.int64)
    np.cumsum(sizes[:-1], out=out[1:])
    return out


class Ilp:
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
        # Columns: every core node's labels, then every factor's entries;
        # rows: one per node, then each factor's row and column groups.
        # Built for all nodes and all factors at once: numpy calls per
        # factor took most of the build, and blocks' LPs are built by the
        # dozen (the improvement's block sweeps).
        sizes = np.array([problem.sizes[v] for v in self.core], dtype=np.int64)
        starts = _starts(sizes)
        col_of = dict(zip(self.core, starts.tolist(), strict=True))
        n_cols = int(sizes.sum())
        cost: list[np.ndarray] = []
        upper: list[np.ndarray] = []
        rows_i: list[np.ndarray] = []
        cols_i: list[np.ndarray] = []
        vals: list[np.ndarray] = []
        if self.core:
            u = np.concatenate([problem.unary[v] for v in self.core])
            cost.append(np.where(np.isfinite(u), u, 0.0))
            upper.append(np.where(np.isfinite(u), 1.0, 0.0))
            rows_i.append(np.repeat(np.arange(len(self.core)), sizes))
            cols_i.append(np.arange(n_cols))
            vals.append(np.ones(n_cols))
        self.col_of = col_of
        self.n_x = n_cols
        n_rows = len(self.core)
        lower: list[float] = [1.0] * n_rows  # one label per node
        upper_row: list[float] = [1.0] * n_rows
        factors = list(problem.factors.values())
        if factors:
            shape = np.array([f.table.shape for f in factors], dtype=np.int64)
            n_r, n_c = shape[:, 0], shape[:, 1]
            entries = n_r * n_c
            flat = np.concatenate([f.table.reshape(-1) for f in factors])
            cost.append(np.where(np.isfinite(flat), flat, 0.0))
            upper.append(np.where(np.isfinite(flat), np.inf, 0.0))
            row0 = n_rows + _starts(n_r + n_c)  # each factor's first row
            of_e = np.repeat(np.arange(len(factors)), entries)
            e_cols = n_cols + np.arange(len(flat))
            local = e_cols - (n_cols + _starts(entries))[of_e]
            # rows: sum_c e[r, c] - sum_{i in r} x[a, i] = 0, then the columns
            rows_i += [row0[of_e] + local // n_c[of_e]]
            rows_i += [row0[of_e] + n_r[of_e] + local % n_c[of_e]]
            cols_i += [e_cols, e_cols]
            vals += [np.ones(len(flat)), np.ones(len(flat))]
            for end, groups, first in (("a", "ga", row0), ("b", "gb", row0 + n_r)):
                g = [getattr(f, groups) for f in factors]
                labels = np.array([len(x) for x in g], dtype=np.int64)
                of_x = np.repeat(np.arange(len(factors)), labels)
                label = np.arange(len(of_x)) - _starts(labels)[of_x]
                col0 = np.array([col_of[getattr(f, end)] for f in factors])
                rows_i.append(first[of_x] + np.concatenate(g))
                cols_i.append(col0[of_x] + label)
                vals.append(-np.ones(len(of_x)))
            n_cols += len(flat)
            n_rows += int((n_r + n_c).sum())
            lower += [0.0] * (n_rows - len(self.core))
            upper_row += [0.0] * (n_rows - len(self.core))
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
        # Row-major order (the same as ``np.lexsort((cc, r))``, faster).
        order = np.argsort(r.astype(np.int64) * max(n_cols, 1) + cc, kind="stable")
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
        # The arrays go to HiGHS as they are (``passModel``'s array form):
        # filling a ``HighsLp`` field by field converted every entry, a
        # tenth of a second on the decoders' 291,040 columns; the same model.
        integrality = np.zeros(self.n_cols, dtype=np.int32)  # kContinuous
        if integer:
            integrality[: self.n_x] = int(highspy.HighsVarType.kInteger)
        h.passModel(
            self.n_cols,
            self.n_rows,
            len(self.a_value),
            int(highspy.MatrixFormat.kRowwise),
            int(highspy.ObjSense.kMinimize),
            0.0,
            self.cost,
            np.zeros(self.n_cols),
            self.col_upper,
            self.row_lower,
            self.row_upper,
            self.a_start,
            self.a_index,
            self.a_value,
            integrality,
        )
        return h

    def solve_relaxation(
        self,
        time_limit: float | None,
        rel_gap: float,
        threads: int | None,
        dual_tolerance: float | None = None,
        rounded_gap: float | None = None,
    ) -> IlpResult | None:
        """The LP relaxation's optimum when it is integral (then it is the
        integer program's proven optimum); None when it is not, or not found.
        ``rounded_gap``: a fractional optimum's rounding is kept within this
        gap of the LP's bound (default ``rel_gap``; ``_integral_result``).

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
        else:  # only the primal answer is read: the lighter perturbation
            h.setOptionValue(
                "dual_simplex_cost_perturbation_multiplier", COST_PERTURBATION
            )
        report = progress.current()
        what = f"optimal: LP relaxation of {self.n_cols} columns"
        started = time.perf_counter()
        report.ticking(lambda: f"{what} ... {time.perf_counter() - started:.1f} s")
        while_solving(h.run)  # queued work the search will need runs meanwhile
        self.relaxed = h
        seconds = time.perf_counter() - started
        result = self._integral_result(h, seconds, rel_gap, rounded_gap)
        outcome = "not integral: ILP next"
        if result is not None and result.stats["proven"]:
            outcome = result.status.removeprefix("Optimal (").removesuffix(
                " LP relaxation)"
            )
            outcome += ": a proven optimum"  # "integral" or "rounded"
        elif result is not None:  # kept within the caller's ``rounded_gap``
            outcome = result.status
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
        self,
        h: highspy.Highs,
        seconds: float,
        rel_gap: float,
        rounded_gap: float | None = None,
    ) -> IlpResult | None:
        """The solved relaxation as the integer program's result, if it is one.

        A fractional optimum is rounded (each node its largest label, then
        single-node moves from the fractional nodes while they lower the
        total): the local polytope's optimal face is often degenerate, the
        simplex ending on a fractional vertex beside integral ones of the
        same cost, and a rounding that costs the LP's bound (within
        ``rel_gap``) is proven optimal as surely as an integral vertex.
        Otherwise the MIP decides: on Llama-3-70B's scanned step two memory
        prices' LPs ended fractional (5 of 232 nodes), and HiGHS's MIP spent
        10 s each in presolve and its root LP to find the integral optimum
        beside them (docs/planning-time.md, session 14).  A caller that needs
        a good plan, not a proof (the memory price), keeps a rounding within
        ``rounded_gap`` of the bound: not proven optimal then."""
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        x = np.asarray(h.getSolution().col_value)[: self.n_x]
        labels: list[int] = []
        fractional: list[int] = []
        for v in self.core:
            xv = x[self.col_of[v] : self.col_of[v] + self.problem.sizes[v]]
            labels.append(int(np.argmax(xv)))
            if np.any(np.minimum(xv, 1.0 - xv) > 1e-6):
                fractional.append(v)
        rounded = bool(fractional)
        if rounded and self.memory is None:  # moves priced without the rows
            full = [0] * len(self.problem)
            for v, label in zip(self.core, labels, strict=True):
                full[v] = label
            self.problem.descend(full, fractional)
            labels = [full[v] for v in self.core]
        objective = self.problem.constant + self.problem_energy(labels)
        bound = self.problem.constant + h.getInfo().objective_function_value * (
            self.scale
        )
        gap = max(0.0, objective - bound) / max(abs(objective), 1e-300)
        accept = max(rel_gap, rounded_gap or 0.0) if rounded else rel_gap
        if not math.isfinite(objective) or gap > accept:
            return None
        proven = gap <= rel_gap
        if self.memory is not None and self.budget is not None:
            peak = self.memory.peak(dict(zip(self.core, labels, strict=True)))
            if peak > self.budget:
                return None
        stats = {
            "ilp_columns": self.n_cols,
            "ilp_rows": self.n_rows,
            "ilp_nonzeros": len(self.a_value),
            "status": (
                "Optimal (integral LP relaxation)"
                if not rounded
                else "Optimal (rounded LP relaxation)"
                if proven
                else f"rounded LP relaxation (within {percent(gap)} of its bound)"
            ),
            "proven": proven,
            "gap": gap,
            "seconds_highs": seconds,
            "branch_nodes": 0,
            "objective": objective,
        }
        return IlpResult(labels, objective, stats["status"], stats)

    def solve(
        self,
        time_limit: float | None,
        rel_gap: float,
        threads: int | None,
        start: list[int] | None = None,
        max_nodes: int | None = None,
        reliable_branching: bool = True,
    ) -> IlpResult:
        """The integer program's best answer within ``time_limit`` seconds
        and ``max_nodes`` branch-and-bound nodes (a bound on the work that
        does not depend on the machine's speed); ``start``: an incumbent.
        ``reliable_branching`` off: HiGHS branches on pseudo-costs without
        first making them reliable by strong branching
        (``mip_pscost_minreliable=0``), the same optimum by other nodes."""
        h = self._highs(time_limit, threads, integer=True)
        h.setOptionValue("mip_rel_gap", rel_gap)
        h.setOptionValue("mip_abs_gap", 0.0)
        if max_nodes is not None:
            h.setOptionValue("mip_max_nodes", max_nodes)
        if not reliable_branching:
            h.setOptionValue("mip_pscost_minreliable", 0)
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
        report.done("optimal: ILP", seconds, f"{status}, gap {percent(gap)}")
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
            return IlpResult(None, math.inf, status, stats)
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
        return IlpResult(labels, objective, status, stats)

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
