"""FastMLIRLexer reads the same tokens, spans and errors as xDSL's MLIRLexer."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from sbpc.dialects.fast_lexer import FastMLIRLexer

ROOT = Path(__file__).resolve().parents[2]
# xDSL's string-literal regex backtracks for minutes on this file's
# unterminated strings; both lexers hand strings to it, so it says nothing.
SLOW_FOR_XDSL = {"fuzz-found.mlir"}
FILES = sorted(
    p
    for p in [*ROOT.glob("test/**/*.mlir"), *ROOT.glob("examples/**/*.mlir")]
    if p.name not in SLOW_FOR_XDSL
)


def tokens(lexer_type: type[MLIRLexer], text: str) -> list[tuple[object, ...]]:
    """Every token as (kind, start, end, span type), or the error that ends it."""
    lexer = lexer_type(Input(text, "t.mlir"))
    out: list[tuple[object, ...]] = []
    while True:
        try:
            token = lexer.lex()
        except Exception as e:  # the error, its message and place, is compared
            out.append(("error", type(e).__name__, str(e)))
            return out
        out.append((token.kind, token.span.start, token.span.end, type(token.span)))
        if token.kind == MLIRTokenKind.EOF:
            return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_same_tokens_on_repository_inputs(path: Path) -> None:
    for chunk in path.read_text().split("// -----"):
        assert tokens(FastMLIRLexer, chunk) == tokens(MLIRLexer, chunk)


EDGE_CASES = [
    "",
    "   // only a comment",
    "// c\n%0 = x // d\n",
    '%0:2 = "op"() : () -> (i32, i32)',
    "0x1F 0x 0xg 01.5e+3 1.e-2 3. 7e 42 -1 ->",
    '#-} {-# #a #0 #-x ! !a.b ^bb0 %arg0 %_x$ @f @"q" @ @1',
    "... .. . tensor<8x?x128xf32> a.b$c_d",
    "x // comment at end without newline",
    "é ü $ ` \\ ~ & ;",
    '"unterminated',
    'dense<"0xDEADBEEF00"> "" "plain text" "x" "é"',
    '"esc\\"aped" "tab\\t" "hex\\0A" "bad\\q" "line\nbreak"',
    "%",
    "#",
]


@pytest.mark.parametrize("text", EDGE_CASES)
def test_same_tokens_on_edge_cases(text: str) -> None:
    assert tokens(FastMLIRLexer, text) == tokens(MLIRLexer, text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [*'abxzAZ_09$.%#!^@-<>()[]{}:,=+*/?|" \n\t\\', "//", "0x", "->"]
        ),
        max_size=30,
    ).map("".join)
)
def test_same_tokens_on_random_text(text: str) -> None:
    assert tokens(FastMLIRLexer, text) == tokens(MLIRLexer, text)
