"""``module.verify()``, with each distinct plain StableHLO op verified once.

A model's layers repeat their ops: the 8-layer flax.nnx decoder's training
step holds 8,707 ops, and ``module.verify()`` took 0.25-0.30 s of each
``distribute``.  The verifiers of StableHLO's plain ops (no region, no
successor) read nothing but the op's own types, attributes and properties
(``LOCAL_VERIFIERS``: audited modules; collectives, control flow, sdy and
sbp ops read their context, parents, symbols or uses, and are verified each
time), so an op whose class, parent op's class, types, attributes and
properties are those of an op verified before is valid too.  Compared by
identity (``_key``): the parser gives equal types and attributes one
object, so 923 of those 8,707 ops are verified, in 0.09-0.10 s.  Every
other check is xDSL's own: parent pointers, terminators (a block's last op
is always verified), empty blocks, erased operands; an op's regions are
verified before the op itself, as xDSL does, its other checks then with
its own.  ``sbpc-opt``, which verifies op by op after every pass (so its
error names the op), skips twins through the same ``VerifyMemo``.
"""

from __future__ import annotations

from collections.abc import Hashable

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, ErasedSSAValue, Operation, Region
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

# Modules whose ops without regions verify from the op alone (their
# ``verify_`` and traits read its operand and result types, attributes and
# properties only).  A module joins this list only after such an audit.
LOCAL_VERIFIERS = frozenset(
    f"sbpc.dialects.stablehlo.{name}"
    for name in (
        "base",
        "complex",
        "constants",
        "convolution",
        "elementwise",
        "gather_scatter",
        "plain",
        "reduction",
        "shape",
        "windows",
    )
)


class VerifyMemo:
    """The ops one verification of a module has checked: a twin (``_key``)
    of one that passed passes too.  One memo per verification: the keys
    hold ids, valid while the module holds the objects."""

    def __init__(self) -> None:
        self._seen: set[Hashable] = set()

    @staticmethod
    def key(op: Operation) -> Hashable | None:
        """``op``'s key (``_key``): None for an op verified each time."""
        return _key(op)

    def covered(self, op: Operation, key: Hashable | None) -> bool:
        """Whether ``op`` (of ``key``, computed once by ``key``) is the twin
        of an op verified before (erased operands are checked each time)."""
        return (
            key is not None
            and key in self._seen
            and not any(isinstance(v, ErasedSSAValue) for v in op.operands)
        )

    def passed(self, key: Hashable | None) -> None:
        """The op of ``key`` verified: its twins are covered."""
        if key is not None:
            self._seen.add(key)


def verify_module(module: ModuleOp) -> None:
    """What ``module.verify()`` checks, raising what it raises; an op that
    repeats one verified before (``_key``) is not verified again."""
    _verify(module, VerifyMemo())


def _verify(op: Operation, memo: VerifyMemo) -> None:
    key = memo.key(op)
    if key is not None:
        if not memo.covered(op, key):
            op.verify()
            memo.passed(key)
        return
    for region in op.regions:
        _verify_region(region, memo)
    op.verify(verify_nested_ops=False)


def _verify_region(region: Region, memo: VerifyMemo) -> None:
    """``Region.verify`` and ``Block.verify``, the ops through ``_verify``."""
    for block in region.blocks:
        _verify_block(block, memo)
        if block.parent is not region:
            raise ValueError(
                "Parent pointer of block does not refer to containing region"
            )


def _verify_block(block: Block, memo: VerifyMemo) -> None:
    for op in block.ops:
        if op.parent is not block:
            raise ValueError(
                "Parent pointer of operation does not refer to containing region"
            )
        _verify(op, memo)
    region = block.parent
    if block.first_op is None and region is not None:
        parent_op = region.parent
        if (
            parent_op is not None
            and len(region.blocks) == 1
            and not parent_op.has_trait(NoTerminator)
        ):
            raise VerifyException(
                f"Operation {parent_op.name} contains empty block in "
                "single-block region that expects at least a terminator"
            )


def _key(op: Operation) -> Hashable | None:
    """All a locally verified op's verification reads; None for an op that
    is verified each time (its verifier reads its context, it holds
    regions, or it ends its block: the terminator check reads its place)."""
    if type(op).__module__ not in LOCAL_VERIFIERS or op.regions or op.successors:
        return None
    block = op.parent
    if block is not None and block.last_op is op:
        return None
    parent = block.parent_op() if block is not None else None
    # By identity: hashing xDSL's attributes walks their parameters (keyed
    # by value, the check took 0.18 s, not 0.09); every object keyed is held
    # by the module while it is verified, so no id is reused, and equal
    # objects apart only verify again.
    return (
        type(op),
        type(parent),
        *[id(v.type) for v in op.operands],
        None,
        *[id(r.type) for r in op.results],
        *[(k, id(a)) for k, a in op.attributes.items()],
        None,
        *[(k, id(a)) for k, a in op.properties.items()],
    )
