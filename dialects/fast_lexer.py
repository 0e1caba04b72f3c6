"""A faster MLIR lexer: one regular expression per token instead of a Python walk.

xDSL 0.74's ``MLIRLexer.lex`` reads a token through several Python calls
(skip whitespace, read one character, dispatch on it, match the rest, make
the span): about a third of the time of parsing a GPT training step's
145k tokens.  ``FastMLIRLexer.lex`` skips the whitespace and reads the token
with one match of one master regex, for the token kinds that make up almost
all of a module (identifiers, numbers, punctuation, and string literals
without escapes: a constant's ``"0x..."`` bytes, megabytes in a long-sequence
model, which xDSL's escape-aware string regex reads at about 10 MB/s).
Anything else (strings with escapes, ``...``, ``{-#``, non-ASCII, every
malformed input) goes to xDSL's own ``lex`` from the same position, so
the rare kinds and every lexer error come out exactly as before.  For the kinds it reads
itself it gives the same kind and span as xDSL: the alternatives below
mirror ``MLIRLexer``'s rules one by one (test/dialects/test_fast_lexer.py
compares the two token streams).  It changes nothing globally: only a
parser that installs it (``use_fast_lexer``) uses it.
"""

from __future__ import annotations

import re

from xdsl.parser import Parser
from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import (
    MLIRLexer,
    MLIRToken,
    MLIRTokenKind,
    StringLiteral,
)

_K = MLIRTokenKind

# Whitespace and comments as MLIRLexer._whitespace_regex, then one token.
_TOKEN = re.compile(
    r"(?:(?://[^\n]*+\n?+)|\s++)*+"
    r"(?:"
    r"(?P<bare>[a-zA-Z_][a-zA-Z0-9_$.]*)"
    r"|(?P<prefixed>[%!^]|#(?!-\}))(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)"
    r"|(?P<at>@[a-zA-Z_][a-zA-Z0-9_$.]*)"
    r"|(?P<hex>0x[0-9a-fA-F]+)"
    r"|(?P<number>[0-9]+)(?P<fraction>\.[0-9]*(?:[eE][+-]?[0-9]+)?)?"
    r"|(?P<arrow>->)"
    r'|(?P<string>"[^"\\\n\v\f]*+")'
    r"|(?P<punct>[:,()}\[\]<>=+/*?|-]|\{(?!-#))"
    r")",
    re.ASCII,
)

_PUNCTUATION: dict[str, MLIRTokenKind] = {
    ":": _K.COLON,
    ",": _K.COMMA,
    "(": _K.L_PAREN,
    ")": _K.R_PAREN,
    "}": _K.R_BRACE,
    "{": _K.L_BRACE,
    "[": _K.L_SQUARE,
    "]": _K.R_SQUARE,
    "<": _K.LESS,
    ">": _K.GREATER,
    "=": _K.EQUAL,
    "+": _K.PLUS,
    "/": _K.SLASH,
    "*": _K.STAR,
    "?": _K.QUESTION,
    "|": _K.VERTICAL_BAR,
    "-": _K.MINUS,
}

_PREFIXED: dict[str, MLIRTokenKind] = {
    "%": _K.PERCENT_IDENT,
    "#": _K.HASH_IDENT,
    "!": _K.EXCLAMATION_IDENT,
    "^": _K.CARET_IDENT,
}


class FastMLIRLexer(MLIRLexer):
    """``MLIRLexer`` with the common tokens read by one regex match each."""

    def lex(self) -> MLIRToken:
        m = _TOKEN.match(self.input.content, self.pos)  # type: ignore[arg-type]
        if m is None:
            return super().lex()
        group = m.lastgroup
        if group == "bare":
            kind = _K.BARE_IDENT
        elif group == "punct":
            kind = _PUNCTUATION[m.group("punct")]
        elif group == "prefixed":
            kind = _PREFIXED[m.group("prefixed")]
        elif group == "number":
            kind = _K.INTEGER_LIT
        elif group == "fraction":
            kind, group = _K.FLOAT_LIT, "number"
        elif group == "hex":
            kind = _K.INTEGER_LIT
        elif group == "at":
            kind = _K.AT_IDENT
        elif group == "string":  # a span of its own type, as xDSL makes it
            self.pos = m.end()
            return Token(
                _K.STRING_LIT, StringLiteral(m.start(group), self.pos, self.input)
            )
        else:
            kind = _K.ARROW
        self.pos = m.end()
        return Token(kind, Span(m.start(group), self.pos, self.input))


def use_fast_lexer(parser: Parser) -> None:
    """Make ``parser`` read the rest of its input with ``FastMLIRLexer``.

    Call it right after constructing the parser: the current token (already
    read by xDSL's lexer) is kept, and lexing goes on from the same position.
    """
    state = parser._parser_state  # pyright: ignore[reportPrivateUsage]
    old = state.lexer
    fast = FastMLIRLexer(old.input)
    fast.pos = old.pos
    state.lexer = fast
