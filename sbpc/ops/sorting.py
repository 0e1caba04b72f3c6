"""Sorting and selecting: ``stablehlo.sort``, ``chlo.top_k`` and the
arg-reductions (``jnp.argmax``/``argmin``: a two-operand ``stablehlo.reduce``).

Attributes (``OpSpec.attrs``):

=================  ==========================================================
op                 attrs
=================  ==========================================================
sort               ``dimension``, ``is_stable``, ``num_keys``: the comparator
                   is ascending lexicographic order over the first
                   ``num_keys`` operands, floats in JAX's total order (-0.0
                   equals 0.0, NaN above +inf): what ``lax.sort`` emits
                   (``sort_less`` is its reference)
chlo.top_k         ``k``: the ``k`` largest along the last dimension, in
                   descending order, ties by lower index first, and their
                   indices
reduce             ``kind`` ``argmax``/``argmin`` (``ARG_KINDS``): operands
                   (values, indices, value init, index init); the body
                   ``arg_combine`` JAX emits
=================  ==========================================================

Rules: a sort or a top-k splits along every dimension it does not sort (each
device sorts its own rows); an arg-reduction splits its kept dimensions (the
reduce rule in ``sbpc.ops.stablehlo``).  None of them has a partial form: a
sort of a partial value is not the sort of its sum.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sbpc.algebra.signature import Signature
from sbpc.ops.derive import Factor, factor_signatures
from sbpc.ops.kind import OpKinds
from sbpc.ops.spec import OpSpec

BUILTINS = OpKinds()

ARG_KINDS = ("argmax", "argmin")


def sort_less(xs: Sequence[np.ndarray], ys: Sequence[np.ndarray]) -> np.ndarray:
    """Elementwise ``x < y`` in ascending lexicographic order over the keys."""
    less = np.zeros(np.broadcast(*xs, *ys).shape, bool)
    equal = np.ones_like(less)
    for x, y in zip(xs, ys, strict=True):
        xk, yk = _keys(np.asarray(x)), _keys(np.asarray(y))
        less |= equal & _lt(xk, yk)
        equal &= _eq(xk, yk)
    return less


def _keys(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(value, is NaN) with -0.0 folded into 0.0; NaN flags are the top."""
    if np.issubdtype(x.dtype, np.floating) or x.dtype.name == "bfloat16":
        f = np.asarray(x, np.float64)
        nan = np.isnan(f)
        return np.where(nan | (f == 0), 0.0, f), nan
    return x, np.zeros(x.shape, bool)


def _lt(
    a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    return (~a[1] & b[1]) | (~a[1] & ~b[1] & (a[0] < b[0]))


def _eq(
    a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    return (a[1] & b[1]) | (~a[1] & ~b[1] & (a[0] == b[0]))


def arg_combine(
    kind: str, a_v: np.ndarray, a_i: np.ndarray, b_v: np.ndarray, b_i: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """JAX's argmax (argmin) body on (accumulator, element) pairs: the larger
    (smaller) value wins, NaN beats everything, equal values keep the lower
    index."""
    a_v, b_v = np.asarray(a_v), np.asarray(b_v)
    nan = np.isnan(a_v) if np.issubdtype(a_v.dtype, np.inexact) else False
    better = (a_v > b_v if kind == "argmax" else a_v < b_v) | nan
    take_a_index = better | ((a_v == b_v) & (np.asarray(a_i) < np.asarray(b_i)))
    return np.where(better, a_v, b_v), np.where(take_a_index, a_i, b_i)


def arg_reduce_arrays(
    kind: str,
    dims: Sequence[int],
    values: np.ndarray,
    indices: np.ndarray,
    init_v: np.ndarray,
    init_i: np.ndarray,
) -> list[np.ndarray]:
    """Folds ``arg_combine`` over ``dims`` in index order, from the inits."""
    kept = [d for d in range(values.ndim) if d not in dims]
    order = kept + list(dims)
    n_kept = int(np.prod([values.shape[d] for d in kept], dtype=np.int64))
    v = np.transpose(values, order).reshape(n_kept, -1)
    i = np.transpose(indices, order).reshape(n_kept, -1)
    acc_v = np.full(n_kept, init_v, dtype=values.dtype)
    acc_i = np.full(n_kept, init_i, dtype=indices.dtype)
    for k in range(v.shape[1]):
        acc_v, acc_i = arg_combine(kind, acc_v, acc_i, v[:, k], i[:, k])
    shape = tuple(values.shape[d] for d in kept)
    return [acc_v.reshape(shape), acc_i.reshape(shape)]


# --- sort ---------------------------------------------------------------------


@BUILTINS.rule("stablehlo.sort")
def sort_rule(op: OpSpec) -> list[Signature]:
    """Every operand and result split alike along a dimension not sorted."""
    dim = int(op.attr("dimension"))
    n, m = len(op.operands), len(op.results)
    return factor_signatures(
        Factor((d,) * n, (d,) * m) for d in range(op.operands[0].rank) if d != dim
    )


@BUILTINS.evaluator("stablehlo.sort")
def _sort(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    """A stable lexicographic sort (``np.lexsort``: last key primary)."""
    dim = int(op.attr("dimension"))
    if op.attr("num_keys") is None:
        raise ValueError(
            "stablehlo.sort: cannot evaluate a comparator sbpc cannot name"
        )
    k = int(op.attr("num_keys"))
    keys = []
    for x in reversed(xs[:k]):
        value, nan = _keys(x)
        keys += [value, nan]  # NaN flag is the more significant of the pair
    order = np.lexsort([np.moveaxis(a, dim, -1) for a in keys], axis=-1)
    return [
        np.moveaxis(np.take_along_axis(np.moveaxis(x, dim, -1), order, -1), -1, dim)
        for x in xs
    ]


# --- top_k --------------------------------------------------------------------


@BUILTINS.rule("chlo.top_k")
def top_k_rule(op: OpSpec) -> list[Signature]:
    """Split any dimension but the last (each device its own rows)."""
    rank = op.operands[0].rank
    return factor_signatures(Factor((d,), (d, d)) for d in range(rank - 1))


@BUILTINS.evaluator("chlo.top_k")
def _top_k(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    """The ``k`` largest of each row in descending order; NaN largest; ties
    (and equal NaNs) by lower index."""
    x = xs[0]
    k = int(op.attr("k"))
    value, nan = _keys(x)
    # Descending by (nan, value); stable so equal keys keep index order.
    order = np.lexsort((-np.asarray(value, np.float64), ~nan), axis=-1)[..., :k]
    return [np.take_along_axis(x, order, -1), order.astype(np.int64)]
