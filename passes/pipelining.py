"""``sbp-pipeline``: a training step as a pipeline of microbatches and stages.

Runs before ``sbp-propagate``.  The main function becomes the program of one
microbatch (``dialects/sbp/pipeline.py`` has the IR, docs/pipeline.md the
design):

1. the batch arguments (``sbp.batch_dim`` on an argument, else every
   argument of rank >= 1 that no result has the type of) are split over
   ``microbatches`` along their dim; ``sbpc.pipeline.microbatch`` says which
   ops run per microbatch (their types become the microbatch's), once before
   the loop, or once after it on sums of per-microbatch contributions
   (``sbp.accumulate``);
2. ``sbpc.pipeline.stages`` cuts the loop into ``stages`` stages, each on
   its own placement (the mesh's stage axis cut, ``sbpc.pipeline.placements``):
   arguments get their stage's ``sbp.placement``, values used on another
   stage an ``sbp.cast ... on`` it;
3. ops are reordered: before the loop, the microbatch slices, the loop,
   after it; every op gets ``sbp.phase`` and ``sbp.stage``, the function
   ``sbp.pipeline``.

``sbp-propagate`` then plans each stage's placement (an op of the loop
weighs ``microbatches`` times), ``sbp-lower-boxing`` boxes, and ``-t jax``
emits the schedule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from sbpc.algebra.placement import Placement
from sbpc.boxing.cost_model import CostModel
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.sbp.pipeline import (
    BATCH_DIM,
    SCHEDULES,
    SEARCH,
    STAGE,
    AccumulateOp,
    MicrobatchOp,
    count_option_error,
    pipeline_attr,
    pipeline_options,
    set_task,
    stage_of,
)
from sbpc.ops.cost import local_work, product_dtypes
from sbpc.ops.derive import all_broadcast
from sbpc.ops.spec import OpSpec
from sbpc.pipeline import stages as stage_cut
from sbpc.pipeline.cost import PipelineCost, pipeline_cost, program_time
from sbpc.pipeline.microbatch import (
    MicrobatchError,
    Microbatching,
    Phase,
    analyze,
    per_microbatch,
)
from sbpc.pipeline.placements import (
    StagePlacementError,
    boundary_layout,
    stage_axis,
    stage_layout,
    stage_placements,
)
from sbpc.pipeline.search import MICROBATCHES, SearchResult, search, stage_counts
from sbpc.propagation.driver import STRATEGIES

from .bridge.function import ReadFunction, read_function
from .bridge.program import main_function, program_of
from .bridge.sdy import mesh_axes
from .lower_boxing import SbpLowerBoxingPass
from .options import OptionError, one_of, parse_cost_model, positive_number
from .pipeline_target import pipeline_program
from .propagate import FunctionPlan, SbpPropagatePass


@dataclass(frozen=True)
class SbpPipelinePass(ModulePass):
    """Split the step into microbatches and cut it into stages.

    ``stages=0``, ``microbatches=0`` or ``schedule=auto`` searches that
    option (``sbpc.pipeline.search``), planning each candidate with
    ``strategy`` under ``memory_budget`` (default: the cost model's ``mem=``);
    the search's table is kept on the function as ``sbp.pipeline_search``.
    """

    name = "sbp-pipeline"

    stages: int = 1
    microbatches: int = 1
    schedule: str = "1f1b"
    cost_model: str = "default"
    strategy: str = "greedy"
    # str: ``1e30`` reaches the pass as text; ``__post_init__`` makes it a float
    memory_budget: int | float | str | None = None

    def __post_init__(self) -> None:
        error = count_option_error(self.stages, self.microbatches)
        if error is not None:
            raise OptionError(error)
        one_of("schedule", self.schedule, (*SCHEDULES, "auto"))
        one_of("strategy", self.strategy, tuple(STRATEGIES))
        parse_cost_model(self.cost_model)
        object.__setattr__(
            self,
            "memory_budget",
            positive_number("memory_budget", self.memory_budget, "bytes"),
        )

    @property
    def searching(self) -> bool:
        return self.stages == 0 or self.microbatches == 0 or self.schedule == "auto"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.searching:
            pipeline_step(
                op, self.stages, self.microbatches, self.schedule, self.cost_model
            )
            return
        result = self.search(op)
        f = main_function(op)
        f.attributes[SEARCH] = StringAttr(result.table(self.budget()))
        best = result.best
        if best is None:
            raise LocatedError(
                f, "no pipeline fits the memory budget:\n" + result.table(self.budget())
            )
        if best.pipelined:
            assert best.schedule is not None
            pipeline_step(
                op, best.stages, best.microbatches, best.schedule, self.cost_model
            )

    def budget(self) -> float | None:
        given = self.memory_budget
        if given is not None:
            return float(given)
        return CostModel.parse(self.cost_model).memory_capacity

    def search(self, module: ModuleOp) -> SearchResult:
        """Every candidate the options leave open, planned on a copy."""
        placement = sbp_dialect.module_placement(module)
        if placement is None:
            raise LocatedError(module, sbp_dialect.NO_PLACEMENT)
        axis = placement.hierarchy[stage_axis(placement, mesh_axes(module))]
        stage_list = [self.stages] if self.stages else stage_counts(axis)
        micro_list = [self.microbatches] if self.microbatches else MICROBATCHES
        schedules = SCHEDULES if self.schedule == "auto" else (self.schedule,)
        propagate = SbpPropagatePass(
            strategy=self.strategy,
            cost_model=self.cost_model,
            memory_budget=self.budget(),
        )
        model = CostModel.parse(self.cost_model)

        def plain() -> tuple[float, float]:
            # Priced as the pipelines are: its boxed program's instructions.
            copy = module.clone()
            plans = _planned(propagate, copy)
            SbpLowerBoxingPass(cost_model=self.cost_model).apply(Context(), copy)
            program = program_of(copy, main_function(copy))
            return (
                program_time(program, model),
                max(p.plan.peak_memory for p in plans),
            )

        def pipelined(s: int, m: int) -> dict[str, PipelineCost]:
            copy = module.clone()
            try:
                pipeline_step(copy, s, m, schedules[0], self.cost_model)
                plans = _planned(propagate, copy)
                SbpLowerBoxingPass(cost_model=self.cost_model).apply(Context(), copy)
                pp = pipeline_program(copy, main_function(copy))
            except DiagnosticException as e:
                raise ValueError(getattr(e, "message", str(e))) from e
            peaks = {p.placement: p.plan.peak_memory for p in plans}
            per = [peaks.get(p, 0.0) for p in pp.placements]
            return {sch: pipeline_cost(pp, model, sch, per) for sch in schedules}

        return search(
            stage_list, micro_list, schedules, plain, pipelined, self.budget()
        )


def _planned(propagate: SbpPropagatePass, module: ModuleOp) -> list[FunctionPlan]:
    try:
        # Each candidate's memory is priced per stage and schedule by the
        # search, against the budget: a plan over it is a row, not an error.
        return propagate.plan_module(module, held_to_budget=False)
    except DiagnosticException as e:
        raise ValueError(getattr(e, "message", str(e))) from e


def pipeline_step(
    op: ModuleOp, stages: int, microbatches: int, schedule: str, cost_model: str
) -> None:
    """``op``'s main function pipelined (the pass's work for given options)."""
    f = main_function(op)
    if pipeline_options(f) is not None:
        raise LocatedError(f, "the function is pipelined already")
    placement = sbp_dialect.module_placement(op)
    if placement is None:
        raise LocatedError(op, sbp_dialect.NO_PLACEMENT)
    axis = stage_axis(placement, mesh_axes(op))
    try:
        placements = stage_placements(placement, stages, axis)
    except StagePlacementError as e:
        raise LocatedError(op, str(e)) from e
    read = read_function(f)
    batch = batch_arguments(f, read, microbatches)
    try:
        mb = analyze(read.function, batch, microbatches)
    except MicrobatchError as e:
        raise LocatedError(_at(read, e.node, f), e.message) from e
    specs = _microbatch_specs(read, mb)
    model = CostModel.parse(cost_model)
    per_stage = len(placements[0].ranks)
    cost = _node_costs(read, specs, model)
    nbytes = _value_bytes(read, specs)

    def transfer_time(v: int) -> float:
        piece = Fraction(int(nbytes.get(v, 0) // per_stage))
        return float(model.transfer_time(piece, 1))

    try:
        cut = stage_cut.cut(read.function, mb, stages, cost, transfer_time)
    except stage_cut.StageError as e:
        raise LocatedError(f, str(e)) from e
    _Rewrite(f, read, mb, cut, specs, placements, placement, axis).run()
    f.attributes[sbp_dialect.pipeline.PIPELINE] = pipeline_attr(
        stages, microbatches, schedule
    )


def _at(read: ReadFunction, node: int | None, f: Operation) -> Operation:
    return f if node is None else read.ops[node]


def batch_arguments(f: func.FuncOp, read: ReadFunction, count: int) -> dict[int, int]:
    """The arguments to split into microbatches (value id -> dim)."""
    out: dict[int, int] = {}
    for i, a in enumerate(f.args):
        attr = sbp_dialect.get_arg_attr(f, i, BATCH_DIM)
        if isinstance(attr, IntegerAttr):
            out[read.ids[a]] = attr.value.data
    if out:
        return out
    returned = {v.type for v in read.ret.operands} if read.ret is not None else set()
    for a in f.args:
        t = a.type
        if isinstance(t, TensorType) and t not in returned and t.get_shape():
            out[read.ids[a]] = 0  # analyze says if the microbatches divide it
    if not out:
        raise LocatedError(
            f,
            "no batch argument to split into microbatches: mark them with "
            "{sbp.batch_dim = <dim>} (by default, the arguments of rank >= 1 "
            "whose type no result has, split along their leading dim)",
        )
    return out


def _microbatch_specs(read: ReadFunction, mb: Microbatching) -> dict[int, OpSpec]:
    """Each loop node's op on one microbatch."""
    out: dict[int, OpSpec] = {}
    for n in mb.loop_nodes():
        node = read.function.nodes[n]
        if node.spec is None:
            continue  # an identity (a cast): its types follow its operand
        try:
            out[n] = per_microbatch(node.spec, mb.signature[n], mb.count)
        except MicrobatchError as e:
            raise LocatedError(read.ops[n], e.message) from e
    return out


