"""Run a boxed ``Program`` with numpy on virtual devices: the semantic oracle.

Every device of a placement holds its own local piece of every value; ops
run per device as ``op_rules.local_op`` says, collectives as
``sbpc.simulator.collectives`` computes them from each group's pieces.  Nothing here
looks at the logical value except to distribute the inputs and assemble the
results, so a wrong signature or a wrong boxing plan shows up as wrong
numbers.  Independent of JAX.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sbpc.algebra.pieces import Pieces, assemble, distribute
from sbpc.algebra.sbp import Partial
from sbpc.boxing import planner as boxing
from sbpc.boxing.collective_kind import REDUCTIONS, CollectiveKind
from sbpc.ops.evaluate import evaluate
from sbpc.ops.halo import exchange
from sbpc.ops.registry import local_op
from sbpc.program import (
    CaseInstr,
    CollectiveInstr,
    Instr,
    LoopInstr,
    OpInstr,
    Program,
)
from sbpc.simulator.collectives import apply_step


def _step_of(instr: CollectiveInstr, program: Program) -> boxing.BoxingStep:
    tensor = program.types[instr.operand]
    if instr.kind == CollectiveKind.TRANSFER:
        assert instr.to_placement is not None
        return boxing.transfer_step(
            instr.src,
            instr.dst,
            instr.placement,
            instr.to_placement,
            tensor,
            boxing.DEFAULT_COST_MODEL,
        )
    reduce = None
    if instr.kind in REDUCTIONS:
        entry = instr.src[instr.dims[0]]
        assert isinstance(entry, Partial)
        reduce = entry.kind
    return boxing.BoxingStep(
        instr.kind,
        instr.dims,
        instr.src,
        instr.dst,
        instr.placement.hierarchy,
        reduce=reduce,
    )


def run(program: Program, inputs: Sequence[Pieces]) -> list[Pieces]:
    """Every device's pieces of the results, from every device's input pieces."""
    values: dict[int, Pieces] = {
        a.value: dict(p) for a, p in zip(program.args, inputs, strict=True)
    }
    _run_block(program.body, values, program)
    return [values[r.value] for r in program.results]


def _run_block(
    instrs: Sequence[Instr], values: dict[int, Pieces], program: Program
) -> None:
    for instr in instrs:
        if isinstance(instr, CollectiveInstr):
            values[instr.result] = apply_step(
                values[instr.operand], _step_of(instr, program)
            )
        elif isinstance(instr, LoopInstr):
            _run_loop(instr, values, program)
        elif isinstance(instr, CaseInstr):
            chosen = instr.branches[
                _branch(_agreed(values[instr.index], instr.label), len(instr.branches))
            ]
            _run_block(chosen.body, values, program)
            for r, y in zip(instr.results, chosen.results, strict=True):
                values[r] = values[y]
        else:
            _run_op(instr, values)


def _run_op(instr: OpInstr, values: dict[int, Pieces]) -> None:
    hierarchy = instr.placement.hierarchy
    outs: list[Pieces] = [{} for _ in instr.results]
    # a spatial split whose windows overlap: neighbours' rows first
    operands = exchange(
        instr.op, instr.sig, hierarchy, [values[v] for v in instr.operands]
    )
    for coord in instr.placement.coords():
        local = local_op(instr.op, instr.sig, hierarchy, coord)
        args = [p[coord] for p in operands]
        for r, value in enumerate(evaluate(local, args)):
            outs[r][coord] = value
    for v, pieces in zip(instr.results, outs, strict=True):
        values[v] = pieces


def _agreed(pieces: Pieces, label: str) -> np.ndarray:
    """A replicated control value: every device must hold the same one."""
    first = next(iter(pieces.values()))
    for piece in pieces.values():
        if not np.array_equal(piece, first):
            raise ValueError(f"{label}: devices disagree on a control value")
    return first


def _branch(index: np.ndarray, n: int) -> int:
    """``case``: an index out of range runs the last branch."""
    k = int(index)
    return k if 0 <= k < n else n - 1


def _run_loop(instr: LoopInstr, values: dict[int, Pieces], program: Program) -> None:
    carried = [values[v] for v in instr.operands]
    while True:
        for a, c in zip(instr.cond.args, carried, strict=True):
            values[a] = c
        _run_block(instr.cond.body, values, program)
        if not bool(_agreed(values[instr.cond.results[0]], instr.label)):
            break
        for a, c in zip(instr.body.args, carried, strict=True):
            values[a] = c
        _run_block(instr.body.body, values, program)
        carried = [values[y] for y in instr.body.results]
    for r, c in zip(instr.results, carried, strict=True):
        values[r] = c


def simulate(
    program: Program,
    inputs: Sequence[np.ndarray],
    rng: np.random.Generator | None = None,
) -> list[np.ndarray]:
    """The logical results of ``program`` on logical ``inputs``."""
    rng = rng or np.random.default_rng(0)
    pieces = [
        distribute(x, a.layout, a.placement.hierarchy, rng)
        for x, a in zip(inputs, program.args, strict=True)
    ]
    outs = run(program, pieces)
    return [
        assemble(p, r.layout, r.placement.hierarchy)
        for p, r in zip(outs, program.results, strict=True)
    ]


def evaluate_whole(program: Program, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The unsharded program: every op on whole tensors, collectives skipped."""
    values: dict[int, np.ndarray] = {
        a.value: np.asarray(x) for a, x in zip(program.args, inputs, strict=True)
    }
    _whole_block(program.body, values)
    return [values[r.value] for r in program.results]


def _whole_block(instrs: Sequence[Instr], values: dict[int, np.ndarray]) -> None:
    for instr in instrs:
        if isinstance(instr, CollectiveInstr):
            values[instr.result] = values[instr.operand]
        elif isinstance(instr, LoopInstr):
            carried = [values[v] for v in instr.operands]
            while True:
                values.update(zip(instr.cond.args, carried, strict=True))
                _whole_block(instr.cond.body, values)
                if not bool(values[instr.cond.results[0]]):
                    break
                values.update(zip(instr.body.args, carried, strict=True))
                _whole_block(instr.body.body, values)
                carried = [values[y] for y in instr.body.results]
            values.update(zip(instr.results, carried, strict=True))
        elif isinstance(instr, CaseInstr):
            chosen = instr.branches[_branch(values[instr.index], len(instr.branches))]
            _whole_block(chosen.body, values)
            values.update(
                zip(instr.results, [values[y] for y in chosen.results], strict=True)
            )
        else:
            outs = evaluate(instr.op, [values[v] for v in instr.operands])
            values.update(zip(instr.results, outs, strict=True))
