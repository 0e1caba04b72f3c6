"""A function as plain ``SbpGraph``s (one per placement), and a plan written back.

The strategies search a plain graph; this adapter reads it off the IR: every
function argument becomes a source (its ``sbp.nd_sbp``, or free among the
non-partial layouts), every tensor op an op node with the candidate
signatures of the op rules and their compute costs (a ``sbp.sig`` already
there is a user constraint), every ``sbp.cast`` a fixed op (or, across
placements, a result on one side and a given argument on the other), and
every returned value a result (its ``sbp.nd_sbp``, or any non-partial
layout).  What the IR cannot express as such a graph is a located error.
``FunctionGraphs.write_back`` does the reverse with a ``Plan``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from functools import cache, lru_cache

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from sbpc.algebra.layout import UnevenSplitError, check_even
from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp, Partial
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.cost_model import CostModel
from sbpc.boxing.planner import candidate_layouts
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.diagnostics import LocatedError, emit
from sbpc.dialects.sbp.pipeline import AccumulateOp, loop_repeats
from sbpc.ops.cost import compute_costs
from sbpc.ops.halo import halos
from sbpc.ops.registry import has_rule, nd_signature_tuple, signatures_1d
from sbpc.ops.spec import OpSpec
from sbpc.ops.uneven import uneven_ok
from sbpc.propagation.graph import GraphError, NodeId, SbpGraph
from sbpc.propagation.plan import Plan

from .ops import (
    UnsupportedTypeError,
    is_tensor_op,
    op_label,
    op_spec_of,
    plain_type,
)
from .regions import REGION_OPS, add_region_op


def free_layouts(tensor: TensorType, hierarchy: Sequence[int]) -> list[NdSbp]:
    """Layouts an unannotated argument or result may take: no partial values
    (DESIGN.md: a partial result is reduced before it is returned)."""
    return list(_free_layouts(tensor, tuple(hierarchy)))


@lru_cache(maxsize=1024)
def _free_layouts(tensor: TensorType, hierarchy: tuple[int, ...]) -> tuple[NdSbp, ...]:
    """``free_layouts`` once per (type, hierarchy): a model's thousands of
    weights have a few dozen types."""
    return tuple(
        nd
        for nd in candidate_layouts(tensor, hierarchy)
        if not any(isinstance(s, Partial) for s in nd)
    )


# Argument attributes by which JAX marks a donated buffer (``donate_argnums``):
# one aliased to a result, and one only given up.
DONATED = ("tf.aliasing_output", "jax.buffer_donor")


@dataclass
class FunctionGraphs:
    """One ``SbpGraph`` per placement of a function (in order of first use),
    with the IR behind its nodes so that a plan can be written back."""

    function: func.FuncOp
    graphs: dict[Placement, SbpGraph] = field(default_factory=dict)
    op_nodes: dict[Placement, list[tuple[NodeId, Operation]]] = field(
        default_factory=dict
    )
    arg_nodes: dict[Placement, list[tuple[NodeId, int]]] = field(default_factory=dict)
    result_nodes: dict[Placement, list[tuple[NodeId, int]]] = field(
        default_factory=dict
    )
    # Ops that are several nodes (regions, barriers): the signature from the plan.
    composites: dict[Placement, list[tuple[Operation, Callable[[Plan], Signature]]]] = (
        field(default_factory=dict)
    )

    def graph(self, placement: Placement) -> SbpGraph:
        if placement not in self.graphs:
            self.graphs[placement] = SbpGraph(placement.hierarchy)
            self.op_nodes[placement] = []
            self.arg_nodes[placement] = []
            self.result_nodes[placement] = []
            self.composites[placement] = []
        return self.graphs[placement]

    def write_back(self, placement: Placement, plan: Plan) -> None:
        """``sbp.sig`` on every op of ``placement``'s graph; ``sbp.nd_sbp`` on
        its arguments and results that have none, so later passes see every
        layout; ``sbp.gather_per_use`` on the arguments the plan gathers
        per use."""
        f = self.function
        signatures = plan.signatures
        sbp_dialect.set_signatures(
            (op, signatures[node]) for node, op in self.op_nodes[placement]
        )
        for op, signature in self.composites[placement]:
            sbp_dialect.set_signature(op, signature(plan))
        sbp_dialect.set_nd_sbp_arg_attrs(
            f,
            {
                i: plan.sources[node]
                for node, i in self.arg_nodes[placement]
                if sbp_dialect.get_nd_sbp_arg_attr(f, i) is None
            },
        )
        per_use = plan.graph.gathered_per_use
        for node, i in self.arg_nodes[placement]:
            if plan.graph.nodes[node].result in per_use:
                sbp_dialect.set_gathered_per_use(f, i)
        for node, i in self.result_nodes[placement]:
            delivered = plan.sinks[node]
            if delivered is not None and sbp_dialect.get_nd_sbp_res_attr(f, i) is None:
                sbp_dialect.set_nd_sbp_res_attr(f, i, delivered)


def function_graphs(
    module: ModuleOp,
    f: func.FuncOp,
    cost_model: CostModel,
    trip_count: int = 1,
    placements: Mapping[SSAValue, Placement] | None = None,
) -> FunctionGraphs:
    """``f`` as one graph per placement (the module's ``sbp.placement`` is the
    default; compute costs under ``cost_model``; ``trip_count``: iterations of
    a loop whose count cannot be read off it; ``placements``: the module's
    ``placement_map`` when the caller has it)."""
    default = sbp_dialect.module_placement(module)
    if default is None:
        raise LocatedError(f, sbp_dialect.NO_PLACEMENT)
    builder = _Builder(
        FunctionGraphs(f),
        cost_model,
        sbp_dialect.placement_map(module) if placements is None else placements,
        default,
        default_trip_count=trip_count,
    )
    builder.add_arguments()
    for op in f.body.ops:
        builder.add_op(op)
    return builder.out


@dataclass
class _Builder:
    """Walks one function, adding nodes to the graph of each value's placement."""

    out: FunctionGraphs
    cost_model: CostModel
    placements: Mapping[SSAValue, Placement]
    default: Placement
    # Each IR value's placement and graph value (one placement per IR value).
    values: dict[SSAValue, tuple[Placement, int]] = field(default_factory=dict)
    # Regions: how often the ops being added run, and how often each value's
    # definition runs (its boxing is placed right after the definition).
    default_trip_count: int = 1
    weight: float = 1.0
    def_weight: dict[SSAValue, float] = field(default_factory=dict)
    per_spec: dict[
        tuple[int, tuple[int, ...]],
        tuple[OpSpec, tuple[bool, tuple[Signature, ...], Sequence[float]]],
    ] = field(default_factory=dict)

    # The last placement an op was added on, its graph and op list.
    _last: tuple[Placement, SbpGraph, list[tuple[NodeId, Operation]]] | None = None

    def edge_weights(self, operands: Sequence[SSAValue]) -> list[float] | None:
        """How often each operand's layout change runs (None: all once)."""
        if not self.def_weight:
            return None
        return [self.def_weight.get(v, 1.0) for v in operands]

    def placement(self, value: SSAValue) -> Placement:
        return self.placements.get(value, self.default)

    def add_arguments(self) -> None:
        f = self.out.function
        for i, arg in enumerate(f.args):
            try:
                tensor = plain_type(arg.type)
            except UnsupportedTypeError as e:
                raise LocatedError(f, f"argument #{i}: {e}") from e
            placement = self.placement(arg)
            graph = self.out.graph(placement)
            layout = sbp_dialect.get_nd_sbp_arg_attr(f, i)
            name = f"%{arg.name_hint or f'arg{i}'}"
            donated = any(
                sbp_dialect.get_arg_attr(f, i, key) is not None for key in DONATED
            )
            if layout is not None:
                value = graph.add_argument(name, tensor, layout=layout, donated=donated)
            else:
                # The shared tuple: arguments of one type share its identity.
                candidates = _free_layouts(tensor, placement.hierarchy)
                value = graph.add_argument(
                    name, tensor, candidates=candidates, donated=donated
                )
            self.bind(placement, arg, value)
            self.out.arg_nodes[placement].append((graph.values[value].producer, i))

    def operand_value(
        self, op: Operation, operand: SSAValue, placement: Placement
    ) -> int:
        got = self.values.get(operand)
        if got is None or got[0] != placement:
            raise LocatedError(
                op,
                "operand comes from another placement without an sbp.cast ... on "
                "to move it",
            )
        return got[1]

    def bind(self, placement: Placement, value: SSAValue, graph_value: int) -> None:
        """``value`` is ``graph_value`` in ``placement``'s graph."""
        self.values[value] = (placement, graph_value)

    def add_op(self, op: Operation) -> None:
        repeats = loop_repeats(op)
        if repeats == 1:
            self._add_op(op)
            return
        # An op of a microbatch loop (sbp-pipeline) runs once per microbatch:
        # its work and its results' boxing weigh so; an accumulation's result
        # is used once, after the loop.
        saved = self.weight
        self.weight = saved * repeats
        try:
            self._add_op(op)
        finally:
            self.weight = saved
        for r in op.results:
            self.def_weight[r] = (
                saved if isinstance(op, AccumulateOp) else saved * repeats
            )

    def _add_op(self, op: Operation) -> None:
        what = _role(type(op))
        if what is _Role.COMPUTE:
            self.add_compute_op(op)
        elif what is _Role.RETURN:
            assert isinstance(op, func.ReturnOp)
            self.add_results(op)
        elif what is _Role.COLLECTIVE:
            raise LocatedError(
                op, "sbp-propagate runs before sbp-lower-boxing: found a collective"
            )
        elif what is _Role.CAST:
            assert isinstance(op, sbp_dialect.CastOp)
            self.add_cast(op)
        elif op.operands or op.results:
            add_region_op(self, op)

    def add_compute_op(self, op: Operation) -> None:
        """An op with no regions that the op rules lay out (one graph node)."""
        results = op.results
        if not results:
            if not op.operands:
                return
            raise LocatedError(op, _not_on_tensors(op))
        placement = self.placements.get(results[0], self.default)
        if self._last is None or self._last[0] is not placement:
            graph = self.out.graph(placement)
            self._last = (placement, graph, self.out.op_nodes[placement])
        _, graph, op_nodes = self._last
        try:
            spec = op_spec_of(op)
        except UnsupportedTypeError as e:
            # Checked here, not first: a spec is only built from tensor types.
            if not is_tensor_op(op):
                raise LocatedError(op, _not_on_tensors(op)) from e
            raise LocatedError(op, str(e)) from e
        ruled, candidates, costs = self.choices(spec, placement.hierarchy)
        if not ruled:
            emit(
                "warning",
                op,
                f"no SBP rule for '{op.name}': it runs replicated (all-B)",
            )
        fixed = sbp_dialect.get_signature(op)
        if fixed is not None:
            _check_user_signature(op, spec, fixed, candidates, placement)
        values = self.values
        ir_operands = op.operands  # a new view object per read
        operands = []
        for v in ir_operands:
            got = values.get(v)
            if got is None or (got[0] is not placement and got[0] != placement):
                operands.append(self.operand_value(op, v, placement))  # raises
            else:
                operands.append(got[1])
        if self.weight != 1.0:
            costs = [c * self.weight for c in costs]
        try:
            ids = graph.add_op(
                op_label(op),
                operands,
                spec.results,
                candidates,
                fixed=fixed,
                compute_costs=costs,
                edge_weights=self.edge_weights(ir_operands),
                kind=op.name,
            )
        except GraphError as e:
            raise LocatedError(op, str(e)) from e
        for value, r in zip(ids, results, strict=True):
            values[r] = (placement, value)
        if self.weight != 1.0:
            self.def_weight.update(dict.fromkeys(results, self.weight))
        op_nodes.append((graph.values[ids[0]].producer, op))

    def choices(
        self, spec: OpSpec, hierarchy: tuple[int, ...]
    ) -> tuple[bool, tuple[Signature, ...], Sequence[float]]:
        """Whether ``spec`` has a rule, its candidate signatures and their
        compute costs: asked once per spec object and hierarchy, since equal
        ops share one spec (``spec_memo``) and a model repeats its layers."""
        key = (id(spec), hierarchy)
        hit = self.per_spec.get(key)
        if hit is not None and hit[0] is spec:
            return hit[1]
        candidates = nd_signature_tuple(spec, hierarchy)
        answer = (
            has_rule(spec),
            candidates,
            compute_costs(spec, candidates, hierarchy, self.cost_model),
        )
        self.per_spec[key] = (spec, answer)  # holds spec: its id stays unique
        return answer

    def add_cast(self, op: sbp_dialect.CastOp) -> None:
        src_placement = self.placement(op.operands[0])
        dst_placement = self.placement(op.results[0])
        target = op.nd_sbp.nd_sbp
        tensor = plain_type(op.results[0].type)
        source = self.operand_value(op, op.operands[0], src_placement)
        if src_placement == dst_placement:
            graph = self.out.graph(src_placement)
            sig = Signature((target,), (target,))
            (value,) = graph.add_op(op_label(op), [source], [tensor], [sig], fixed=sig)
            self.bind(dst_placement, op.results[0], value)
            return
        # Across placements: the source side delivers any layout (the boxing
        # planner picks the cheapest route); the target side starts fixed.
        self.out.graph(src_placement).add_result(op_label(op), source, None)
        graph = self.out.graph(dst_placement)
        value = graph.add_argument(op_label(op), tensor, layout=target)
        self.bind(dst_placement, op.results[0], value)

    def add_results(self, ret: func.ReturnOp) -> None:
        f = self.out.function
        for i, v in enumerate(ret.arguments):
            placement = self.placement(v)
            graph = self.out.graph(placement)
            value = self.operand_value(ret, v, placement)
            wanted = sbp_dialect.get_nd_sbp_res_attr(f, i)
            tied = self.tied_value(ret, i, placement)
            accepted = (
                [wanted]
                if wanted is not None
                else None
                if tied is not None  # the argument's own layouts
                else free_layouts(graph.values[value].tensor, placement.hierarchy)
            )
            try:
                node = graph.add_result(f"result #{i}", value, accepted, tied)
            except GraphError as e:
                raise LocatedError(ret, str(e)) from e
            self.out.result_nodes[placement].append((node, i))

    def tied_value(
        self, ret: func.ReturnOp, i: int, placement: Placement
    ) -> int | None:
        """The graph value of the argument result ``i`` is tied to
        (``sbp.tied_to``), or None; it must live where the result does."""
        f = self.out.function
        tied = sbp_dialect.get_tied_to(f, i)
        if tied is None:
            return None
        got = self.values.get(f.args[tied])
        if got is None or got[0] != placement:
            raise LocatedError(
                ret,
                f"result #{i} is tied to argument #{tied}, which lives on "
                "another placement",
            )
        return got[1]


