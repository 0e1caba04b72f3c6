"""sbpc's word for an op it does not read, in place of xDSL's bare
"Operation x.y is not registered".

Two cases: an op of a dialect sbpc reads only part of (``stablehlo.foo``),
and an op of a dialect sbpc does not read at all (``mydialect.op``).  Both
name what is not supported and point at ``docs/ops.md``, which lists every
op sbpc reads (``tools/ops_doc.py`` writes it from the registered dialects).
"""

from __future__ import annotations

from xdsl.context import Context

OPS_DOC = "docs/ops.md"

# The dialects sbpc reads (``passes.pipeline.default_context``); sbpc-opt
# also registers the rest of xDSL's, whose ops parse but are not planned.
READ_DIALECTS = (
    "builtin",
    "func",
    "arith",
    "linalg",
    "tensor",
    "stablehlo",
    "chlo",
    "sdy",
    "sbp",
)


def unknown_op_message(name: str, ctx: Context) -> str:
    """Why ``name`` cannot be read, and where the ops that can are listed."""
    prefix, dot, _ = name.partition(".")
    if dot and prefix in READ_DIALECTS:
        return (
            f"'{name}' is not supported: sbpc reads the {prefix} ops listed in "
            f"{OPS_DOC}, and this is not one of them"
        )
    what = f"the '{prefix}' dialect" if dot else "ops without a dialect prefix"
    return (
        f"'{name}' is not supported: sbpc does not read {what} (it reads "
        f"{', '.join(READ_DIALECTS)}; {OPS_DOC} lists their ops)"
    )
