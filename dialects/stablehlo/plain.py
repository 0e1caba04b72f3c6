"""StableHLO ops' attributes as plain Python values, for code that works on
values rather than IR (``sbpc.ops`` rules, the numpy simulator).

An op's plain attributes are its plain accessors (``attrs.plain_views``),
unless its ``plain_attrs()`` method builds them.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import Operation

from .attrs import plain_views
from .constants import constant_array

__all__ = ["constant_array", "plain_attrs"]


def plain_attrs(op: Operation) -> dict[str, Any]:
    """A StableHLO op's attributes as plain values, under StableHLO's names.

    Ints, tuples of ints, strings and (for ``constant``) a numpy array: what
    ``sbpc.ops.spec.OpSpec.attrs`` expects (see ``sbpc.ops.stablehlo``). A
    reduce gets ``kind`` (``ReduceOp.reduction_kind``, None for other bodies),
    a scatter too (``ScatterOp.combiner_kind``: also ``replace``).
    Ops without attributes, and ops of other dialects, give ``{}``.
    """
    own = getattr(op, "plain_attrs", None)
    return own() if callable(own) else plain_views(op)
