"""``sbp-lower-boxing``: make every layout change an explicit collective.

After ``sbp-propagate`` each op says (``sbp.sig``) which layout it wants for
each operand, each value says which layout it has (its producer's signature,
its argument's ``sbp.nd_sbp``, a cast's target), and each result says which
layout the caller wants back.  Where they differ this pass inserts the
cheapest plan of the boxing planner (``sbpc.boxing.planner``) as sbp collective ops:

- one boxed value serves every consumer that wants the same layout (the chain
  is built once, right after the value's definition);
- ``sbp.cast`` is replaced by the chain from its operand's layout to its
  target, across placements through ``sbp.transfer``;
- results are brought to their ``sbp.nd_sbp`` (partial values without one are
  finished: P becomes B);
- an argument marked ``sbp.gather_per_use`` (the planner's FSDP choice) is
  gathered anew just before each op that reads it in a layout larger than
  its own, in the function's body or in a region's (a ``case`` branch, a
  ``while`` body: there the gather runs each time the op does): its shard
  passes through a ``stablehlo.optimization_barrier`` with the op's other
  operand (or the last tensor computed before it in its block, else the
  block's first tensor argument), so that XLA neither hoists the gather to
  the program's start (or out of the loop) nor merges the gathers of
  different uses (CSE); the barrier is the identity.  The memory model
  counts such a copy from just before its reader to its last read
  (``memory.per_use_copies``), wherever the reader is.

Afterwards every operand's layout equals what its op's signature wants.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import Broadcast, NdSbp, Partial, format_nd_sbp
from sbpc.algebra.signature import Signature
from sbpc.boxing import planner as boxing
from sbpc.boxing.collective_kind import CollectiveKind
from sbpc.boxing.cost_model import CostModel
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.stablehlo import OptimizationBarrierOp
from sbpc.propagation.memory import local_bytes

from .bridge.legal import check_legal
from .bridge.ops import is_tensor_op, plain_type
from .bridge.regions import region_yields
from .options import parse_cost_model

_STEP_OPS: dict[CollectiveKind, type[sbp_dialect.CollectiveOp]] = {
    CollectiveKind.ALL_GATHER: sbp_dialect.AllGatherOp,
    CollectiveKind.ALL_REDUCE: sbp_dialect.AllReduceOp,
    CollectiveKind.REDUCE_SCATTER: sbp_dialect.ReduceScatterOp,
    CollectiveKind.ALL_TO_ALL: sbp_dialect.AllToAllOp,
    CollectiveKind.LOCAL_SLICE: sbp_dialect.LocalSliceOp,
    CollectiveKind.LOCAL_TO_PARTIAL: sbp_dialect.LocalToPartialOp,
}


def finished(nd: NdSbp) -> NdSbp:
    """``nd`` with every partial entry reduced to B (what a caller gets back)."""
    return tuple(Broadcast() if isinstance(s, Partial) else s for s in nd)


@dataclass
class _Boxer:
    """Builds (and caches) boxing chains for one function."""

    cost_model: CostModel
    placements: sbp_dialect.PlacementMap
    default: Placement
    cache: dict[tuple[SSAValue, NdSbp, Placement], SSAValue] = field(
        default_factory=dict
    )

    def layout(self, value: SSAValue, user: Operation) -> NdSbp:
        nd = sbp_dialect.value_layout(value)
        if nd is None:
            raise LocatedError(
                user,
                "operand has no known layout: run sbp-propagate before "
                "sbp-lower-boxing",
            )
        return nd

    def placement(self, value: SSAValue) -> Placement:
        return self.placements.get(value, self.default)

    def box(
        self,
        value: SSAValue,
        want: NdSbp,
        user: Operation,
        to_placement: Placement | None = None,
    ) -> SSAValue:
        """``value`` in layout ``want`` (on ``to_placement``), building it once."""
        have = self.layout(value, user)
        src_placement = self.placement(value)
        dst_placement = to_placement or src_placement
        if have == want and src_placement == dst_placement:
            return value
        key = (value, want, dst_placement)
        if key in self.cache:
            return self.cache[key]
        plan = self._plan(value, have, want, user, src_placement, dst_placement)
        if not plan.steps:
            return value
        ops = self._chain(plan, value, src_placement)
        Rewriter.insert_op(ops, _after_definition(value))
        current = ops[-1].results[0]
        self.cache[key] = current
        return current

    def box_per_use(
        self, value: BlockArgument, want: NdSbp, user: Operation, anchor: int | None
    ) -> SSAValue:
        """``value`` gathered into ``want`` just before ``user``: the shard
        passes through a barrier with ``user``'s operand ``anchor`` (which
        ``user`` then reads from the barrier), or with the last tensor
        computed before ``user`` (``_computed_before``)."""
        have = self.layout(value, user)
        placement = self.placement(value)
        plan = self._plan(value, have, want, user, placement, placement)
        fence = (
            user.operands[anchor]
            if anchor is not None
            else _computed_before(user, value.owner)
        )
        shard: SSAValue = value
        if fence is not None:
            barrier = OptimizationBarrierOp([value, fence])
            layouts = (have, self.layout(fence, user))
            sbp_dialect.set_signature(barrier, Signature(layouts, layouts))
            Rewriter.insert_op(barrier, InsertPoint.before(user))
            shard = barrier.results[0]
            shard.name_hint = value.name_hint
            if anchor is not None:
                user.operands[anchor] = barrier.results[1]
        ops = self._chain(plan, shard, placement)
        Rewriter.insert_op(ops, InsertPoint.before(user))
        return ops[-1].results[0]

    def _plan(
        self,
        value: SSAValue,
        have: NdSbp,
        want: NdSbp,
        user: Operation,
        src_placement: Placement,
        dst_placement: Placement,
    ) -> boxing.BoxingPlan:
        """The boxing planner's cheapest steps; a located error when none."""
        tensor = plain_type(value.type)
        try:
            if src_placement == dst_placement:
                return boxing.plan(have, want, tensor, src_placement, self.cost_model)
            return boxing.plan_between(
                have, src_placement, want, dst_placement, tensor, self.cost_model
            )
        except boxing.BoxingError as e:
            raise LocatedError(
                user,
                f"cannot change layout {format_nd_sbp(have)} to "
                f"{format_nd_sbp(want)}: {e}",
            ) from e

    def _chain(
        self, plan: boxing.BoxingPlan, value: SSAValue, src_placement: Placement
    ) -> list[Operation]:
        """The ops of ``plan``'s steps from ``value``, not yet inserted."""
        ops: list[Operation] = []
        current = value
        where = src_placement  # the steps after a transfer run on its target
        for step in plan.steps:
            op = self._step_op(step, current, where)
            op.results[0].name_hint = value.name_hint
            ops.append(op)
            current = op.results[0]
            if step.kind == CollectiveKind.TRANSFER and step.dst_placement:
                where = step.dst_placement
            # Where the new value lives, for boxing it further (a value
            # moved to another stage may change layout there too).
            self.placements[current] = where
        return ops

    def _step_op(
        self, step: boxing.BoxingStep, value: SSAValue, placement: Placement
    ) -> Operation:
        if step.kind == CollectiveKind.TRANSFER:
            assert step.dst_placement is not None
            return sbp_dialect.TransferOp(
                value,
                step.src_placement or placement,
                step.src,
                step.dst_placement,
                step.dst,
            )
        # A step runs on the placement its plan says (the target's after a
        # transfer); the default placement is implied and not written.
        on = step.src_placement or placement
        return _STEP_OPS[step.kind](
            value, step.dims, step.src, step.dst, None if on == self.default else on
        )


