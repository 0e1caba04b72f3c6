"""xDSL's ``Parser`` with the fast lexer, a memo of builtin types and one of ops.

A module JAX prints spells the same few tensor types thousands of times
(``tensor<8x128xf32>`` on nearly every op), and xDSL parses each spelling
again token by token: about 40% of parsing a GPT training step.
``FastParser`` remembers each builtin parametrized type (``tensor<...>``,
``vector<...>``, ...) by its exact source text and, when the same text comes
again, returns the same (immutable) attribute and moves the lexer past it.
Only texts of one bracket level made of identifier characters are
remembered (``tensor<8x128xf32>``, not ``tensor<4x!t>`` or nested types):
their meaning cannot depend on aliases or anything else defined earlier,
and a text is remembered only after xDSL parsed it without error, so every
diagnostic is still xDSL's own, at its own place.

It also remembers one-line ops by their text without SSA names
(``op_memo.OpMemo``): the repeated layers of a model are parsed once.
Both memos live in the parser: nothing global changes.  An op sbpc does not
read stops with ``unknown_ops``' message, at its name (``KnownOpsParser``).
"""

from __future__ import annotations

import re

from xdsl.context import Context
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.parser import UnresolvedOperand
from xdsl.utils.mlir_lexer import MLIRTokenKind

from .fast_lexer import use_fast_lexer
from .op_memo import OpMemo
from .unknown_ops import KnownOpsParser

# `<` and a body of identifier characters (no brackets, commas, `!` or `#`)
# and `>`, right after the type's name.
_SIMPLE_BODY = re.compile(r"<[a-zA-Z0-9_.?]*>", re.ASCII)


class FastParser(KnownOpsParser):
    """``Parser`` that lexes with ``FastMLIRLexer`` and memoises types and ops.

    ``memoize_ops = False`` (in a subclass) parses every op through xDSL.
    """

    memoize_ops: bool = True

    def __init__(
        self, ctx: Context, text: str | bytes, name: str = "<unknown>"
    ) -> None:
        super().__init__(ctx, text, name)
        use_fast_lexer(self)
        self._type_memo: dict[str, TypeAttribute] = {}
        self._op_memo = OpMemo()

    def parse_operation(self) -> Operation:
        if not self.memoize_ops:
            return super().parse_operation()
        memo = self._op_memo
        outer, memo.recording = memo.recording, None
        try:
            found = memo.lookup(self)
            if isinstance(found, Operation):
                return found
            memo.recording = found
            op = super().parse_operation()
        finally:
            memo.recording = outer
        if found is not None:
            memo.remember(found, op, self._current_token.span.start)
        return op

    def resolve_operand(self, operand: UnresolvedOperand, type: Attribute) -> SSAValue:  # type: ignore[override]
        value = super().resolve_operand(operand, type)
        self._op_memo.note_resolution(operand, type, value)
        return value

    def _parse_optional_builtin_parametrized_type(self) -> TypeAttribute | None:
        token = self._current_token
        if token.kind != MLIRTokenKind.BARE_IDENT:
            return None
        content = self.lexer.input.content
        body = _SIMPLE_BODY.match(content, token.span.end)  # type: ignore[arg-type]
        if body is None:
            return super()._parse_optional_builtin_parametrized_type()
        end = body.end()
        key = content[token.span.start : end]
        known = self._type_memo.get(key)  # type: ignore[arg-type]
        if known is not None:
            self._resume_from(end)
            return known
        parsed = super()._parse_optional_builtin_parametrized_type()
        # The body holds one `>`, so a successful parse ends exactly there.
        if parsed is not None and self._current_token.span.start >= end:
            self._type_memo[key] = parsed  # type: ignore[index]
        return parsed
