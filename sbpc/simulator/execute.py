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
from sbpc.program import CollectiveInstr, OpInstr, Program
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
    for instr in program.body:
        if isinstance(instr, CollectiveInstr):
            values[instr.result] = apply_step(
                values[instr.operand], _step_of(instr, program)
            )
            continue
        assert isinstance(instr, OpInstr)
        hierarchy = instr.placement.hierarchy
        outs: list[Pieces] = [{} for _ in instr.results]
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
    return [values[r.value] for r in program.results]


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
    for instr in program.body:
        if isinstance(instr, CollectiveInstr):
            values[instr.result] = values[instr.operand]
            continue
        outs = evaluate(instr.op, [values[v] for v in instr.operands])
        values.update(zip(instr.results, outs, strict=True))
    return [values[r.value] for r in program.results]
