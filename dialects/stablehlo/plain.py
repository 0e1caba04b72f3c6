"""StableHLO ops' attributes as plain Python values, for code that works on
values rather than IR (``sbpc.ops`` rules, the numpy simulator).

Each op says what its plain attributes are: ``PLAIN_ATTRS`` names the plain
accessors to read, or a ``plain_attrs()`` method builds them.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import Operation

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
    if callable(own):
        return own()
    return {k: getattr(op, k) for k in getattr(op, "PLAIN_ATTRS", ())}
