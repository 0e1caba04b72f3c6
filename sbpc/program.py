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


Instr: TypeAlias = OpInstr | CollectiveInstr


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

    def placements(self) -> list[Placement]:
        """Every placement used, the default first, in order of appearance."""
        seen = [self.placement]
        for item in (*self.args, *self.body, *self.results):
            for p in (item.placement, getattr(item, "to_placement", None)):
                if p is not None and p not in seen:
                    seen.append(p)
        return seen
