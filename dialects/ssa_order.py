"""Every use of an SSA value must come after its definition (MLIR's
dominance rule), which xDSL's parser does not check.

Without it ``%0 = sbp.cast %0`` parses into a cycle, and every walk over
def-use chains (placement resolution, propagation) recurses forever.  Checked
for straight-line code: a value defined in the same block must be defined
earlier, one defined in an enclosing block by an earlier op there; blocks of
one multi-block region (branches) are left to the ops' own verifiers.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult

from sbpc.dialects.diagnostics import LocatedError


def verify_ssa_order(root: Operation) -> None:
    """Raise ``LocatedError`` at the first op using a value it cannot see."""
    index: dict[Block, dict[Operation, int]] = {}

    def position(op: Operation, block: Block) -> int:
        if block not in index:
            index[block] = {o: i for i, o in enumerate(block.ops)}
        return index[block][op]

    for op in root.walk():
        for i, value in enumerate(op.operands):
            if isinstance(value, BlockArgument):
                def_block, def_op = value.block, None
            elif isinstance(value, OpResult):
                def_op = value.op
                def_block = def_op.parent_block()
            else:
                continue
            if def_block is None:
                continue
            user = _ancestor_in(op, def_block)
            if user is None:
                if _in_sibling_block(op, def_block):
                    continue
                raise LocatedError(
                    op, f"operand #{i} is defined in a region that does not enclose it"
                )
            if def_op is not None and position(def_op, def_block) >= position(
                user, def_block
            ):
                where = (
                    "by this op"
                    if def_op is op
                    else "by an op enclosing this use"
                    if def_op is user
                    else "later"
                )
                raise LocatedError(
                    op,
                    f"operand #{i} does not dominate this use (it is defined {where})",
                )


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    """``op`` or the op enclosing it that sits directly in ``block``."""
    current: Operation | None = op
    while current is not None:
        if current.parent_block() is block:
            return current
        current = current.parent_op()
    return None


def _in_sibling_block(op: Operation, block: Block) -> bool:
    """Whether ``op`` lies in another block of ``block``'s region (control
    flow between blocks, which this check does not judge)."""
    region = block.parent
    current: Operation | None = op
    while current is not None:
        parent = current.parent_block()
        if parent is not None and parent.parent is region:
            return True
        current = current.parent_op()
    return False
