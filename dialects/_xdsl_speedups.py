"""Speedups of xDSL 0.74's parser for modules of thousands of ops.

xDSL rebuilds an attribute constraint from its type hint
(``base(RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType])``)
every time it parses a ``dense<...>`` literal's type: about 10 ms each, so a
GPT training step's few thousand constants cost seconds.  ``install()``
replaces ``AttrParser._parse_dense_literal_type`` by the same check against
one constraint built once; it is idempotent.  The error message is xDSL's.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ComplexType,
    IndexType,
    IntegerType,
    RankedStructure,
)
from xdsl.irdl import AttrConstraint, base
from xdsl.parser import AttrParser

_MARK = "_sbpc_cached_dense_type_check"


@cache
def _dense_literal_type() -> AttrConstraint:
    return base(RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType])


def install() -> None:
    """Apply every speedup (idempotent)."""
    if getattr(AttrParser._parse_dense_literal_type, _MARK, False):
        return

    def parse_dense_literal_type(self: AttrParser) -> Any:
        type = self.expect(self.parse_optional_type, "Dense attribute must be typed!")
        if not _dense_literal_type().verifies(type):
            self.raise_error(
                "Expected memref, vector or tensor type of "
                "integer, index, float, or complex type"
            )
        if any(dim == DYNAMIC_INDEX for dim in list(type.get_shape())):
            self.raise_error("Dense literal attribute should have a static shape.")
        return type

    setattr(parse_dense_literal_type, _MARK, True)
    AttrParser._parse_dense_literal_type = parse_dense_literal_type  # type: ignore[method-assign]