def _gathered_here(
    op: Operation, k: int, want: NdSbp, f: func.FuncOp, boxer: _Boxer
) -> bool:
    """Whether ``op`` (in ``f``'s body or a region of it) reads operand
    ``k`` through a gather of its own: an argument marked
    ``sbp.gather_per_use``, on the default placement, wanted larger than it
    is stored."""
    value = op.operands[k]
    if not (
        isinstance(value, BlockArgument)
        and value.owner is f.body.block
        and sbp_dialect.gathered_per_use(f, value.index)
        and boxer.placement(value) == boxer.default
    ):
        return False
    have = boxer.layout(value, op)
    tensor = plain_type(value.type)
    hierarchy = boxer.default.hierarchy
    return local_bytes(tensor, want, hierarchy) > local_bytes(tensor, have, hierarchy)


def _gather_per_use(
    op: Operation, per_use: list[tuple[int, NdSbp]], boxer: _Boxer, entry: Block
) -> None:
    """Point ``op``'s operands ``per_use`` at gathers made just before it
    (one per argument and layout), fenced with its first other operand
    that is computed (by an op, or a region's argument: not one of the
    function's, ``entry``'s)."""
    gathered = {k for k, _ in per_use}
    anchor = next(
        (
            j
            for j, x in enumerate(op.operands)
            if j not in gathered
            and isinstance(x.type, TensorType)
            and (isinstance(x, OpResult) or x.owner is not entry)
        ),
        None,
    )
    made: dict[tuple[SSAValue, NdSbp], SSAValue] = {}
    for k, want in per_use:
        value = op.operands[k]
        assert isinstance(value, BlockArgument)
        if (value, want) not in made:
            made[value, want] = boxer.box_per_use(value, want, op, anchor)
            anchor = None  # fenced once: later gathers follow the first
        op.operands[k] = made[value, want]