class _Role(Enum):
    """What the builder does with an op, by its class."""

    COMPUTE = auto()  # a node of its own (``add_compute_op``)
    RETURN = auto()  # the function's results
    COLLECTIVE = auto()  # refused: boxing comes after propagation
    CAST = auto()
    REGION = auto()  # ``regions.add_region_op``


@cache
def _role(cls: type[Operation]) -> _Role:
    """``cls``'s role, found once per op class (isinstance against the
    dialects' abstract classes is slow, and a module has few op classes)."""
    if issubclass(cls, func.ReturnOp):
        return _Role.RETURN
    if issubclass(cls, sbp_dialect.CollectiveOp | sbp_dialect.TransferOp):
        return _Role.COLLECTIVE
    if issubclass(cls, sbp_dialect.CastOp):
        return _Role.CAST
    if issubclass(cls, REGION_OPS):
        return _Role.REGION
    return _Role.COMPUTE


def _not_on_tensors(op: Operation) -> str:
    return (
        f"'{op.name}' does not compute on ranked tensors only; "
        "sbp-propagate cannot lay it out"
    )


def _check_user_signature(
    op: Operation,
    spec: OpSpec,
    sig: Signature,
    candidates: Sequence[Signature],
    placement: Placement,
) -> None:
    """A user ``sbp.sig`` must be a candidate; say why not, listing the legal."""
    if sig in candidates:
        return
    for nd, t in zip(
        (*sig.inputs, *sig.outputs), (*spec.operands, *spec.results), strict=True
    ):
        if uneven_ok(spec.name):
            break  # uneven splits are fine: the signature itself is not legal
        try:
            check_even(t.shape, nd, placement.hierarchy)
        except UnevenSplitError as e:
            raise LocatedError(
                op,
                f"sbp.sig {sig} needs an uneven split, which {spec.name} cannot "
                f"compute on unequal pieces: {e}",
            ) from e
    try:
        halos(spec, sig, placement.hierarchy)
    except ValueError as e:
        raise LocatedError(
            op, f"sbp.sig {sig} needs a halo exchange sbpc cannot do: {e}"
        ) from e
    shown = candidates if placement.ndim > 1 else signatures_1d(spec)
    listing = "\n".join(f"  {s}" for s in shown[:40])
    more = f"\n  ... and {len(shown) - 40} more" if len(shown) > 40 else ""
    raise LocatedError(
        op,
        f"sbp.sig {sig} is not a legal signature of '{op.name}'; "
        f"legal signatures:\n{listing}{more}",
    )
