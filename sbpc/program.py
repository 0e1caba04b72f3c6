"""A distributed program as plain data: what the simulator and the JAX emitter run.

After ``sbp-lower-boxing`` every layout change is explicit.  ``Program`` is
that IR with the IR taken away: each instruction is either an op (an
``OpSpec`` with the ``Signature`` it runs under) or a collective (one boxing
step named as in the sbp dialect), over numbered values.  Layouts are what
the instructions say, so consumers never need to re-derive them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.collective_kind import CollectiveKind
from sbpc.ops.spec import OpSpec

ValueId: TypeAlias = int


@dataclass(frozen=True)
class Arg:
    """A function argument: its value, layout and placement."""

    value: ValueId
    layout: NdSbp
    placement: Placement


@dataclass(frozen=True)
class OpInstr:
    """Run ``op`` on every device of ``placement`` under ``sig``."""

    op: OpSpec
    sig: Signature
    operands: tuple[ValueId, ...]
    results: tuple[ValueId, ...]
    placement: Placement
    label: str = ""  # where it came from, for reports and emitted comments


@dataclass(frozen=True)
class CollectiveInstr:
    """One boxing step on hierarchy ``dims`` of ``placement`` (src -> dst layout).

    For ``transfer``, ``placement`` is the source and ``to_placement`` the target,
    and ``dims`` is empty.
    """

    kind: CollectiveKind
    dims: tuple[int, ...]
    src: NdSbp
    dst: NdSbp
    operand: ValueId
    result: ValueId
    placement: Placement
    to_placement: Placement | None = None
    label: str = ""


@dataclass(frozen=True)
class Block:
    """A region's code: values bound on entry, instructions, values yielded.

    Instructions may use values defined outside the block (captures); value
    ids are unique in the whole program, so a block reads them directly.
    """

    args: tuple[ValueId, ...]
    body: tuple[Instr, ...]
    results: tuple[ValueId, ...]


@dataclass(frozen=True)
class LoopInstr:
    """``stablehlo.while``: ``cond`` and ``body`` bind the carried values
    (``layouts``: one per carried value, the same at entry, in both blocks
    and at exit); ``cond`` yields one replicated ``i1``; ``results`` get the
    carried values at exit."""

    operands: tuple[ValueId, ...]
    results: tuple[ValueId, ...]
    layouts: tuple[NdSbp, ...]
    cond: Block
    body: Block
    placement: Placement
    label: str = ""


@dataclass(frozen=True)
class CaseInstr:
    """``stablehlo.case`` (``if`` with its branches in case order): run
    ``branches[index]`` (the last one when out of range); ``index`` is
    replicated, every branch yields the results in ``layouts``."""

    index: ValueId
    results: tuple[ValueId, ...]
    layouts: tuple[NdSbp, ...]
    branches: tuple[Block, ...]
    placement: Placement
    label: str = ""


RegionInstr: TypeAlias = LoopInstr | CaseInstr
Instr: TypeAlias = OpInstr | CollectiveInstr | LoopInstr | CaseInstr


def blocks_of(instr: Instr) -> tuple[Block, ...]:
    """The blocks nested in ``instr`` (none for ops and collectives)."""
    if isinstance(instr, LoopInstr):
        return (instr.cond, instr.body)
    if isinstance(instr, CaseInstr):
        return instr.branches
    return ()


def direct_operands(instr: Instr) -> tuple[ValueId, ...]:
    """The values ``instr`` names as operands (not what its blocks capture)."""
    if isinstance(instr, OpInstr | LoopInstr):
        return instr.operands
    if isinstance(instr, CaseInstr):
        return (instr.index,)
    return (instr.operand,)


def results_of(instr: Instr) -> tuple[ValueId, ...]:
    """The values ``instr`` defines in its own block."""
    return (instr.result,) if isinstance(instr, CollectiveInstr) else instr.results


def reads(instr: Instr) -> tuple[ValueId, ...]:
    """Every value defined outside ``instr`` that it reads: its operands and,
    for a region, what its blocks capture (in first-use order)."""
    seen: list[ValueId] = list(direct_operands(instr))
    inner: set[ValueId] = set()
    for block in blocks_of(instr):
        inner.update(block.args)
        for sub in block.body:
            for v in reads(sub):
                if v not in inner and v not in seen:
                    seen.append(v)
            inner.update(results_of(sub))
        for v in block.results:
            if v not in inner and v not in seen:
                seen.append(v)
    return tuple(seen)


@dataclass(frozen=True)
class Result:
    """A returned value, the layout it is returned in and its placement."""

    value: ValueId
    layout: NdSbp
    placement: Placement


@dataclass
class Program:
    """One function: arguments, instructions in order, results; value types."""

    name: str
    placement: Placement
    args: list[Arg] = field(default_factory=list)
    body: list[Instr] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    types: dict[ValueId, TensorType] = field(default_factory=dict)
    # Names of the hierarchy dims as mesh axes (the user's, from sdy.mesh);
    # empty: d0, d1, ...
    axis_names: tuple[str, ...] = ()
    # The mesh axis names of placements from other meshes (sdy import).
    placement_names: dict[Placement, tuple[str, ...]] = field(default_factory=dict)

    def placements(self) -> list[Placement]:
        """Every placement used, the default first, in order of appearance."""
        seen = [self.placement]
        for item in (*self.args, *self.body, *self.results):
            for p in (item.placement, getattr(item, "to_placement", None)):
                if p is not None and p not in seen:
                    seen.append(p)
        return seen
