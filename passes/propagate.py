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
``report`` (a path, or ``-`` for stderr) with ``report_format`` text|json,
``memory_budget`` (bytes per device, optimal only), ``time_limit`` (seconds,
optimal only), ``trip_count`` (iterations assumed for a ``while`` whose count
is not JAX's counted form; see ``bridge/regions.py``).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner as boxing
from sbpc.boxing.cost_model import CostModel, CostModelError
from sbpc.dialects.diagnostics import LocatedError
from sbpc.propagation.driver import STRATEGIES, propagate
from sbpc.propagation.graph import GraphError, PropagationError, SbpGraph
from sbpc.propagation.plan import Plan
from sbpc.propagation.report import format_report

from .bridge.graph import function_graphs


@dataclass(frozen=True)
class FunctionPlan:
    """The plan chosen for one function on one placement."""

    function: str
    placement: Placement
    plan: Plan


@dataclass(frozen=True)
class SbpPropagatePass(ModulePass):
    """Choose an SBP signature for every tensor op (see the module docstring)."""

    name = "sbp-propagate"

    strategy: str = "greedy"
    cost_model: str = "default"
    report: str = ""
    report_format: str = "text"
    memory_budget: int | float = 0
    time_limit: int | float = 0
    trip_count: int = 1

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        plans = self.plan_module(op)
        if self.report:
            text = "\n".join(self._report(p) for p in plans)
            if self.report == "-":
                print(text, file=sys.stderr)
            else:
                with open(self.report, "w") as out:
                    out.write(text + ("\n" if text and not text.endswith("\n") else ""))

    def plan_module(self, op: ModuleOp) -> list[FunctionPlan]:
        """Propagate every defined function, write the answer back, and return
        the plans (the API reads them instead of a report file)."""
        if self.strategy not in STRATEGIES:
            raise LocatedError(
                op,
                f"unknown strategy '{self.strategy}', expected one of "
                + ", ".join(STRATEGIES),
            )
        if self.report_format not in ("text", "json"):
            raise LocatedError(
                op, f"unknown report_format '{self.report_format}' (text or json)"
            )
        if self.trip_count < 0:
            raise LocatedError(
                op, f"trip_count must be at least 0, not {self.trip_count}"
            )
        try:
            cost_model = CostModel.parse(self.cost_model)
        except CostModelError as e:
            raise LocatedError(op, f"bad cost_model option: {e}") from e
        plans: list[FunctionPlan] = []
        for f in op.ops:
            if isinstance(f, func.FuncOp) and not f.is_declaration:
                graphs = function_graphs(op, f, cost_model, self.trip_count)
                for placement, graph in graphs.graphs.items():
                    plan = self._solve(f, graph, placement, cost_model)
                    graphs.write_back(placement, plan)
                    plans.append(FunctionPlan(f.sym_name.data, placement, plan))
        return plans

    def _report(self, p: FunctionPlan) -> str:
        if self.report_format == "json":
            return format_report(p.plan, "json")
        header = f"// sbp-propagate @{p.function} on {p.placement}"
        return header + "\n" + format_report(p.plan, "text")

    def _solve(
        self,
        f: func.FuncOp,
        graph: SbpGraph,
        placement: Placement,
        cost_model: CostModel,
    ) -> Plan:
        """The driver's plan, with layout changes priced by the boxing planner."""

        def edge_cost(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
            try:
                return boxing.plan(src, dst, tensor, placement, cost_model).time
            except boxing.BoxingError:
                return math.inf

        def edge_bytes(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
            try:
                return boxing.plan(src, dst, tensor, placement, cost_model).bytes
            except boxing.BoxingError:
                return math.inf

        try:
            return propagate(
                graph,
                edge_cost,
                self.strategy,
                edge_bytes=edge_bytes,
                memory_budget=self.memory_budget or None,
                time_limit=self.time_limit or None,
            )
        except (PropagationError, GraphError) as e:
            raise LocatedError(f, str(e)) from e
