"""Workarounds for xDSL 0.74 parser gaps that real JAX output runs into.

``dense<0xFF800000> : tensor<f32>`` is how MLIR (and so JAX) spells -inf, NaN
and any float it cannot print in decimal: the hex integer is the element's
bit pattern. xDSL 0.74 reads a hex element of a float dense literal as an
integer *value* (-inf becomes 4.28657869e+09), silently changing the program.
Scalar ``0x... : f32`` attributes are handled correctly by xDSL; only dense
literal elements are wrong. ``install()`` teaches the dense-literal element
conversion the MLIR rule; it is idempotent and leaves every other literal to
xDSL.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import AnyFloat
from xdsl.parser import AttrParser

_MARK = "_sbpc_hex_float_fix"


def _is_hex_literal(text: str) -> bool:
    return text[:2] in ("0x", "0X")


def install() -> None:
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
