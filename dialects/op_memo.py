"""Ops remembered by their text with the SSA names taken out.

A module of repeated layers spells the same op thousands of times with only
its SSA names changed (``%9 = stablehlo.add %6, %8 : tensor<16x32x64xf32>``).
xDSL parses each through its declarative assembly format again: about half
of parsing a GPT training step.  ``OpMemo`` keys a one-line op by its text
with the operand and result names taken out (the pieces between operand
names, the number of results, the op-name lookup's dialect stack and the
first character of the next line's first token), and
remembers what xDSL's parse of that text gave: the op class, result types,
properties, attributes, and the order and types in which the operands were
resolved.  On a hit the parser resolves the new names in that same order
(so a type mismatch or a forward reference is reported as xDSL reports it),
creates the op with ``Operation.create`` and binds its results as xDSL does.

Only what cannot mean anything else is remembered:

- the op is one line of text with no strings (which may hold a ``%``),
  block labels, comments or locations (``"^/`` and ``loc`` are absent), and
  the next line starts a new op (``%``), closes the region (``}``) or ends
  the input, so no optional group of the format could have read on into it.
  Attribute and type aliases (``#a``, ``!t``) may appear: one is defined
  before its first use and cannot be redefined, so it means the same thing
  all through one parse;
- xDSL parsed that text without error, ending exactly at the end of the line;
- the op has a declarative ``assembly_format`` (whose operands are read as
  names and resolved with types taken from the text), or no operands at all
  (its custom parser then sees nothing but the text); no regions, no
  successors;
- every operand name on the line was resolved exactly once, and all names
  differ, so each name has one place in the created op.

Everything else, and every error, goes through xDSL's own parse.  The memo
lives in one parser: nothing global changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import UnresolvedOperand
from xdsl.utils.lexer import Span

if TYPE_CHECKING:
    from xdsl.parser import Parser

# An SSA name as MLIRLexer reads a PERCENT_IDENT.
_SSA = r"%(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)"
_OPERAND = re.compile(_SSA, re.ASCII)
# `%r, %s = ` (optional), the op name, the rest of the line, and the first
# character of the next token.
_LINE = re.compile(
    rf"(?P<results>{_SSA}(?:[ \t]*,[ \t]*{_SSA})*[ \t]*=[ \t]*)?"
    r"(?P<name>[a-zA-Z_][a-zA-Z0-9_$.]*)"
    r"(?P<rest>[^\n\"^/]*)\n\s*(?P<follow>[%}]|\Z)",
    re.ASCII,
)


@dataclass(frozen=True)
class _Entry:
    """What xDSL's parse of one op text gave, with the names left out."""

    op_type: type[Operation]
    result_types: tuple[Attribute, ...]
    properties: dict[str, Attribute]
    attributes: dict[str, Attribute]
    # (operand token index, tuple index after `#`, type), in the order xDSL
    # resolved them.  `%v#1`'s `#1` is part of the key's text.
    resolutions: tuple[tuple[int, int, Attribute], ...]
    # For each of the op's operands, the index of its token on the line.
    operand_tokens: tuple[int, ...]


@dataclass
class _Pending:
    """One op text being parsed by xDSL, to be remembered if it qualifies."""

    key: tuple[object, ...]
    base: int  # where the rest of the line starts in the input
    tokens: tuple[tuple[int, int, str], ...]  # operand (start, end, name), relative
    follow: int  # where the next line's first token starts
    n_results: int
    resolved: list[tuple[int, int, Attribute, SSAValue]]