def _computed_before(user: Operation, entry: Block) -> SSAValue | None:
    """The last tensor an op of ``user``'s block computes before it, else
    the block's first tensor argument in a region (a loop's carried value:
    it changes each iteration), none at the function's (``entry``) start."""
    op = user.prev_op
    while op is not None:
        for r in reversed(op.results):
            if isinstance(r.type, TensorType):
                return r
        op = op.prev_op
    block = user.parent_block()
    if block is None or block is entry:
        return None
    return next((a for a in block.args if isinstance(a.type, TensorType)), None)


def _after_definition(value: SSAValue) -> InsertPoint:
    if isinstance(value, OpResult):
        return InsertPoint.after(value.op)
    assert isinstance(value, BlockArgument)
    return InsertPoint.at_start(value.block)


@dataclass(frozen=True)
class SbpLowerBoxingPass(ModulePass):
    """Insert the cheapest collectives for every layout change."""

    name = "sbp-lower-boxing"

    cost_model: str = "default"

    def __post_init__(self) -> None:
        """A bad cost model is an error as the pipeline is parsed."""
        object.__setattr__(self, "_cost_model", parse_cost_model(self.cost_model))

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cost_model: CostModel = self._cost_model  # type: ignore[attr-defined]
        # Trusted below; maybe unchecked.  The check's placement map serves
        # every function: lowering one function moves no value of another.
        placements = sbp_dialect.verify_sbp_annotations(op)
        default = sbp_dialect.module_placement(op)
        for f in list(op.ops):
            if not isinstance(f, func.FuncOp) or f.is_declaration:
                continue
            if default is None:
                raise LocatedError(f, sbp_dialect.NO_PLACEMENT)
            boxer = _Boxer(cost_model, placements, default)
            self._lower_function(f, boxer)

    def _lower_function(self, f: func.FuncOp, boxer: _Boxer) -> None:
        self._lower_ops(list(f.body.ops), f, boxer)

    def _lower_ops(self, ops: list[Operation], f: func.FuncOp, boxer: _Boxer) -> None:
        for op in ops:
            if isinstance(op, sbp_dialect.CastOp):
                self._lower_cast(op, boxer)
            elif isinstance(op, func.ReturnOp):
                self._lower_return(op, f, boxer)
            else:
                sig = sbp_dialect.get_signature(op)
                if sig is None:
                    continue
                if is_tensor_op(op):
                    check_legal(op, sig, boxer.placement(op.results[0]))
                per_use: list[tuple[int, NdSbp]] = []
                for k, want in enumerate(sig.inputs):
                    if _gathered_here(op, k, want, f, boxer):
                        per_use.append((k, want))
                        continue
                    boxed = boxer.box(op.operands[k], want, op)
                    if boxed is not op.operands[k]:
                        op.operands[k] = boxed
                if per_use:
                    _gather_per_use(op, per_use, boxer, f.body.block)
                # Region bodies: their ops, then each yield in the layout
                # the region op gives it (collectives run inside the body).
                for region, wanted in region_yields(op, sig, boxer.default):
                    block = region.block
                    self._lower_ops(list(block.ops), f, boxer)
                    ret = block.last_op
                    assert ret is not None
                    for k, want in enumerate(wanted):
                        boxed = boxer.box(ret.operands[k], want, ret)
                        if boxed is not ret.operands[k]:
                            ret.operands[k] = boxed

    def _lower_cast(self, cast: sbp_dialect.CastOp, boxer: _Boxer) -> None:
        target = cast.nd_sbp.nd_sbp
        to = cast.placement.placement if cast.placement is not None else None
        boxed = boxer.box(cast.operands[0], target, cast, to)
        cast.results[0].replace_all_uses_with(boxed)
        if boxed.name_hint is None:
            boxed.name_hint = cast.results[0].name_hint
        Rewriter.erase_op(cast)

    def _lower_return(self, ret: func.ReturnOp, f: func.FuncOp, boxer: _Boxer) -> None:
        for i, value in enumerate(ret.arguments):
            want = sbp_dialect.get_nd_sbp_res_attr(f, i)
            if want is None:
                want = finished(boxer.layout(value, ret))
                sbp_dialect.set_nd_sbp_res_attr(f, i, want)
            boxed = boxer.box(value, want, ret)
            if boxed is not value:
                ret.operands[i] = boxed
