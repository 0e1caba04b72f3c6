"""A step function as plain data, for the pipeline's analyses.

The IR pass reads the function's top-level ops into ``Node``\\ s over
numbered values; the microbatch analysis and the stage cut work on that,
never on the IR.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sbpc.algebra.tensor_type import TensorType
from sbpc.ops.spec import OpSpec

ValueId = int


@dataclass(frozen=True)
class Node:
    """One op of the function: its spec (None: an op sbpc cannot read, such
    as a region op), operand and result values, and a label for messages.
    ``identity``: the op passes its one operand through (``sbp.cast``)."""

    spec: OpSpec | None
    operands: tuple[ValueId, ...]
    results: tuple[ValueId, ...]
    label: str = ""
    identity: bool = False


@dataclass
class Function:
    """Arguments, ops in program order, returned values, and value types."""

    args: tuple[ValueId, ...]
    nodes: list[Node]
    returns: tuple[ValueId, ...]
    types: Mapping[ValueId, TensorType]
    producer: dict[ValueId, int] = field(default_factory=dict)
    consumers: dict[ValueId, list[tuple[int, int]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for n, node in enumerate(self.nodes):
            for r in node.results:
                self.producer[r] = n
            for i, v in enumerate(node.operands):
                self.consumers.setdefault(v, []).append((n, i))

    def uses(self, v: ValueId) -> list[tuple[int, int]]:
        """``(node, operand index)`` of every use of ``v`` by an op."""
        return self.consumers.get(v, [])
