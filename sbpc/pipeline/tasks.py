"""A boxed pipelined program split into the tasks its schedule runs.

``sbp-pipeline`` tagged every op with its phase (``pre``, ``fwd``, ``bwd``,
``post``) and stage; ``sbp-lower-boxing`` added collectives and transfers
(a collective runs in its operand's phase, after an accumulation in
``post``; a transfer is a step of the driver).  Here each stage's loop ops
become two programs, its forward and its backward task, each compiled once
and run once per microbatch; the ops before and after the loop become tasks
too, one per run of ops on one stage, in program order.  The driver then:

- places the arguments on their stages and runs the ``pre`` tasks;
- *splits* each value an ``sbp.microbatch`` reads into its microbatches;
- runs the loop's tasks in the schedule's order, moving values between
  stages after the task that made them (``TransferStep``), the backward
  tasks adding each contribution to its accumulator
  (``sbp.accumulate``: ``acc + c``, the accumulator's buffer donated);
- runs the ``post`` tasks on the accumulated sums.

A value with a partial layout crosses a task boundary as its pieces,
stacked on one leading axis per partial hierarchy dim (how a program
returns a partial result; ``sbp.pieces`` reads them back), so a gradient
partial over the data axis is summed over microbatches piece by piece and
reduced once, after the last.  Ops made from constants only are copied
into every task that uses them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, NdSbp, Partial, Sbp, Split
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.collective_kind import CollectiveKind
from sbpc.ops.microbatch import ACCUMULATE, MICROBATCH, PIECES
from sbpc.ops.spec import OpSpec
from sbpc.program import (
    Arg,
    CollectiveInstr,
    Instr,
    OpInstr,
    Program,
    Result,
    ValueId,
    blocks_of,
    reads,
    results_of,
)

LOOP_PHASES = ("fwd", "bwd")


class TaskError(ValueError):
    """The tagged program is not one the schedule can run (a bug upstream)."""


Tag = tuple[str, int]  # (phase, stage)
GivenTag = tuple[str, int | None]  # a stage of None: the placement's


def key(v: ValueId) -> str:
    return f"v{v}"


def acc_key(v: ValueId) -> str:
    return f"acc{v}"


@dataclass
class TaskProgram:
    """One task: its program (one stage's placement), the env keys of its
    arguments and results, the arguments it donates (accumulators)."""

    name: str
    stage: int
    phase: str
    program: Program
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    donate: tuple[int, ...] = ()

    @property
    def per_microbatch(self) -> bool:
        return self.phase in LOOP_PHASES


@dataclass(frozen=True)
class SplitStep:
    """``dst`` (per microbatch) = microbatch ``i`` of ``src`` along ``dim``."""

    src: str
    dst: str
    dim: int
    stage: int
    layout: NdSbp
    rank: int


@dataclass(frozen=True)
class TransferStep:
    """``src`` moved to ``stage`` in ``layout`` (``stacked``: as pieces),
    after task ``after`` (``"args"``: the placed arguments)."""

    src: str
    dst: str
    stage: int
    layout: NdSbp
    rank: int
    stacked: bool
    loop: bool
    after: str


@dataclass(frozen=True)
class Accumulator:
    """A running sum over microbatches: ``key`` during the loop, ``final``
    after it; ``shape`` is the carried array's (pieces stacked)."""

    key: str
    final: str
    stage: int
    layout: NdSbp
    rank: int
    shape: tuple[int, ...]
    element: str


@dataclass
class PipelineProgram:
    """Everything the pipelined module's driver runs."""

    name: str
    stages: int
    microbatches: int
    schedule: str
    placements: list[Placement]
    axis_names: list[tuple[str, ...]]
    tasks: list[TaskProgram]
    splits: list[SplitStep]
    transfers: list[TransferStep]
    accumulators: list[Accumulator]
    loop_keys: set[str]
    args: list[tuple[str, int, NdSbp, TensorType]]
    results: list[tuple[str, int, NdSbp, TensorType]]
    types: dict[str, TensorType] = field(default_factory=dict)
    # The whole mesh the stages are cut from, and its axis names.
    mesh_shape: tuple[int, ...] = ()
    mesh_axes: tuple[str, ...] = ()

    def task(self, name: str) -> TaskProgram:
        for t in self.tasks:
            if t.name == name:
                return t
        raise KeyError(name)


def partial_dims(nd: NdSbp) -> list[int]:
    return [k for k, s in enumerate(nd) if isinstance(s, Partial)]


def stacked_layout(nd: NdSbp) -> NdSbp:
    """The layout of a partial value's stacked pieces: each partial
    hierarchy dim splits its own leading axis."""
    lead = partial_dims(nd)
    out: list[Sbp] = []
    for k, s in enumerate(nd):
        if k in lead:
            out.append(Split(lead.index(k)))
        elif isinstance(s, Split):
            out.append(Split(s.axis + len(lead)))
        else:
            out.append(B)
    return tuple(out)


def stacked_type(t: TensorType, nd: NdSbp, hierarchy: Sequence[int]) -> TensorType:
    lead = tuple(hierarchy[k] for k in partial_dims(nd))
    return TensorType((*lead, *t.shape), t.element)


def split_tasks(
    program: Program,
    tags: Sequence[GivenTag | None],
    placements: Sequence[Placement],
    axis_names: Sequence[tuple[str, ...]],
    microbatches: int,
    schedule: str,
    mesh: tuple[tuple[int, ...], tuple[str, ...]] = ((), ()),
) -> PipelineProgram:
    """The tasks of ``program`` whose top-level instructions carry ``tags``
    (None: a collective of the boxing, tagged here); ``mesh``: the whole
    mesh's shape and axis names."""
    pp = _Splitter(
        program, list(tags), list(placements), list(axis_names), microbatches, schedule
    ).run()
    pp.mesh_shape = mesh[0] or placements[0].hierarchy
    pp.mesh_axes = mesh[1] or tuple(f"d{k}" for k in range(len(pp.mesh_shape)))
    return pp


@dataclass
class _Splitter:
    program: Program
    tags: list[GivenTag | None]
    placements: list[Placement]
    axis_names: list[tuple[str, ...]]
    microbatches: int
    schedule: str
    layout: dict[ValueId, NdSbp] = field(default_factory=dict)
    producer: dict[ValueId, int] = field(default_factory=dict)
    floating: set[ValueId] = field(default_factory=set)
    next_id: int = 0

    def run(self) -> PipelineProgram:
        p = self.program
        self._index()
        tags = self._fill_tags()
        groups = self._group(tags)
        readers = self._readers(groups, tags)
        out = PipelineProgram(
            p.name,
            len(self.placements),
            self.microbatches,
            self.schedule,
            self.placements,
            self.axis_names,
            [],
            [],
            [],
            [],
            set(),
            [
                (key(a.value), self._stage(a.placement), a.layout, p.types[a.value])
                for a in p.args
            ],
            [
                (key(r.value), self._stage(r.placement), r.layout, p.types[r.value])
                for r in p.results
            ],
        )
        task_of: dict[ValueId, str] = {}
        for name, (_, _, items) in groups.items():
            for _, instr in items:
                for v in results_of(instr):
                    task_of[v] = name
        for name, (phase, stage, items) in groups.items():
            out.tasks.append(self._task(name, phase, stage, items, readers, out))
        for i, instr in enumerate(p.body):
            if isinstance(instr, OpInstr) and instr.op.name == MICROBATCH:
                out.splits.append(
                    SplitStep(
                        key(instr.operands[0]),
                        key(instr.results[0]),
                        int(instr.op.attr("dim")),
                        tags[i][1],
                        instr.sig.inputs[0],
                        p.types[instr.operands[0]].rank,
                    )
                )
                out.loop_keys.add(key(instr.results[0]))
            elif (
                isinstance(instr, CollectiveInstr)
                and instr.kind == CollectiveKind.TRANSFER
            ):
                loop = tags[i][0] in LOOP_PHASES
                src = instr.operand
                out.transfers.append(
                    TransferStep(
                        key(src),
                        key(instr.result),
                        tags[i][1],
                        instr.dst,
                        p.types[src].rank,
                        bool(partial_dims(instr.dst)),
                        loop,
                        task_of.get(src, "args" if self._is_arg(src) else "split"),
                    )
                )
                if loop:
                    out.loop_keys.add(key(instr.result))
        for t in out.tasks:
            if t.per_microbatch:
                out.loop_keys.update(k for k in t.outputs if not k.startswith("acc"))
        out.types = {key(v): t for v, t in p.types.items()}
        return out

    # -- analysis -----------------------------------------------------------------

    def _index(self) -> None:
        p = self.program
        for a in p.args:
            self.layout[a.value] = a.layout
        for i, instr in enumerate(p.body):
            for v in results_of(instr):
                self.producer[v] = i
            if isinstance(instr, OpInstr):
                for v, nd in zip(instr.results, instr.sig.outputs, strict=True):
                    self.layout[v] = nd
                if all(u in self.floating for u in instr.operands):
                    self.floating.update(instr.results)
            elif isinstance(instr, CollectiveInstr):
                self.layout[instr.result] = instr.dst
            else:
                for v, nd in zip(instr.results, instr.layouts, strict=True):
                    self.layout[v] = nd
        # The driver splits a value into microbatches from its environment:
        # a task before the loop computes it, rather than each task copying it.
        self.floating -= {
            v
            for instr in p.body
            if isinstance(instr, OpInstr) and instr.op.name == MICROBATCH
            for v in reads(instr)
        }
        self.next_id = max(p.types, default=-1) + 1

    def _is_arg(self, v: ValueId) -> bool:
        return v not in self.producer

    def _stage(self, placement: Placement) -> int:
        return self.placements.index(placement)

    def _fill_tags(self) -> list[Tag]:
        """Every instruction's tag; a collective takes its operand's phase
        (after an accumulation: ``post``) and its placement's stage."""
        out: list[Tag] = []
        for i, instr in enumerate(self.program.body):
            given = self.tags[i]
            if given is not None:
                phase, stage = given
                out.append(
                    (phase, self._stage(_where(instr)) if stage is None else stage)
                )
                continue
            if isinstance(instr, CollectiveInstr):
                src = self.producer.get(instr.operand)
                if src is None:
                    phase = "pre"
                else:
                    made = self.program.body[src]
                    accumulated = (
                        isinstance(made, OpInstr) and made.op.name == ACCUMULATE
                    )
                    phase = "post" if accumulated else out[src][0]
                target = instr.to_placement or instr.placement
                out.append((phase, self._stage(target)))
                continue
            out.append(("pre", self._stage(instr.placement)))
        return self._late_boxing(out)

    def _late_boxing(self, tags: list[Tag]) -> list[Tag]:
        """A collective on a value from before the loop that only the ops
        after it read runs after it too (its result is not held through the
        loop, and an update then reads the argument itself)."""
        readers: dict[ValueId, list[int]] = {}
        for i, instr in enumerate(self.program.body):
            for v in reads(instr):
                readers.setdefault(v, []).append(i)
        out = list(tags)
        for i in reversed(range(len(out))):
            instr = self.program.body[i]
            if not isinstance(instr, CollectiveInstr) or self.tags[i] is not None:
                continue
            users = readers.get(instr.result, [])
            if out[i][0] == "pre" and users and all(out[u][0] == "post" for u in users):
                out[i] = ("post", out[i][1])
        return out

    def _group(
        self, tags: list[Tag]
    ) -> dict[str, tuple[str, int, list[tuple[int, Instr]]]]:
        """Task name -> (phase, stage, instructions): one task per stage and
        loop phase; before and after the loop, one per stage and *round*: a
        value that crosses from another stage's task starts a later round
        (so a stage's work before the loop is one task unless it waits on
        another stage's)."""
        groups: dict[str, tuple[str, int, list[tuple[int, Instr]]]] = {}
        rounds: dict[int, int] = {}  # instruction -> round (pre and post)
        for i, instr in enumerate(self.program.body):
            phase, stage = tags[i]
            if phase in LOOP_PHASES or self._floats(instr):
                continue
            r = 0
            for v in reads(instr):
                src = self.producer.get(v)
                if src is None or src not in rounds or tags[src][0] != phase:
                    continue
                moved = tags[src][1] != stage or self._driver_step(
                    self.program.body[src]
                )
                r = max(r, rounds[src] + moved)
            rounds[i] = r
        for i, instr in enumerate(self.program.body):
            phase, stage = tags[i]
            if self._driver_step(instr) or self._floats(instr):
                continue
            if phase in LOOP_PHASES:
                name = f"s{stage}.{phase}"
            else:
                name = f"s{stage}.{phase}.{rounds[i]}"
            groups.setdefault(name, (phase, stage, []))[2].append((i, instr))
        order = {"pre": 0, "fwd": 1, "bwd": 1, "post": 2}

        def rank(item: tuple[str, tuple[str, int, list[tuple[int, Instr]]]]) -> tuple:
            name, (phase, stage, items) = item
            r = int(name.rsplit(".", 1)[1]) if phase in ("pre", "post") else 0
            return (order[phase], r, stage, items[0][0])

        return dict(sorted(groups.items(), key=rank))

    def _driver_step(self, instr: Instr) -> bool:
        if isinstance(instr, CollectiveInstr):
            return instr.kind == CollectiveKind.TRANSFER
        return isinstance(instr, OpInstr) and instr.op.name == MICROBATCH

    def _floats(self, instr: Instr) -> bool:
        return (
            isinstance(instr, OpInstr)
            and bool(instr.results)
            and all(v in self.floating for v in instr.results)
        )

    def _readers(
        self,
        groups: dict[str, tuple[str, int, list[tuple[int, Instr]]]],
        tags: list[Tag],
    ) -> dict[ValueId, set[str]]:
        """Who reads each value: task names, ``"driver"`` (transfers, splits,
        results)."""
        out: dict[ValueId, set[str]] = {}
        for name, (_, _, items) in groups.items():
            for _, instr in items:
                for v in reads(instr):
                    out.setdefault(v, set()).add(name)
        for instr in self.program.body:
            if self._driver_step(instr):
                for v in reads(instr):
                    out.setdefault(v, set()).add("driver")
        for r in self.program.results:
            out.setdefault(r.value, set()).add("driver")
        return out

    # -- one task -----------------------------------------------------------------

    def _task(
        self,
        name: str,
        phase: str,
        stage: int,
        items: list[tuple[int, Instr]],
        readers: dict[ValueId, set[str]],
        out: PipelineProgram,
    ) -> TaskProgram:
        p = self.program
        placement = self.placements[stage]
        defined: set[ValueId] = set()
        body: list[Instr] = []
        inputs: list[ValueId] = []
        outputs: list[ValueId] = []
        accs: list[tuple[ValueId, ValueId, ValueId]] = []  # (result, in, out)
        copied: set[ValueId] = set()

        def need(v: ValueId) -> None:
            if v in defined or v in inputs:
                return
            if v in self.floating:
                self._copy_floating(v, placement, body, defined, copied)
                return
            inputs.append(v)

        for _, instr in items:
            for v in reads(instr):
                need(v)
            if isinstance(instr, OpInstr) and instr.op.name == ACCUMULATE:
                (result,) = instr.results
                t = p.types[result]
                acc_in, acc_out = self._fresh(t), self._fresh(t)
                body.append(
                    OpInstr(
                        OpSpec("stablehlo.add", (t, t), (t,)),
                        Signature((instr.sig.inputs[0],) * 2, (instr.sig.outputs[0],)),
                        (acc_in, instr.operands[0]),
                        (acc_out,),
                        placement,
                        instr.label,
                    )
                )
                self.layout[acc_in] = self.layout[acc_out] = instr.sig.outputs[0]
                accs.append((result, acc_in, acc_out))
                defined.add(acc_out)
                nd = instr.sig.outputs[0]
                stacked = stacked_type(t, nd, placement.hierarchy)
                out.accumulators.append(
                    Accumulator(
                        acc_key(result),
                        key(result),
                        stage,
                        nd,
                        t.rank,
                        stacked.shape,
                        t.element,
                    )
                )
                continue
            body.append(instr)
            defined.update(results_of(instr))
            for block in blocks_of(instr):
                defined.update(block.args)
        for _, instr in items:
            if isinstance(instr, OpInstr) and instr.op.name == ACCUMULATE:
                continue  # read after the loop as its accumulator
            for v in results_of(instr):
                if readers.get(v, set()) - {name}:
                    outputs.append(v)
        in_keys = [key(v) for v in inputs]
        out_keys = [key(v) for v in outputs]
        args_in = list(inputs)
        results_out = list(outputs)
        donate = []
        for result, acc_in, acc_out in accs:
            donate.append(len(args_in))
            args_in.append(acc_in)
            in_keys.append(acc_key(result))
            results_out.append(acc_out)
            out_keys.append(acc_key(result))
        program = self._program(name, placement, stage, args_in, body, results_out)
        return TaskProgram(
            name, stage, phase, program, tuple(in_keys), tuple(out_keys), tuple(donate)
        )

    def _copy_floating(
        self,
        v: ValueId,
        placement: Placement,
        body: list[Instr],
        defined: set[ValueId],
        copied: set[ValueId],
    ) -> None:
        """The ops making floating ``v``, copied into the task."""
        instr = self.program.body[self.producer[v]]
        assert isinstance(instr, OpInstr)
        for u in instr.operands:
            if u not in defined:
                self._copy_floating(u, placement, body, defined, copied)
        if instr.results[0] in copied:
            return
        if instr.placement.hierarchy != placement.hierarchy:
            raise TaskError(
                f"a constant of {instr.label or instr.op.name} is laid out for "
                "another stage's mesh"
            )
        body.append(dataclasses.replace(instr, placement=placement))
        copied.update(instr.results)
        defined.update(instr.results)

    def _fresh(self, t: TensorType) -> ValueId:
        v = self.next_id
        self.next_id += 1
        self.program.types[v] = t
        return v

    def _program(
        self,
        name: str,
        placement: Placement,
        stage: int,
        args: list[ValueId],
        body: list[Instr],
        results: list[ValueId],
    ) -> Program:
        """The task as a one-placement program; partial arguments arrive as
        stacked pieces (read back by ``sbp.pieces``)."""
        types = self.program.types
        prog = Program(name, placement, axis_names=self.axis_names[stage])
        pieces: list[Instr] = []
        for v in args:
            nd = self.layout[v]
            if partial_dims(nd):
                w = self._fresh(stacked_type(types[v], nd, placement.hierarchy))
                prog.args.append(Arg(w, stacked_layout(nd), placement))
                pieces.append(
                    OpInstr(
                        OpSpec(PIECES, (types[w],), (types[v],)),
                        Signature((stacked_layout(nd),), (nd,)),
                        (w,),
                        (v,),
                        placement,
                        f"{name}: %{v} from its stacked pieces",
                    )
                )
            else:
                prog.args.append(Arg(v, nd, placement))
        prog.body = [*pieces, *(_on(instr, placement) for instr in body)]
        prog.results = [Result(v, self.layout[v], placement) for v in results]
        used = set(args) | {a.value for a in prog.args}
        _values(prog.body, used)
        prog.types = {v: types[v] for v in used if v in types}
        return prog


def _values(body: Sequence[Instr], out: set[ValueId]) -> None:
    """Every value ``body`` reads or defines, in nested blocks too."""
    for instr in body:
        out.update(reads(instr))
        out.update(results_of(instr))
        for block in blocks_of(instr):
            out.update(block.args)
            out.update(block.results)
            _values(block.body, out)


def _where(instr: Instr) -> Placement:
    if isinstance(instr, CollectiveInstr):
        return instr.to_placement or instr.placement
    return instr.placement


def _on(instr: Instr, placement: Placement) -> Instr:
    """``instr`` on ``placement`` (the same devices' placement object)."""
    if instr.placement != placement:
        raise TaskError(
            f"{instr.label or type(instr).__name__} runs on {instr.placement}, "
            f"not on its task's stage {placement}"
        )
    return instr
