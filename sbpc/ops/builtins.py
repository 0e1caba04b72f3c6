"""sbpc's built-in op kinds: the rule modules' tables, merged on first use.

Each rule module (``stablehlo``, ``chlo``, ``linalg``, ``arith``, ...) fills
its own ``OpKinds`` table (``BUILTINS``) and imports only ``sbpc.ops.kind``;
this module, above them, knows the whole list.  ``op_kinds()`` merges the
tables into ``OP_KINDS`` on the first query of a rule, a local op or an
evaluator, keeping what another compiler registered before: its local op and
evaluator win, its rules come first.  Registering never calls it, so
registrations made before the first query survive.
"""

from __future__ import annotations

from sbpc.ops import (
    arith,
    bits,
    chlo,
    control_flow,
    convolution,
    linalg,
    manual,
    microbatch,
    sorting,
    stablehlo,
    windows,
)
from sbpc.ops.kind import OP_KINDS, OpKinds

__all__ = ["RULE_MODULES", "op_kinds", "register_builtins"]

# Every rule module, in the order their tables merge (rules of one op name
# are unioned in this order).
RULE_MODULES = (
    stablehlo,
    chlo,
    linalg,
    arith,
    bits,
    control_flow,
    convolution,
    windows,
    sorting,
    manual,
    microbatch,
)

_merged = False


def op_kinds() -> OpKinds:
    """``OP_KINDS`` with sbpc's built-in ops merged in (on the first call).

    For every query of rules, local ops and evaluators; registering never
    calls it, so registrations before first use survive.
    """
    global _merged
    if not _merged:
        _merged = True
        register_builtins(OP_KINDS)
    return OP_KINDS


def register_builtins(kinds: OpKinds) -> None:
    """Merge the built-in rule modules' tables into ``kinds``, keeping its facets."""
    for module in RULE_MODULES:
        kinds.merge(module.BUILTINS, keep_existing=True)