class OpMemo:
    """The memo of one parser; ``FastParser`` drives it."""

    def __init__(self) -> None:
        self._entries: dict[tuple[object, ...], _Entry] = {}
        self.recording: _Pending | None = None
        self.hits = 0  # ops created from the memo (tests read it)

    def lookup(self, parser: Parser) -> Operation | _Pending | None:
        """The op at the parser's position if remembered, else what to record.

        ``None``: the text does not qualify; parse it as usual.  A created op:
        the parser has moved past it and bound its results.
        """
        start = parser._current_token.span.start  # pyright: ignore[reportPrivateUsage]
        content = parser.lexer.input.content
        m = _LINE.match(content, start)  # type: ignore[arg-type]
        if m is None:
            return None
        rest = m.group("rest")
        if "loc" in rest:
            return None
        results = m.group("results")
        result_spans = [] if results is None else list(_OPERAND.finditer(results))
        base = m.start("rest")
        tokens = tuple((t.start(), t.end(), t.group()) for t in _OPERAND.finditer(rest))
        state = parser._parser_state  # pyright: ignore[reportPrivateUsage]
        key = (
            tuple(state.dialect_stack),
            m.group("name"),
            len(result_spans),
            # The text around the names: a lone `%` stays in a piece.
            tuple(_OPERAND.split(rest)),
            m.group("follow"),
        )
        entry = self._entries.get(key)
        if entry is None:
            return _Pending(key, base, tokens, m.start("follow"), len(result_spans), [])
        source = parser.lexer.input
        # xDSL has read the next token (and met any lexer error there) by
        # the time the format resolves operands.
        parser._resume_from(m.start("follow"))  # pyright: ignore[reportPrivateUsage]
        values: list[SSAValue | None] = [None] * len(tokens)
        for index, element, type_ in entry.resolutions:
            begin, end, _ = tokens[index]
            span = Span(base + begin, base + end, source)
            operand = UnresolvedOperand(span, element)
            values[index] = parser.resolve_operand(operand, type_)
        op = entry.op_type.create(
            operands=[values[i] for i in entry.operand_tokens],  # type: ignore[misc]
            result_types=entry.result_types,
            properties=entry.properties,
            attributes=entry.attributes,
        )
        offset = m.start("results")
        for i, name in enumerate(result_spans):
            span = Span(offset + name.start(), offset + name.end(), source)
            parser._register_ssa_definition(  # pyright: ignore[reportPrivateUsage]
                name.group()[1:], op.results[i : i + 1], span
            )
        self.hits += 1
        return op

    def note_resolution(
        self, operand: UnresolvedOperand, type_: Attribute, value: SSAValue
    ) -> None:
        """Called by the parser for every operand it resolves while recording."""
        if self.recording is not None:
            self.recording.resolved.append(
                (operand.span.start, operand.index, type_, value)
            )

    def remember(self, pending: _Pending, op: Operation, next_token: int) -> None:
        """Keep what xDSL parsed for ``pending``'s text, if it qualifies."""
        if next_token != pending.follow or op.regions or op.successors:
            return
        if pending.n_results and len(op.results) != pending.n_results:
            return
        tokens = pending.tokens
        op_def = getattr(op, "get_irdl_definition", None)
        declarative = op_def is not None and op_def().assembly_format is not None
        if tokens and not declarative:
            return
        if len({name for _, _, name in tokens}) != len(tokens):
            return
        index_of = {pending.base + begin: i for i, (begin, _, _) in enumerate(tokens)}
        resolutions: list[tuple[int, int, Attribute]] = []
        token_of: dict[int, int] = {}  # id of the resolved value -> token index
        for start, element, type_, value in pending.resolved:
            index = index_of.get(start)
            if index is None or id(value) in token_of:
                return
            resolutions.append((index, element, type_))
            token_of[id(value)] = index
        if sorted(token_of.values()) != list(range(len(tokens))):
            return
        operand_tokens = tuple(token_of.get(id(v), -1) for v in op.operands)
        if sorted(operand_tokens) != list(range(len(tokens))):
            return
        self._entries[pending.key] = _Entry(
            type(op),
            tuple(r.type for r in op.results),
            dict(op.properties),
            dict(op.attributes),
            tuple(resolutions),
            operand_tokens,
        )
