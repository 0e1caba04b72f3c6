"""``sbp-propagate``: give every tensor op one legal SBP signature.

A thin adapter: it reads each function into the plain ``SbpGraph`` (one per
placement), asks the op rules for candidate signatures, prices layout changes
with the boxing planner under the cost model, runs the chosen strategy
(``greedy``: OneFlow; ``bfs``: MindSpore's propagation from configured ops;
``optimal``: an integer program), and writes the answer back:

- ``sbp.sig`` on every tensor op (a signature present before is a constraint);
- ``sbp.nd_sbp`` on every function argument and result without one, so the
  later passes see every layout.

Options: ``strategy``, ``cost_model`` (``CostModel.parse`` syntax),
``report`` (a path, or ``-`` for stderr) with ``report_format`` text|json,
``memory_budget`` (bytes per device, optimal only), ``time_limit`` (seconds,
optimal only).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from sbpc.algebra.layout import UnevenSplitError, check_even
from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp, Partial
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner as boxing
from sbpc.boxing.cost_model import CostModel, CostModelError
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.diagnostics import LocatedError, emit
from sbpc.ops.cost import compute_costs
from sbpc.ops.registry import has_rule, nd_signatures, signatures_1d
from sbpc.propagation.driver import STRATEGIES, propagate
from sbpc.propagation.graph import GraphError, PropagationError, SbpGraph
from sbpc.propagation.plan import Plan
from sbpc.propagation.report import format_report

from .bridge.ops import UnsupportedTypeError, is_tensor_op, op_spec_of, plain_type


def _op_label(op: Operation) -> str:
    """A readable name for reports: the op name and its first result's name."""
    name = op.results[0].name_hint if op.results and op.results[0].name_hint else ""
    return f"{op.name}" + (f" %{name}" if name else "")


@dataclass(frozen=True)
class FunctionPlan:
    """The plan chosen for one function on one placement."""

    function: str
    placement: Placement
    plan: Plan


@dataclass
class _Graphs:
    """One ``SbpGraph`` per placement, with the IR objects behind its nodes."""

    cost_model: CostModel
    graphs: dict[Placement, SbpGraph] = field(default_factory=dict)
    values: dict[tuple[Placement, SSAValue], int] = field(default_factory=dict)
    op_nodes: dict[Placement, list[tuple[int, Operation]]] = field(default_factory=dict)
    arg_nodes: dict[Placement, list[tuple[int, int]]] = field(default_factory=dict)
    result_nodes: dict[Placement, list[tuple[int, int]]] = field(default_factory=dict)

    def graph(self, placement: Placement) -> SbpGraph:
        if placement not in self.graphs:
            self.graphs[placement] = SbpGraph(placement.hierarchy)
            self.op_nodes[placement] = []
            self.arg_nodes[placement] = []
            self.result_nodes[placement] = []
        return self.graphs[placement]


