"""sbpc's word for an op it does not read, in place of xDSL's bare
"Operation x.y is not registered": ``KnownOpsParser`` (xDSL's ``Parser``
saying it, at the op's name; sbpc's parsers build on it).

Two cases: an op of a dialect sbpc reads only part of (``stablehlo.foo``),
and an op of a dialect sbpc does not read at all (``mydialect.op``).  Both
name what is not supported and point at ``docs/ops.md``, which lists every
op sbpc reads (``tools/ops_doc.py`` writes it from the registered dialects).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.ir import Operation
from xdsl.parser import Parser

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


class KnownOpsParser(Parser):
    """xDSL's ``Parser``, refusing an op it does not know with
    ``unknown_op_message`` at the op's name."""

    def _get_op_by_name(self, name: str) -> type[Operation]:
        op_type = self.ctx.get_optional_op(
            name, dialect_stack=self._parser_state.dialect_stack
        )
        if op_type is not None:
            return op_type
        # The parser has just read the name (bare, or quoted in generic form).
        content = self.lexer.input.content
        start = content.rfind(name, 0, self._current_token.span.start)  # type: ignore[arg-type]
        if start < 0:
            start = self._current_token.span.start
        elif start and content[start - 1] == '"':
            start -= 1
        self.raise_error(unknown_op_message(name, self.ctx), start, start + len(name))
