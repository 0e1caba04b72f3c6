"""Workarounds for xDSL 0.74 parser gaps that real JAX output runs into.

``dense<0xFF800000> : tensor<f32>`` is how MLIR (and so JAX) spells -inf, NaN
and any float it cannot print in decimal: the hex integer is the element's
bit pattern. xDSL 0.74 reads a hex element of a float dense literal as an
integer *value* (-inf becomes 4.28657869e+09), silently changing the program.
Scalar ``0x... : f32`` attributes are handled correctly by xDSL; only dense
literal elements are wrong. ``install()`` teaches the dense-literal element
conversion the MLIR rule; it is idempotent and leaves every other literal to
xDSL.

A declarative ``assembly_format`` checks the types it parsed against the
op's constraints before it resolves operands, and raises a failure as a bare
``VerifyException``: ``stablehlo.negate %a : f32`` would be reported without
a location (``<unknown>:0:0``). ``install()`` also makes such a failure a
``ParseError`` spanning the op's text, as hand-written parsers report it.

xDSL's lexer matches a string literal with ``"(?:[^"...]+|\\..)*"``: a
``+`` inside a ``*``, so an unterminated string makes the regex engine try
every way of splitting the rest of the line (exponential; a fuzzed input of
one line ran for minutes).  ``install()`` swaps in the same language with
one character per repetition, which fails in linear time.
"""

from __future__ import annotations

import re
from typing import Any

from xdsl.dialects.builtin import AnyFloat
from xdsl.irdl.declarative_assembly_format import FormatProgram
from xdsl.parser import AttrParser, Parser
from xdsl.utils.exceptions import VerifyException

_MARK = "_sbpc_hex_float_fix"


def _is_hex_literal(text: str) -> bool:
    return text[:2] in ("0x", "0X")


def install() -> None:
    """Apply every fix (idempotent)."""
    _install_hex_float_fix()
    _install_located_format_errors()
    _install_linear_string_lexer()


def _install_linear_string_lexer() -> None:
    from xdsl.utils.mlir_lexer import MLIRLexer

    MLIRLexer._unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
    )


def _install_hex_float_fix() -> None:
    """Make float dense-literal elements written in hex mean their bit pattern."""
    element_cls: Any = AttrParser._TensorLiteralElement
    original = element_cls.to_type
    if getattr(original, _MARK, False):
        return

    def to_type(self: Any, parser: AttrParser, type: Any) -> Any:
        value = self.value
        if (
            isinstance(type, AnyFloat)
            and isinstance(value, int)
            and not isinstance(value, bool)
            and _is_hex_literal(self.span.text)
        ):
            size = type.compile_time_size
            if value >= 1 << (8 * size):
                parser.raise_error(
                    f"hexadecimal float constant out of range for type {type}",
                    at_position=self.span,
                )
            return next(iter(type.iter_unpack(value.to_bytes(size, "little"))))
        return original(self, parser, type)

    setattr(to_type, _MARK, True)
    element_cls.to_type = to_type


def _install_located_format_errors() -> None:
    """Report constraint failures of declarative formats at the op's text."""
    original = FormatProgram.parse
    if getattr(original, _MARK, False):
        return

    def parse(self: FormatProgram, parser: Parser, op_type: Any) -> Any:
        start = parser.pos
        try:
            return original(self, parser, op_type)
        except VerifyException as err:
            parser.raise_error(str(err), start, parser.pos)

    setattr(parse, _MARK, True)
    FormatProgram.parse = parse  # type: ignore[method-assign]
