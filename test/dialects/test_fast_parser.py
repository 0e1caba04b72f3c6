"""FastParser builds the same IR, and fails with the same errors, as xDSL's
Parser (``KnownOpsParser``: xDSL's, with sbpc's message for an unknown op)."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.parser import Parser

from sbpc.dialects.fast_parser import FastParser
from sbpc.dialects.unknown_ops import KnownOpsParser
from sbpc.passes.pipeline import default_context

ROOT = Path(__file__).resolve().parents[2]
SLOW_FOR_XDSL = {"fuzz-found.mlir"}  # see test_fast_lexer.py
FILES = sorted(
    p
    for p in [*ROOT.glob("test/**/*.mlir"), *ROOT.glob("examples/**/*.mlir")]
    if p.name not in SLOW_FOR_XDSL
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_same_module_or_error_on_repository_inputs(path: Path, outcome) -> None:
    for chunk in path.read_text().split("// -----"):
        assert outcome(FastParser, chunk) == outcome(KnownOpsParser, chunk)


def test_repeated_types_are_shared_and_still_checked(outcome) -> None:
    """A remembered type is reused; a bad spelling after it still fails as before."""
    good = """
    func.func @f(%a: tensor<8x128xf32>, %b: tensor<8x128xf32>) -> tensor<8x128xf32> {
      %c = stablehlo.add %a, %b : tensor<8x128xf32>
      return %c : tensor<8x128xf32>
    }
    """
    module = FastParser(default_context(), good).parse_module()
    assert str(module) == str(Parser(default_context(), good).parse_module())
    bad = good.replace("%b: tensor<8x128xf32>", "%b: tensor<8x128xg32>")
    assert outcome(FastParser, bad) == outcome(KnownOpsParser, bad)
    assert outcome(FastParser, bad).startswith("ParseError")
