"""Which ops run exactly on unequal (uneven-split) pieces, and what they consume.

An uneven split gives devices pieces of different sizes (``sbpc.algebra.layout``).
An op may take such pieces where its local op on each piece is still exact:
elementwise ops, broadcasts, transposes, and ops that *consume* a split dim
(a reduction over it, a dot contracting it) -- those give a partial result,
exact because an empty or short piece contributes the reduction's identity.
Ops that move elements across positions (reshape, concatenate, pad, slice,
gather, ...) are refused on uneven splits: the planner boxes first.

``consumed_dims`` tells a padded back end (the JAX lowering) which operand
dims must have their padding filled with an identity before the op.
"""

from __future__ import annotations

from collections.abc import Sequence

from sbpc.algebra.layout import is_even
from sbpc.algebra.signature import Signature
from sbpc.ops.spec import OpSpec

# Ops (besides the stablehlo elementwise list) exact on unequal pieces.
_SHAPE_OPS = frozenset(
    {
        "stablehlo.broadcast_in_dim",
        "stablehlo.transpose",
        "stablehlo.dot_general",
        "stablehlo.reduce",
        "stablehlo.compare",
        "stablehlo.round_nearest_afz",
    }
)


def uneven_ok(name: str) -> bool:
    """Whether op ``name`` may take and give uneven splits."""
    from sbpc.ops.stablehlo import ELEMENTWISE  # the op tables load lazily

    return name in _SHAPE_OPS or name.removeprefix("stablehlo.") in ELEMENTWISE


def fits_uneven(op: OpSpec, sig: Signature, hierarchy: Sequence[int]) -> bool:
    """Every split is even, or the op runs exactly on unequal pieces."""
    pairs = zip((*op.operands, *op.results), (*sig.inputs, *sig.outputs), strict=True)
    if all(is_even(t.shape, nd, hierarchy) for t, nd in pairs):
        return True
    # Multi-operand (argmax-style) reductions keep even splits: their index
    # bookkeeping is not proved on empty pieces.
    variadic = op.name == "stablehlo.reduce" and len(op.operands) > 2
    return uneven_ok(op.name) and not variadic


def _ints(op: OpSpec, key: str) -> tuple[int, ...]:
    return tuple(int(d) for d in op.attrs.get(key, ()))


def consumed_dims(op: OpSpec) -> list[tuple[int, tuple[int, ...], int | None]]:
    """(operand, dims it folds away, operand holding the fill or ``None`` for 0).

    Padding in those dims must hold the fill before the op runs.
    """
    if op.name == "stablehlo.dot_general":
        return [
            (0, _ints(op, "lhs_contracting_dimensions"), None),
            (1, _ints(op, "rhs_contracting_dimensions"), None),
        ]
    if op.name == "stablehlo.reduce":
        n = len(op.operands) // 2
        dims = _ints(op, "dimensions")
        return [(k, dims, n + k) for k in range(n)]
    return []
