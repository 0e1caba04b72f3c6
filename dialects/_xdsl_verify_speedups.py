"""Speedup of xDSL 0.74's op verifier for modules of thousands of ops.

Verifying an op checks, for its operands, results, regions and successors,
that their count fits its definition's variadic definitions.  xDSL works
out from the definition, per op and per kind, whether any of them is
variadic or sized by an attribute: about a quarter of ``module.verify()``
on the 8-layer GPT step.  An op definition does not change, so
``install()`` works that out once per (definition, kind).  When the kind
has no size attribute and no variadic definition, xDSL's check accepts
exactly a count equal to the number of definitions; such a count returns
at once, and every other case goes to xDSL's own function (with its own
errors).  Idempotent.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.irdl import operations
from xdsl.irdl.operations import (
    OpDef,
    VariadicDef,
    VarIRConstruct,
    get_attr_size_option,
    get_construct_defs,
    get_op_constructs,
)

_MARK = "_sbpc_fixed_count_fast_path"

# (id of the definition, id of the kind) -> (the definition, its fixed count
# or None).  Ids: an enum member hashes through Python code; the entry holds
# the definition, so its id is not reused while the entry lives.
_FIXED: dict[tuple[int, int], tuple[OpDef, int | None]] = {}


def fixed_count(op_def: OpDef, construct: VarIRConstruct) -> int | None:
    """The only count of ``construct`` that ``op_def`` accepts, None when it
    has a size attribute option or a variadic definition of that kind (the
    same tests as xDSL's ``verify_variadic_size``)."""
    key = (id(op_def), id(construct))
    hit = _FIXED.get(key)
    if hit is not None and hit[0] is op_def:
        return hit[1]
    option = get_attr_size_option(construct)
    sized = any(isinstance(o, option) for o in op_def.options)
    defs = get_construct_defs(op_def, construct)
    variadic = any(isinstance(d, VariadicDef) for _, d in defs)
    count = None if sized or variadic else len(defs)
    _FIXED[key] = (op_def, count)
    return count


def install() -> None:
    """Give xDSL's verifier the fixed-count fast path (idempotent)."""
    original = operations.verify_variadic_size
    if getattr(original, _MARK, False):
        return

    def verify_variadic_size(
        op: Operation, op_def: OpDef, construct: VarIRConstruct
    ) -> None:
        hit = _FIXED.get((id(op_def), id(construct)))
        if hit is not None and hit[0] is op_def:
            count = hit[1]
        else:
            count = fixed_count(op_def, construct)
        if count is not None and len(get_op_constructs(op, construct)) == count:
            return
        original(op, op_def, construct)

    setattr(verify_variadic_size, _MARK, True)
    verify_variadic_size.__wrapped__ = original  # type: ignore[attr-defined]
    operations.verify_variadic_size = verify_variadic_size
