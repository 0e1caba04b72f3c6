"""LocatingParser's fast lexer, type and op memos leave the IR and its locations as before.

The slow path is the same parser with xDSL's own lexer, type parsing and op
parsing put back; both parse the GPT example's 8-layer Adam step (the module the speedup
is for) and the example exports, printed with their locations.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRLexer

from sbpc.passes.pipeline import default_context
from sbpc.tools.sbpc_opt import LocatingParser

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "examples") not in sys.path:
    sys.path.insert(0, str(ROOT / "examples"))


class SlowLocatingParser(LocatingParser):
    """LocatingParser as it was: xDSL's lexer, type parsing and op parsing."""

    memoize_ops = False

    _parse_optional_builtin_parametrized_type = (
        Parser._parse_optional_builtin_parametrized_type
    )

    def __init__(self, ctx, text: str, name: str, line_offset: int = 0) -> None:
        super().__init__(ctx, text, name, line_offset)
        state = self._parser_state
        lexer = MLIRLexer(state.lexer.input)
        lexer.pos = state.lexer.pos
        state.lexer = lexer


def located(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out, print_debuginfo=True).print_op(module)
    return out.getvalue()


def parse(parser_type: type[LocatingParser], text: str) -> str:
    return located(parser_type(default_context(), text, "m.mlir").parse_module())


def gpt_train_text(layers: int) -> str:
    import jax
    from models import gpt

    saved, gpt.LAYERS = gpt.LAYERS, layers
    try:
        example = gpt.train_example()
    finally:
        gpt.LAYERS = saved
    return jax.jit(example.fn).lower(*example.args).as_text()


def test_gpt_8_layer_step_parses_to_the_same_located_module() -> None:
    text = gpt_train_text(8)
    assert parse(LocatingParser, text) == parse(SlowLocatingParser, text)


@pytest.mark.parametrize(
    "path", sorted((ROOT / "examples" / "stablehlo").glob("*.mlir")), ids=str
)
def test_example_exports_parse_to_the_same_located_module(path: Path) -> None:
    text = path.read_text()
    assert parse(LocatingParser, text) == parse(SlowLocatingParser, text)