def free_layouts(tensor: TensorType, hierarchy: Sequence[int]) -> list[NdSbp]:
    """Layouts an unannotated argument or result may take: no partial values."""
    return [
        nd
        for nd in boxing.candidate_layouts(tensor, tuple(hierarchy))
        if not any(isinstance(s, Partial) for s in nd)
    ]


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
        try:
            cost_model = CostModel.parse(self.cost_model)
        except CostModelError as e:
            raise LocatedError(op, f"bad cost_model option: {e}") from e
        plans: list[FunctionPlan] = []
        for f in op.ops:
            if isinstance(f, func.FuncOp) and not f.is_declaration:
                plans.extend(self._run_function(op, f, cost_model))
        return plans

    def _report(self, p: FunctionPlan) -> str:
        if self.report_format == "json":
            return format_report(p.plan, "json")
        header = f"// sbp-propagate @{p.function} on {p.placement}"
        return header + "\n" + format_report(p.plan, "text")

    # -- one function --------------------------------------------------------

    def _run_function(
        self, module: ModuleOp, f: func.FuncOp, cost_model: CostModel
    ) -> list[FunctionPlan]:
        default = sbp_dialect.module_placement(module)
        if default is None:
            raise LocatedError(f, sbp_dialect.NO_PLACEMENT)
        placements = sbp_dialect.placement_map(module)
        graphs = _Graphs(cost_model)
        self._add_arguments(f, graphs, placements, default)
        for op in f.body.ops:
            self._add_op(op, f, graphs, placements, default)
        plans = []
        for placement, graph in graphs.graphs.items():
            plan = self._solve(f, graph, placement, cost_model)
            self._write_back(f, graphs, placement, plan)
            plans.append(FunctionPlan(f.sym_name.data, placement, plan))
        return plans

    def _placement(self, value: SSAValue, placements, default: Placement) -> Placement:
        return placements.get(value, default)

    def _add_arguments(self, f, graphs: _Graphs, placements, default) -> None:
        for i, arg in enumerate(f.args):
            try:
                tensor = plain_type(arg.type)
            except UnsupportedTypeError as e:
                raise LocatedError(f, f"argument #{i}: {e}") from e
            placement = self._placement(arg, placements, default)
            graph = graphs.graph(placement)
            layout = sbp_dialect.get_nd_sbp_arg_attr(f, i)
            name = f"%{arg.name_hint or f'arg{i}'}"
            if layout is not None:
                value = graph.add_argument(name, tensor, layout=layout)
            else:
                candidates = free_layouts(tensor, placement.hierarchy)
                value = graph.add_argument(name, tensor, candidates=candidates)
            graphs.values[(placement, arg)] = value
            graphs.arg_nodes[placement].append((graph.values[value].producer, i))

    def _operand_value(
        self, op: Operation, operand: SSAValue, placement: Placement, graphs: _Graphs
    ) -> int:
        key = (placement, operand)
        if key not in graphs.values:
            raise LocatedError(
                op,
                "operand comes from another placement without an sbp.cast ... on "
                "to move it",
            )
        return graphs.values[key]

    def _add_op(self, op: Operation, f, graphs: _Graphs, placements, default) -> None:
        if isinstance(op, func.ReturnOp):
            self._add_results(op, f, graphs, placements, default)
            return
        if isinstance(op, sbp_dialect.CollectiveOp | sbp_dialect.TransferOp):
            raise LocatedError(
                op, "sbp-propagate runs before sbp-lower-boxing: found a collective"
            )
        if isinstance(op, sbp_dialect.CastOp):
            self._add_cast(op, graphs, placements, default)
            return
        if not op.operands and not op.results:
            return
        if not is_tensor_op(op):
            raise LocatedError(
                op,
                f"'{op.name}' does not compute on ranked tensors only; "
                "sbp-propagate cannot lay it out",
            )
        placement = self._placement(op.results[0], placements, default)
        graph = graphs.graph(placement)
        try:
            spec = op_spec_of(op)
        except UnsupportedTypeError as e:
            raise LocatedError(op, str(e)) from e
        if not has_rule(spec):
            emit(
                "warning",
                op,
                f"no SBP rule for '{op.name}': it runs replicated (all-B)",
            )
        candidates = nd_signatures(spec, placement.hierarchy)
        fixed = sbp_dialect.get_signature(op)
        if fixed is not None:
            self._check_user_signature(op, spec, fixed, candidates, placement)
        operands = [self._operand_value(op, v, placement, graphs) for v in op.operands]
        costs = compute_costs(spec, candidates, placement.hierarchy, graphs.cost_model)
        try:
            results = graph.add_op(
                _op_label(op),
                operands,
                spec.results,
                candidates,
                fixed=fixed,
                compute_costs=costs,
            )
        except GraphError as e:
            raise LocatedError(op, str(e)) from e
        for value, r in zip(results, op.results, strict=True):
            graphs.values[(placement, r)] = value
        graphs.op_nodes[placement].append((graph.values[results[0]].producer, op))

    def _check_user_signature(
        self,
        op: Operation,
        spec,
        sig: Signature,
        candidates: list[Signature],
        placement: Placement,
    ) -> None:
        if sig in candidates:
            return
        for nd, t in zip(
            (*sig.inputs, *sig.outputs), (*spec.operands, *spec.results), strict=True
        ):
            try:
                check_even(t.shape, nd, placement.hierarchy)
            except UnevenSplitError as e:
                raise LocatedError(
                    op, f"sbp.sig {sig} needs an uneven split: {e}"
                ) from e
        shown = candidates if placement.ndim > 1 else signatures_1d(spec)
        listing = "\n".join(f"  {s}" for s in shown[:40])
        more = f"\n  ... and {len(shown) - 40} more" if len(shown) > 40 else ""
        raise LocatedError(
            op,
            f"sbp.sig {sig} is not a legal signature of '{op.name}'; "
            f"legal signatures:\n{listing}{more}",
        )

    def _add_cast(
        self, op: sbp_dialect.CastOp, graphs: _Graphs, placements, default
    ) -> None:
        src_placement = self._placement(op.operands[0], placements, default)
        dst_placement = self._placement(op.results[0], placements, default)
        target = op.nd_sbp.nd_sbp
        tensor = plain_type(op.results[0].type)
        source = self._operand_value(op, op.operands[0], src_placement, graphs)
        if src_placement == dst_placement:
            graph = graphs.graph(src_placement)
            sig = Signature((target,), (target,))
            (value,) = graph.add_op(_op_label(op), [source], [tensor], [sig], fixed=sig)
            graphs.values[(dst_placement, op.results[0])] = value
            return
        # Across placements: the source side delivers any layout (the boxing
        # planner picks the cheapest route); the target side starts fixed.
        graphs.graph(src_placement).add_result(_op_label(op), source, None)
        graph = graphs.graph(dst_placement)
        value = graph.add_argument(_op_label(op), tensor, layout=target)
        graphs.values[(dst_placement, op.results[0])] = value

    def _add_results(self, ret: func.ReturnOp, f, graphs: _Graphs, placements, default):
        for i, v in enumerate(ret.arguments):
            placement = self._placement(v, placements, default)
            graph = graphs.graph(placement)
            value = self._operand_value(ret, v, placement, graphs)
            wanted = sbp_dialect.get_nd_sbp_res_attr(f, i)
            accepted = (
                [wanted]
                if wanted is not None
                else free_layouts(graph.values[value].tensor, placement.hierarchy)
            )
            node = graph.add_result(f"result #{i}", value, accepted)
            graphs.result_nodes[placement].append((node, i))

    def _solve(
        self, f: func.FuncOp, graph: SbpGraph, placement: Placement, cost_model
    ) -> Plan:
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
                self.strategy,  # type: ignore[arg-type]
                edge_bytes=edge_bytes,
                memory_budget=self.memory_budget or None,
                time_limit=self.time_limit or None,
            )
        except (PropagationError, GraphError) as e:
            raise LocatedError(f, str(e)) from e

    def _write_back(
        self, f: func.FuncOp, graphs: _Graphs, placement: Placement, plan: Plan
    ) -> None:
        for node, op in graphs.op_nodes[placement]:
            sbp_dialect.set_signature(op, plan.signatures[node])
        for node, i in graphs.arg_nodes[placement]:
            if sbp_dialect.get_nd_sbp_arg_attr(f, i) is None:
                sbp_dialect.set_nd_sbp_arg_attr(f, i, plan.sources[node])
        for node, i in graphs.result_nodes[placement]:
            delivered = plan.sinks[node]
            if delivered is not None and sbp_dialect.get_nd_sbp_res_attr(f, i) is None:
                sbp_dialect.set_nd_sbp_res_attr(f, i, delivered)
