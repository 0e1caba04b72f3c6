"""``OpSpec``s built once per distinct op content.

``sbp-propagate`` (the graph bridge), ``sbp-lower-boxing`` (the legality
check) and the ``-t jax`` reader each ask for the spec of every op, and
building one (plain types, plain attributes) was most of their per-op work.
A region-free op's spec reads only the op's name, operand and result types,
properties and attributes: ``spec_key`` is exactly that, without
``sbp.sig`` (which propagation writes between the calls and no spec reads).
Attributes are immutable, so ops with equal keys have equal specs, and one
(immutable) spec serves them all: a model repeats a few hundred distinct ops
thousands of times (183 keys for 5,407 ops in the 8-layer GPT step).  An op
changed since (a new operand type, a new property) has a new key, hence a new
spec.  Ops with regions are never memoised: their specs read their bodies.
The key also holds the op-kind registry's ``version``: a compiler that
registers an ``ir_extractor`` later gets specs built with it.

Ops carrying a large dense array (a constant of weights closed over by the
user's function) are not memoised either: the memo would keep the array (and
its spec's copy) alive after the module is gone, and no other op repeats it.

Before the key is built and hashed (hashing xDSL attributes is most of the
memo's cost), the op is looked up by the identities of what the key holds:
the parser hands equal ops the very same type and attribute objects, and
the next pass sees the same op again.  That memo keeps those objects alive,
so an identity in it cannot be reused by another object; an op whose objects
are new (an equal attribute built again) falls through to the key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Operation

from sbpc.dialects.sbp import SIG
from sbpc.ops.kind import OP_KINDS
from sbpc.ops.spec import OpSpec

_SPECS: dict[tuple[Any, ...], OpSpec] = {}
# Identity key -> (the objects whose ids it holds, kept alive; the spec).
_BY_IDENTITY: dict[tuple[Any, ...], tuple[tuple[Any, ...], OpSpec]] = {}
_MAX_SPECS = 4096
# Dense arrays up to this many elements are memoised (scalars, iotas, masks).
_MAX_SHARED_ELEMENTS = 1024


def spec_key(op: Operation) -> tuple[Any, ...]:
    """What a region-free op's ``OpSpec`` reads, ``sbp.sig`` left out (and
    the registry version its extractor comes from)."""
    return (
        OP_KINDS.version,
        op.name,
        op.operand_types,
        op.result_types,
        tuple(op.properties.items()),
        tuple(kv for kv in op.attributes.items() if kv[0] != SIG),
    )


def _identity_parts(op: Operation) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """``spec_key`` with every attribute by its ``id``, and the attributes."""
    operand_types = [v.type for v in op.operands]  # ``operands`` builds a view
    properties, attributes = op.properties, op.attributes
    objects = (
        *operand_types,
        *[r.type for r in op.results],
        *properties.values(),
        *[v for k, v in attributes.items() if k != SIG],
    )
    names = (*properties, *[k for k in attributes if k != SIG])
    return (
        OP_KINDS.version,
        op.name,
        len(operand_types),
        len(properties),
        names,
        *map(id, objects),
    ), objects


def remembered_spec(op: Operation, build: Callable[[Operation], OpSpec]) -> OpSpec:
    """``build(op)``, or the spec built before for an op with the same key."""
    if op.regions:
        return build(op)
    identity, objects = _identity_parts(op)
    known = _BY_IDENTITY.get(identity)
    if known is not None:
        return known[1]
    if _holds_large_array(op):
        return build(op)
    key = spec_key(op)
    try:
        spec = _SPECS.get(key)
    except TypeError:  # an attribute that cannot be hashed: not memoised
        return build(op)
    if spec is None:
        spec = build(op)
        if len(_SPECS) >= _MAX_SPECS:
            _SPECS.clear()
        _SPECS[key] = spec
    if len(_BY_IDENTITY) >= _MAX_SPECS:
        _BY_IDENTITY.clear()
    _BY_IDENTITY[identity] = (objects, spec)
    return spec


def _holds_large_array(op: Operation) -> bool:
    """Whether an attribute or property of ``op`` is a dense array too large
    to keep alive in the memo."""
    for attr in (*op.properties.values(), *op.attributes.values()):
        if isinstance(attr, DenseIntOrFPElementsAttr):
            count = 1
            for n in attr.get_shape():
                count *= max(n, 0)
            if count > _MAX_SHARED_ELEMENTS:
                return True
    return False
