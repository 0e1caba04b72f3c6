"""The IR of a pipelined step (``sbp-pipeline``, docs/pipeline.md).

After ``sbp-pipeline`` the main function is the program of *one
microbatch*, with the loop around it written in attributes:

- ``sbp.pipeline = {microbatches = 4, schedule = "1f1b", stages = 2}`` on
  the function;
- ``sbp.phase`` on every op: ``"pre"`` (runs once, before the microbatch
  loop), ``"fwd"``/``"bwd"`` (runs once per microbatch, in the forward or
  backward half of the step), ``"post"`` (once, after the loop: the update);
- ``sbp.stage = k`` on every op of a stage (its placement is the stage's:
  arguments carry ``sbp.placement``, values crossing stages an
  ``sbp.cast ... on``); values made from constants only float;
- ``%m = sbp.microbatch %x along 0 : tensor<16x32xi32> -> tensor<4x32xi32>``:
  the current microbatch of a value from before the loop (every ``count``-th
  row along ``dim``, ``sbpc.ops.microbatch``);
- ``%g = sbp.accumulate %c : tensor<64x64xf32>``: ``%c`` summed over the
  microbatches (a gradient contribution); used after the loop.

Ops of the loop have their microbatch's types.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

PIPELINE = "sbp.pipeline"
PHASE = "sbp.phase"
STAGE = "sbp.stage"
BATCH_DIM = "sbp.batch_dim"  # on a function argument: split it into microbatches
SEARCH = "sbp.pipeline_search"  # on the function: sbp-pipeline's search table
PHASES = ("pre", "fwd", "bwd", "post")
LOOP_PHASES = ("fwd", "bwd")
SCHEDULES = ("gpipe", "1f1b")


def count_option_error(stages: object, microbatches: object) -> str | None:
    """What is wrong with a pipeline's stage or microbatch count (0:
    searched), for the pass's and ``sbpc.jax.Pipeline``'s diagnostics."""
    for key, value in (("stages", stages), ("microbatches", microbatches)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return f"{key} must be a whole number >= 1 (0: searched), not {value!r}"
    return None


@irdl_op_definition
class MicrobatchOp(IRDLOperation):
    """``%m = sbp.microbatch %x along 0 : tensor<16x32xi32> -> tensor<4x32xi32>``:
    the current microbatch of ``%x`` (rows ``i, i + count, ...`` of ``dim``)."""

    name = "sbp.microbatch"

    input = operand_def(TensorType)
    output = result_def(TensorType)
    dim_attr = prop_def(IntegerAttr[I64], prop_name="dim")

    traits = traits_def(Pure())

    assembly_format = (
        "$input `along` $dim attr-dict `:` type($input) `->` type($output)"
    )

    def __init__(self, value: SSAValue | Operation, dim: int, count: int) -> None:
        v = SSAValue.get(value)
        t = v.type
        assert isinstance(t, TensorType)
        shape = list(t.get_shape())
        shape[dim] //= count
        super().__init__(
            operands=[v],
            result_types=[TensorType(t.element_type, shape)],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    @property
    def dim(self) -> int:
        return self.dim_attr.value.data

    def verify_(self) -> None:
        ins, outs = self.input.type, self.output.type
        assert isinstance(ins, TensorType) and isinstance(outs, TensorType)
        a, b = tuple(ins.get_shape()), tuple(outs.get_shape())
        d = self.dim
        if ins.element_type != outs.element_type or len(a) != len(b):
            raise VerifyException(
                f"{self.name}: result {outs} must be a microbatch of {ins}"
            )
        if not 0 <= d < len(a):
            raise VerifyException(f"{self.name}: dim {d} out of range for {ins}")
        same = all(x == y for k, (x, y) in enumerate(zip(a, b, strict=True)) if k != d)
        if not same or b[d] < 1 or a[d] % b[d]:
            raise VerifyException(
                f"{self.name}: result {outs} is not {ins} cut into equal "
                f"microbatches along dim {d}"
            )


@irdl_op_definition
class AccumulateOp(IRDLOperation):
    """``%g = sbp.accumulate %c : tensor<64xf32>``: ``%c`` summed over the
    microbatches."""

    name = "sbp.accumulate"

    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, value: SSAValue | Operation) -> None:
        v = SSAValue.get(value)
        super().__init__(operands=[v], result_types=[v.type])


PIPELINE_OPS = (MicrobatchOp, AccumulateOp)


def pipeline_attr(stages: int, microbatches: int, schedule: str) -> DictionaryAttr:
    """The function attribute ``sbp.pipeline``."""
    return DictionaryAttr(
        {
            "stages": IntegerAttr(stages, i64),
            "microbatches": IntegerAttr(microbatches, i64),
            "schedule": StringAttr(schedule),
        }
    )


def pipeline_options(f: FuncOp) -> tuple[int, int, str] | None:
    """``(stages, microbatches, schedule)`` of a pipelined function, else None."""
    attr = f.attributes.get(PIPELINE)
    if not isinstance(attr, DictionaryAttr):
        return None
    data = attr.data
    stages, micro, schedule = (
        data.get("stages"),
        data.get("microbatches"),
        data.get("schedule"),
    )
    if not (
        isinstance(stages, IntegerAttr)
        and isinstance(micro, IntegerAttr)
        and isinstance(schedule, StringAttr)
    ):
        return None
    return stages.value.data, micro.value.data, schedule.data


def search_table(f: FuncOp) -> str | None:
    """The table of ``sbp-pipeline``'s search, if it searched."""
    attr = f.attributes.get(SEARCH)
    return attr.data if isinstance(attr, StringAttr) else None


def phase_of(op: Operation) -> str | None:
    attr = op.attributes.get(PHASE)
    return attr.data if isinstance(attr, StringAttr) else None


def stage_of(op: Operation) -> int | None:
    attr = op.attributes.get(STAGE)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def set_task(op: Operation, phase: str, stage: int | None) -> None:
    """Write an op's ``sbp.phase`` and (unless it floats) ``sbp.stage``."""
    op.attributes[PHASE] = StringAttr(phase)
    if stage is not None:
        op.attributes[STAGE] = IntegerAttr(stage, i64)


def loop_repeats(op: Operation) -> int:
    """How often ``op`` runs per step: the microbatch count for ops of the
    loop (``sbp.phase`` fwd/bwd in a pipelined function), else 1."""
    if phase_of(op) not in LOOP_PHASES:
        return 1
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    options = pipeline_options(parent) if isinstance(parent, FuncOp) else None
    return 1 if options is None else options[1]


def batch_dim_attr(dim: int) -> Attribute:
    return IntegerAttr(dim, i64)
