"""What a pipelined plan costs: its step time and each stage's memory.

Priced on the tasks (``sbpc.pipeline.tasks``) under the cost model: a task's
time is its ops' compute (``sbpc.ops.cost``) plus its collectives (the
boxing planner's step prices), a forward or backward task per microbatch; a
move between stages costs the boxing planner's transfer.  The loop is
simulated (``sbpc.pipeline.schedule.simulate``) with each stage's forward
and backward times and the moves between them as delays, so unequal stages,
the bubble (``(s - 1) / (m + s - 1)`` of the step with equal stages) and
slow links show; the tasks before and after the loop run on all stages at
once.

Memory per device of stage ``s``: its plan's peak (``sbp-propagate``'s
memory model on one microbatch's program: the weights, the accumulated
gradients, one microbatch's activations) plus ``in_flight(s) - 1`` more
microbatches' *stash* (what its forward keeps for its backward): GPipe keeps
all ``m`` in flight, 1F1B at most ``s_count - s``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner as boxing
from sbpc.boxing.cost_model import CostModel, local_bytes
from sbpc.ops.cost import compute_costs
from sbpc.program import CollectiveInstr, Instr, OpInstr, Program, blocks_of

from .schedule import Kind, Slot, Task, in_flight, makespan, simulate
from .tasks import PipelineProgram, TaskProgram, stacked_type


@dataclass
class StageCost:
    """One stage: seconds of its tasks (forward and backward per
    microbatch), its ops, its stash (bytes per device per microbatch), its
    memory (bytes per device)."""

    stage: int
    pre: float = 0.0
    fwd: float = 0.0
    bwd: float = 0.0
    post: float = 0.0
    ops: int = 0
    stash: float = 0.0
    plan_peak: float = 0.0
    in_flight: int = 1

    @property
    def memory(self) -> float:
        return self.plan_peak + (self.in_flight - 1) * self.stash


@dataclass
class PipelineCost:
    """A pipelined plan under one schedule."""

    schedule: str
    microbatches: int
    stages: list[StageCost]
    slots: list[Slot]  # the loop's timeline
    transfer: dict[tuple[str, int], float] = field(default_factory=dict)

    @property
    def loop_time(self) -> float:
        return makespan(self.slots)

    @property
    def step_time(self) -> float:
        """Modelled seconds of one step: before the loop, the loop, after it."""
        pre = max((s.pre for s in self.stages), default=0.0)
        post = max((s.post for s in self.stages), default=0.0)
        return pre + self.loop_time + post

    @property
    def bubble(self) -> float:
        """The share of the loop the stages idle (the simulated bubble)."""
        span = self.loop_time
        if span <= 0:
            return 0.0
        busy = sum(s.end - s.start for s in self.slots)
        return 1.0 - busy / (span * len(self.stages))

    @property
    def peak_memory(self) -> float:
        return max((s.memory for s in self.stages), default=0.0)


def instr_time(
    instr: Instr, types: Mapping[int, TensorType], model: CostModel
) -> float:
    """Modelled seconds of one instruction on its placement (a region: its
    blocks' instructions once)."""
    if isinstance(instr, OpInstr):
        h = instr.placement.hierarchy
        return compute_costs(instr.op, (instr.sig,), h, model)[0]
    if isinstance(instr, CollectiveInstr):
        tensor = types[instr.operand]
        try:
            return boxing.plan(
                instr.src, instr.dst, tensor, instr.placement, model
            ).time
        except boxing.BoxingError:
            return 0.0  # a step the planner would not take alone: unpriced
    return sum(
        instr_time(sub, types, model) for b in blocks_of(instr) for sub in b.body
    )


def program_time(program: Program, model: CostModel) -> float:
    """Seconds of a whole (unpipelined) boxed program, priced as a task is."""
    return sum(instr_time(instr, program.types, model) for instr in program.body)


def task_time(task: TaskProgram, model: CostModel) -> float:
    """Seconds of one run of ``task``."""
    return program_time(task.program, model)


def move_time(pp: PipelineProgram, j: int, model: CostModel) -> float:
    """Seconds of move ``j`` (a transfer between stages)."""
    move = pp.transfers[j]
    src_stage = _stage_of_key(pp, move.src)
    tensor = pp.types[move.dst]
    src, dst = pp.placements[src_stage], pp.placements[move.stage]
    if move.stacked:
        tensor = stacked_type(tensor, move.layout, dst.hierarchy)
    step = boxing.transfer_step(move.layout, move.layout, src, dst, tensor, model)
    return float(step.time)


def _stage_of_key(pp: PipelineProgram, key: str) -> int:
    for t in pp.tasks:
        if key in t.outputs:
            return t.stage
    for k, s, _, _ in pp.args:
        if k == key:
            return s
    for split in pp.splits:
        if split.dst == key:
            return split.stage
    for move in pp.transfers:
        if move.dst == key:
            return move.stage
    return 0


def key_bytes(pp: PipelineProgram) -> dict[str, int]:
    """Bytes one device holds of each value a task reads or makes."""
    out: dict[str, int] = {}
    for t in pp.tasks:
        prog = t.program
        h = prog.placement.hierarchy
        for r in prog.results:
            tensor = prog.types[r.value]
            key = t.outputs[prog.results.index(r)]
            out[key] = local_bytes(r.layout, tensor, h)
    for s in pp.splits:
        out[s.dst] = local_bytes(
            s.layout, pp.types[s.dst], pp.placements[s.stage].hierarchy
        )
    for m in pp.transfers:
        out[m.dst] = local_bytes(
            m.layout, pp.types[m.dst], pp.placements[m.stage].hierarchy
        )
    return out


def stash_bytes(pp: PipelineProgram, stage: int, sizes: dict[str, int]) -> int:
    """Bytes per device stage ``stage``'s backward reads of one microbatch
    that were made before it (by its forward, a split or a move forward):
    what each microbatch in flight holds."""
    name = f"s{stage}.bwd"
    if name not in {t.name for t in pp.tasks}:
        return 0
    task = pp.task(name)
    made_backward = {k for t in pp.tasks if t.phase == "bwd" for k in t.outputs}
    moved_backward = {m.dst for m in pp.transfers if m.after.endswith(".bwd")}
    return sum(
        sizes.get(k, 0)
        for k in set(task.inputs)
        if k in pp.loop_keys and k not in made_backward and k not in moved_backward
    )


def pipeline_cost(
    pp: PipelineProgram,
    model: CostModel,
    schedule: str | None = None,
    plan_peaks: Sequence[float] | None = None,
) -> PipelineCost:
    """``pp`` under ``schedule`` (default: its own); ``plan_peaks``: each
    stage's plan's peak memory per device (one microbatch in flight)."""
    schedule = schedule or pp.schedule
    stages = [StageCost(s) for s in range(pp.stages)]
    for t in pp.tasks:
        st = stages[t.stage]
        seconds = task_time(t, model)
        st.ops += len(t.program.body)
        if t.phase == "pre":
            st.pre += seconds
        elif t.phase == "post":
            st.post += seconds
        elif t.phase == "fwd":
            st.fwd += seconds
        else:
            st.bwd += seconds
    sizes = key_bytes(pp)
    for st in stages:
        st.stash = float(stash_bytes(pp, st.stage, sizes))
        st.in_flight = in_flight(schedule, pp.stages, pp.microbatches, st.stage)
        if plan_peaks is not None:
            st.plan_peak = float(plan_peaks[st.stage])
    delays: dict[tuple[str, int], float] = {}
    for j, move in enumerate(pp.transfers):
        if move.loop:
            key = (move.after, move.stage)
            delays[key] = delays.get(key, 0.0) + move_time(pp, j, model)

    def duration(task: Task) -> float:
        st = stages[task.stage]
        return st.fwd if task.kind is Kind.FWD else st.bwd

    def delay(a: Task, b: Task) -> float:
        return delays.get((f"s{a.stage}.{a.kind}", b.stage), 0.0)

    slots = simulate(schedule, pp.stages, pp.microbatches, duration, delay)
    return PipelineCost(schedule, pp.microbatches, stages, slots, delays)