def _node_costs(
    read: ReadFunction, specs: dict[int, OpSpec], model: CostModel
) -> list[float]:
    """Seconds of each loop node per microbatch on one device (0 elsewhere)."""
    cost = [0.0] * len(read.function.nodes)
    for n, spec in specs.items():
        sig = all_broadcast(len(spec.operands), len(spec.results))
        cost[n] = model.compute_time(*local_work(spec, sig, (1,)), product_dtypes(spec))
    return cost


def _value_bytes(read: ReadFunction, specs: dict[int, OpSpec]) -> dict[int, float]:
    """Bytes of every value (a loop value: one microbatch's)."""
    out = {v: float(t.nbytes) for v, t in read.function.types.items()}
    for n, spec in specs.items():
        for r, t in zip(read.function.nodes[n].results, spec.results, strict=True):
            out[r] = float(t.nbytes)
    return out


def _changed_attrs(before: OpSpec, after: OpSpec) -> list[str]:
    out = []
    for key, value in after.attrs.items():
        old = before.attrs.get(key)
        same = (
            np.array_equal(np.asarray(old), np.asarray(value))
            if isinstance(value, np.ndarray | list | tuple)
            else old == value
        )
        if not same:
            out.append(key)
    return out


@dataclass
class _Rewrite:
    """Writes the analyses back into the function (see the module docstring)."""

    f: func.FuncOp
    read: ReadFunction
    mb: Microbatching
    cut: stage_cut.StageCut
    specs: dict[int, OpSpec]
    placements: list[Placement]
    mesh: Placement
    axis: int
    value: dict[int, SSAValue] = field(default_factory=dict)
    acc: dict[int, SSAValue] = field(default_factory=dict)
    casts: dict[tuple[object, int], SSAValue] = field(default_factory=dict)
    micro: dict[tuple[int, int, int], SSAValue] = field(default_factory=dict)
    order: dict[str, list[Operation]] = field(
        default_factory=lambda: {"pre": [], "micro": [], "loop": [], "post": []}
    )
    replaced: list[Operation] = field(default_factory=list)

    def run(self) -> None:
        fn = self.read.function
        for v in fn.args:
            self.value[v] = self.read.values[v]
        for n in range(len(fn.nodes)):
            self._node(n)
        ret = self.read.ret
        if ret is not None:
            ret.operands = [self._returned(v) for v in fn.returns]
        block = self.f.body.block
        ops = [*self.order["pre"], *self.order["micro"], *self.order["loop"]]
        ops += self.order["post"]
        for op in list(block.ops):
            op.detach()
        for op in reversed(self.replaced):
            op.erase(safe_erase=False)
        block.add_ops(ops)
        if ret is not None:
            block.add_op(ret)
        if len(self.placements) > 1:
            _copy_floating_per_stage(block)
        self._place_arguments()

    # -- nodes --------------------------------------------------------------------

    def _node(self, n: int) -> None:
        node = self.read.function.nodes[n]
        op = self.read.ops[n]
        phase = self.mb.phase[n]
        stage = self.cut.node_stage[n]
        operands = [self._operand(n, i, v) for i, v in enumerate(node.operands)]
        if phase is Phase.LOOP:
            new = self._retyped(n, op, operands)
            direction = self.cut.direction[n].value
            set_task(new, direction, stage)
            self.order["loop"].append(new)
            for r, res in zip(node.results, new.results, strict=True):
                self.value[r] = res
                if r in self.mb.accumulated:
                    acc = AccumulateOp(res)
                    set_task(acc, direction, stage)
                    self.order["loop"].append(acc)
                    self.acc[r] = acc.output
            return
        op.operands = operands
        set_task(op, phase.value, stage)
        self.order[phase.value].append(op)
        for r, res in zip(node.results, op.results, strict=True):
            self.value[r] = res

    def _retyped(self, n: int, op: Operation, operands: list[SSAValue]) -> Operation:
        """The loop op on the microbatch's types (and attributes)."""
        if isinstance(op, sbp_dialect.CastOp):
            new: Operation = sbp_dialect.CastOp(operands[0], op.nd_sbp, op.placement)
            new.attributes.update(op.attributes)
        else:
            spec = self.specs[n]
            types = [
                TensorType(t.element_type, s.shape)  # type: ignore[attr-defined]
                for t, s in zip(op.result_types, spec.results, strict=True)
            ]
            props = dict(op.properties)
            original = self.read.function.nodes[n].spec
            assert original is not None
            for key in _changed_attrs(original, spec):
                prop = props.get(key)
                if not isinstance(prop, DenseArrayBase):
                    raise LocatedError(
                        op, f"cannot write '{op.name}' for one microbatch ({key})"
                    )
                props[key] = DenseArrayBase.from_list(
                    prop.elt_type, [int(x) for x in spec.attrs[key]]
                )
            new = type(op).create(
                operands=operands,
                result_types=types,
                properties=props,
                attributes=dict(op.attributes),
                regions=[r.clone() for r in op.regions],
            )
        self.replaced.append(op)
        return new

    # -- operands -----------------------------------------------------------------

    def _operand(self, n: int, i: int, v: int) -> SSAValue:
        phase = self.mb.phase[n]
        here = self.cut.node_stage[n]
        moved = self.cut.moves.get((n, i))
        if phase is Phase.LOOP and (v in self.mb.batch or (n, i) in self.mb.slices):
            dim = self.mb.batch[v] if v in self.mb.batch else self.mb.slices[(n, i)]
            assert here is not None
            return self._microbatch(v, dim, here, self.cut.direction[n].value)
        if phase is Phase.POST and v in self.acc:
            if moved is not None:
                return self._cast(("acc", v), self.acc[v], moved, "post")
            return self.acc[v]
        if moved is not None:
            made = self._value_phase(v)
            if made is Phase.LOOP:
                tag = self.cut.direction[self.read.function.producer[v]].value
            else:
                tag = made.value
            return self._cast(v, self.value[v], moved, tag)
        return self.value[v]

    def _value_phase(self, v: int) -> Phase:
        n = self.read.function.producer.get(v)
        return Phase.PRE if n is None else self.mb.phase[n]

    def _returned(self, v: int) -> SSAValue:
        return self.acc.get(v, self.value.get(v, self.read.values[v]))

    def _microbatch(self, v: int, dim: int, stage: int, direction: str) -> SSAValue:
        key = (v, dim, stage)
        if key not in self.micro:
            src = self.value[v]
            if self.cut.stage_of(v) not in (None, stage):
                src = self._cast(v, src, stage, "pre")
            op = MicrobatchOp(src, dim, self.mb.count)
            set_task(op, direction, stage)
            self.order["micro"].append(op)
            self.micro[key] = op.output
        return self.micro[key]

    def _cast(self, key: object, src: SSAValue, stage: int, phase: str) -> SSAValue:
        """``src`` on ``stage``'s placement (one cast per value and stage)."""
        if (key, stage) not in self.casts:
            t = src.type
            assert isinstance(t, TensorType)
            target = self.placements[stage]
            layout = boundary_layout(
                tuple(t.get_shape()), target.hierarchy, self._batch_dim(key)
            )
            op = sbp_dialect.CastOp(src, layout, target)
            set_task(op, phase, stage)
            order = "pre" if phase == "pre" else "post" if phase == "post" else "loop"
            self.order[order].append(op)
            self.casts[(key, stage)] = op.results[0]
        return self.casts[(key, stage)]

    def _batch_dim(self, key: object) -> int | None:
        if isinstance(key, int):
            s = self.mb.time.get(key)
            return getattr(s, "axis", None)
        return None

    # -- arguments ----------------------------------------------------------------

    def _place_arguments(self) -> None:
        """Each argument on its stage (and its layout, and the results', on
        the stage's dims)."""
        stages = len(self.placements)
        if stages == 1:
            return
        f = self.f
        for i, a in enumerate(self.read.function.args):
            s = self.cut.value_stage.get(a) or 0
            sbp_dialect.set_arg_attr(
                f,
                i,
                sbp_dialect.PLACEMENT,
                sbp_dialect.PlacementAttr(self.placements[s]),
            )
            nd = sbp_dialect.get_nd_sbp_arg_attr(f, i)
            if nd is not None:
                sbp_dialect.set_nd_sbp_arg_attr(
                    f, i, stage_layout(nd, self.mesh, stages, self.axis)
                )
        for i in range(len(f.function_type.outputs.data)):
            nd = sbp_dialect.get_nd_sbp_res_attr(f, i)
            if nd is not None:
                sbp_dialect.set_nd_sbp_res_attr(
                    f, i, stage_layout(nd, self.mesh, stages, self.axis)
                )


def _copy_floating_per_stage(block: Block) -> None:
    """A value made from constants only lives where it is used: each stage
    that uses one gets its own copy of the ops making it (and the copy the
    stage's ``sbp.stage``), so each copy is laid out on one placement."""
    for op in reversed(list(block.ops)):
        if stage_of(op) is not None or isinstance(op, func.ReturnOp):
            continue
        by_stage: dict[int | None, list[tuple[Operation, int]]] = {}
        for r in op.results:
            for use in list(r.uses):
                by_stage.setdefault(stage_of(use.operation), []).append(
                    (use.operation, use.index)
                )
        if not by_stage:
            block.erase_op(op)  # dead: nothing computes on it
            continue
        stages = [s for s in by_stage if s is not None]
        if not stages:
            continue
        first, *others = stages
        op.attributes[STAGE] = IntegerAttr(first, i64)
        for s in others:
            copy = op.clone()
            copy.attributes[STAGE] = IntegerAttr(s, i64)
            block.insert_op_before(copy, op)
            for user, index in by_stage[s]:
                value = user.operands[index]
                user.operands[index] = copy.results[op.results.index(value)]
