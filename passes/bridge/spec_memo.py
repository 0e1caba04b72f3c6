"""Each op's ``OpSpec`` built once while the op keeps what the spec reads.

``sbp-propagate`` (the graph bridge), ``sbp-lower-boxing`` (the legality
check) and the ``-t jax`` reader each ask for the spec of every op, and
building one (plain types, plain attributes) is most of their per-op work.
Between those calls an op changes only by its ``sbp.sig`` (written back by
propagation) and by its operands being replaced with boxed values (of the
same types).  A spec reads the op's name, operand and result types,
properties and attributes, and for ops with regions their bodies: so the
memo keeps, per op, that key without ``sbp.sig`` and reuses the spec only
while the key is still equal.  Ops with regions are never memoised (a body
can change without the op's own fields changing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from xdsl.ir import Operation

from sbpc.dialects.sbp import SIG
from sbpc.ops.spec import OpSpec

_SPECS: WeakKeyDictionary[Operation, tuple[tuple[Any, ...], OpSpec]] = (
    WeakKeyDictionary()
)


def spec_key(op: Operation) -> tuple[Any, ...]:
    """What an ``OpSpec`` of ``op`` reads, ``sbp.sig`` left out (attributes
    are immutable, so equal keys mean equal inputs)."""
    return (
        op.name,
        op.operand_types,
        op.result_types,
        tuple(op.properties.items()),
        tuple(kv for kv in op.attributes.items() if kv[0] != SIG),
    )


def remembered_spec(op: Operation, build: Callable[[Operation], OpSpec]) -> OpSpec:
    """``build(op)``, or the spec built before for ``op`` if its key is unchanged."""
    if op.regions:
        return build(op)
    key = spec_key(op)
    hit = _SPECS.get(op)
    if hit is not None and hit[0] == key:
        return hit[1]
    spec = build(op)
    _SPECS[op] = (key, spec)
    return spec
