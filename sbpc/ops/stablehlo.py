"""SBP rules, local semantics and reference evaluation of StableHLO ops.

Attributes each op expects in ``OpSpec.attrs`` (StableHLO's names, plain
values: ints, tuples of ints, strings, numpy arrays):

==========================  ==================================================
op                          attrs
==========================  ==================================================
constant                    ``value`` (numpy array of the result's shape)
iota                        ``iota_dimension``; ``iota_offset`` (added by
                            ``local_op`` on a device holding a block of the
                            iota dimension: the block's first index; 0 if
                            absent)
compare                     ``comparison_direction`` (``EQ`` ``NE`` ``GE``
                            ``GT`` ``LE`` ``LT``)
broadcast_in_dim            ``broadcast_dimensions``
transpose                   ``permutation``
dot_general                 ``lhs_batching_dimensions``,
                            ``rhs_batching_dimensions``,
                            ``lhs_contracting_dimensions``,
                            ``rhs_contracting_dimensions``
reduce                      ``dimensions``; ``kind``: the body's combine, one
                            of ``add`` ``max`` ``min`` ``mul`` ``and`` ``or``
                            (None or absent: unknown body, only kept
                            dimensions split), or ``argmax``/``argmin``
                            (``sbpc.ops.sorting``).  Operands: the inputs then one
                            init value per input; one result per input.
concatenate                 ``dimension``
slice                       ``start_indices``, ``limit_indices``, ``strides``
dynamic_slice               ``slice_sizes``; operands: the tensor, then one
                            rank-0 start index per dimension
dynamic_update_slice        none; operands: tensor, update, rank-0 starts
gather                      ``offset_dims``, ``collapsed_slice_dims``,
                            ``operand_batching_dims``,
                            ``start_indices_batching_dims``,
                            ``start_index_map``, ``index_vector_dim``,
                            ``slice_sizes`` (``indices_are_sorted`` ignored)
scatter                     ``update_window_dims``, ``inserted_window_dims``,
                            ``input_batching_dims``,
                            ``scatter_indices_batching_dims``,
                            ``scatter_dims_to_operand_dims``,
                            ``index_vector_dim``; ``kind``: the body, one of
                            ``add`` ``mul`` ``max`` ``min`` ``replace`` (the
                            update wins), ``or`` ``and`` (booleans only,
                            ``scatter_kinds``); ``indices_are_sorted``,
                            ``unique_indices`` (passed to JAX).  Operands:
                            operand, scatter indices, updates (single-operand
                            scatter only).
pad                         ``edge_padding_low``, ``edge_padding_high``,
                            ``interior_padding``; operands: tensor, rank-0
                            padding value
reverse                     ``dimensions``
convert, reshape, others    none beyond the types
==========================  ==================================================

Device-dependent local ops (``local_op``):

* ``constant`` split: the device's block of ``value``.  In ``P(sum)`` only
  the device at coordinate 0 of every ``P(sum)`` hierarchy dim holds the
  value, the others zeros; ``P(max)``/``P(min)``: every device a copy.
* ``iota`` split along ``iota_dimension``: ``iota_offset`` = the block's
  first index (hierarchical, ``sbpc.algebra.layout.block_index``).
* ``slice`` / ``dynamic_slice`` / ``gather``: on split dimensions (always
  taken whole) ``limit_indices`` / ``slice_sizes`` become the local size.
* ``scatter``: only the local types (its dimension numbers hold no sizes;
  a split window dim is covered whole on every device).
* ``broadcast_in_dim``, ``reshape``, ``pad`` ...: only the local types.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from sbpc.algebra.layout import block_index, local_slices, split_factors
from sbpc.algebra.placement import Coord
from sbpc.algebra.sbp import B, Partial, PartialKind
from sbpc.algebra.signature import Signature
from sbpc.ops.derive import (
    PARTIAL_MAX,
    PARTIAL_MIN,
    PARTIAL_SUM,
    Factor,
    data_movement,
    factor_signatures,
    joint,
    linear,
    linear_each,
    sig1d,
)
from sbpc.ops.elementwise import KINDS, compare_kind, register_elementwise
from sbpc.ops.indexed_blocks import (
    block_attrs,
    gather_block_starts,
    scatter_block_starts,
)
from sbpc.ops.kind import LocalFn, OpKinds
from sbpc.ops.sorting import ARG_KINDS, arg_reduce_arrays
from sbpc.ops.spec import OpSpec, is_bool, numpy_dtype, scatter_kinds

# This module's op kinds, merged into the registry on first use
# (``sbpc.ops.builtins``).
BUILTINS = OpKinds()

# The elementwise ops named by their kind in ``ops.elementwise.KINDS``.
ELEMENTWISE = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "remainder",
    "maximum",
    "minimum",
    "power",
    "atan2",
    "and",
    "or",
    "xor",
    "not",
    "negate",
    "abs",
    "sign",
    "floor",
    "ceil",
    "exponential",
    "exponential_minus_one",
    "log",
    "log_plus_one",
    "tanh",
    "logistic",
    "sqrt",
    "rsqrt",
    "cbrt",
    "sine",
    "cosine",
    "is_finite",
    "clamp",
    "select",
    "convert",
]
for _kind in ELEMENTWISE:
    register_elementwise(f"stablehlo.{_kind}", KINDS[_kind], BUILTINS)
register_elementwise("stablehlo.round_nearest_afz", KINDS["round"], BUILTINS)
register_elementwise(
    "stablehlo.compare",
    compare_kind(
        "comparison_direction", {d: d for d in ("EQ", "NE", "GE", "GT", "LE", "LT")}
    ),
    BUILTINS,
)


def _ints(op: OpSpec, key: str) -> tuple[int, ...]:
    """An int-list attribute (tuple, list or numpy array); () when absent."""
    value = op.attr(key)
    return () if value is None else tuple(int(v) for v in value)


def _n(op: OpSpec) -> tuple[int, int]:
    return len(op.operands), len(op.results)


def split_dims(
    nd_sbp: Sequence[object], hierarchy: Sequence[int], rank: int
) -> list[int]:
    """Tensor dims cut into more than one piece by ``nd_sbp``."""
    return [
        d for d, f in enumerate(split_factors(tuple(nd_sbp), hierarchy, rank)) if f > 1
    ]  # type: ignore[arg-type]


# --- constant and iota -------------------------------------------------------


@BUILTINS.rule("stablehlo.constant")
def constant_rule(op: OpSpec) -> list[Signature]:
    """Any split (each device its block); any partial (see ``constant_local``)."""
    rank = op.results[0].rank
    sigs = factor_signatures(Factor((), (k,)) for k in range(rank))
    return sigs + [sig1d([], [p]) for p in (PARTIAL_SUM, PARTIAL_MAX, PARTIAL_MIN)]


@BUILTINS.local("stablehlo.constant")
def constant_local(
    op: OpSpec, local: OpSpec, sig: Signature, hierarchy: Sequence[int], coord: Coord
) -> OpSpec:
    """The device's block of ``value``; zeros off the holder of a ``P(sum)``."""
    nd = sig.outputs[0]
    value = np.asarray(op.attr("value"))
    block = np.broadcast_to(value, op.results[0].shape)[
        local_slices(op.results[0].shape, nd, hierarchy, coord)
    ]
    holder = all(c == 0 for s, c in zip(nd, coord, strict=True) if s == Partial("sum"))
    block = block.copy() if holder else np.zeros_like(block)
    return local.replace(value=block)


@BUILTINS.evaluator("stablehlo.constant")
def _constant(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.broadcast_to(np.asarray(op.attr("value")), op.results[0].shape)]


@BUILTINS.rule("stablehlo.iota")
def iota_rule(op: OpSpec) -> list[Signature]:
    """Any split; a block of the iota dimension counts from its offset."""
    return factor_signatures(Factor((), (k,)) for k in range(op.results[0].rank))


@BUILTINS.local("stablehlo.iota")
def iota_local(
    op: OpSpec, local: OpSpec, sig: Signature, hierarchy: Sequence[int], coord: Coord
) -> OpSpec:
    dim = int(op.attr("iota_dimension"))
    index, _ = block_index(sig.outputs[0], hierarchy, coord, dim)
    offset = int(op.attr("iota_offset", 0)) + index * local.results[0].shape[dim]
    return local.replace(iota_offset=offset)


@BUILTINS.evaluator("stablehlo.iota")
def _iota(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    shape = op.results[0].shape
    dim = int(op.attr("iota_dimension"))
    line = np.arange(shape[dim]) + int(op.attr("iota_offset", 0))
    view = [1] * len(shape)
    view[dim] = shape[dim]
    return [np.broadcast_to(line.reshape(view), shape)]


# --- layout ops ---------------------------------------------------------------


@BUILTINS.rule("stablehlo.broadcast_in_dim")
def broadcast_in_dim_rule(op: OpSpec) -> list[Signature]:
    """Operand dim i -> result dim ``broadcast_dimensions[i]`` unless it expands 1 -> N.

    Result dims without a same-size operand dim split with the operand ``B``.
    """
    bd = _ints(op, "broadcast_dimensions")
    src, dst = op.operands[0], op.results[0]
    owner = {j: i for i, j in enumerate(bd) if src.shape[i] == dst.shape[j]}
    factors = [Factor((owner.get(j),), (j,)) for j in range(dst.rank)]
    return factor_signatures(factors) + data_movement(*_n(op), (0,))


@BUILTINS.evaluator("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    bd = _ints(op, "broadcast_dimensions")
    x = xs[0].transpose(np.argsort(bd)) if bd else xs[0]
    view = [1] * op.results[0].rank
    for k, d in enumerate(sorted(bd)):
        view[d] = x.shape[k]
    return [np.broadcast_to(x.reshape(view), op.results[0].shape)]


def reshape_pairs(src: Sequence[int], dst: Sequence[int]) -> list[tuple[int, int]]:
    """(operand dim, result dim) pairs a split can pass through a reshape.

    Splitting operand dim i into n blocks is splitting the row-major flat
    index into n blocks inside each group of ``prod(src[:i])`` -- the same
    partition as splitting result dim j iff ``prod(dst[:j])`` is equal (and
    both dims divide by n, which the even-split filter checks).
    """
    return [
        (i, j)
        for i in range(len(src))
        for j in range(len(dst))
        if src[i] > 1 and dst[j] > 1 and math.prod(src[:i]) == math.prod(dst[:j])
    ]


@BUILTINS.rule("stablehlo.reshape")
def reshape_rule(op: OpSpec) -> list[Signature]:
    pairs = reshape_pairs(op.operands[0].shape, op.results[0].shape)
    return factor_signatures(Factor((i,), (j,)) for i, j in pairs) + data_movement(
        *_n(op), (0,)
    )


@BUILTINS.evaluator("stablehlo.reshape")
def _reshape(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    return [xs[0].reshape(op.results[0].shape)]


@BUILTINS.rule("stablehlo.transpose")
def transpose_rule(op: OpSpec) -> list[Signature]:
    perm = _ints(op, "permutation")
    return factor_signatures(Factor((perm[j],), (j,)) for j in range(len(perm))) + (
        data_movement(*_n(op), (0,))
    )


@BUILTINS.evaluator("stablehlo.transpose")
def _transpose(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    return [xs[0].transpose(_ints(op, "permutation"))]


@BUILTINS.rule("stablehlo.reverse")
def reverse_rule(op: OpSpec) -> list[Signature]:
    """Only dims that are not reversed split (a reversed block lands elsewhere)."""
    rev = set(_ints(op, "dimensions"))
    rank = op.results[0].rank
    factors = [Factor((d,), (d,)) for d in range(rank) if d not in rev]
    return factor_signatures(factors) + data_movement(*_n(op), (0,))


@BUILTINS.evaluator("stablehlo.reverse")
def _reverse(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    dims = _ints(op, "dimensions")
    return [np.flip(xs[0], axis=dims) if dims else xs[0]]


@BUILTINS.rule("stablehlo.concatenate")
def concatenate_rule(op: OpSpec) -> list[Signature]:
    """Split any dim but the concatenated one; partials of every kind pass.

    Splitting the concatenated dim would give each device [a_d, b_d], not a
    block of [a, b].
    """
    cat = int(op.attr("dimension"))
    k = len(op.operands)
    rank = op.results[0].rank
    factors = [Factor((d,) * k, (d,)) for d in range(rank) if d != cat]
    return factor_signatures(factors) + data_movement(*_n(op), range(k))


@BUILTINS.evaluator("stablehlo.concatenate")
def _concatenate(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.concatenate(xs, axis=int(op.attr("dimension")))]


# --- slicing -------------------------------------------------------------------


def _splittable_dims_of_slice(op: OpSpec) -> list[int]:
    """Dims read from 0 to the end: any stride, as long as it divides the dim.

    With stride s a block of dim/n elements (a multiple of s when n divides
    the result dim dim/s) yields exactly the result's block.
    """
    shape = op.operands[0].shape
    start = _ints(op, "start_indices")
    limit = _ints(op, "limit_indices")
    strides = _ints(op, "strides") or (1,) * len(shape)
    return [
        d
        for d in range(len(shape))
        if start[d] == 0 and limit[d] == shape[d] and shape[d] % strides[d] == 0
    ]


@BUILTINS.rule("stablehlo.slice")
def slice_rule(op: OpSpec) -> list[Signature]:
    """Split only dims the slice reads whole (strided or not)."""
    factors = [Factor((d,), (d,)) for d in _splittable_dims_of_slice(op)]
    return factor_signatures(factors) + data_movement(*_n(op), (0,))


def block_sizes_local(key: str, *, whole_only: bool = False) -> LocalFn:
    """A local rewrite setting the int-list attribute ``key`` to the device's
    block size on each dimension of operand 0 that ``sig`` splits (only where
    ``key`` spans the whole dimension, with ``whole_only``)."""

    def local_fn(
        op: OpSpec, local: OpSpec, sig: Signature, hierarchy: Sequence[int], _: Coord
    ) -> OpSpec:
        sizes = list(_ints(op, key))
        for d in split_dims(sig.inputs[0], hierarchy, op.operands[0].rank):
            if not whole_only or sizes[d] == op.operands[0].shape[d]:
                sizes[d] = local.operands[0].shape[d]
        return local.replace(**{key: tuple(sizes)})

    return local_fn


# The slice reads only whole dims (its rule), so it starts at 0 on split ones.
slice_local = BUILTINS.local("stablehlo.slice")(block_sizes_local("limit_indices"))


@BUILTINS.evaluator("stablehlo.slice")
def _slice(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    start = _ints(op, "start_indices")
    limit = _ints(op, "limit_indices")
    strides = _ints(op, "strides") or (1,) * len(start)
    index = tuple(slice(a, b, s) for a, b, s in zip(start, limit, strides, strict=True))
    return [xs[0][index]]


@BUILTINS.rule("stablehlo.dynamic_slice")
def dynamic_slice_rule(op: OpSpec) -> list[Signature]:
    """Split dims the slice takes whole (their start index clamps to 0)."""
    shape = op.operands[0].shape
    sizes = _ints(op, "slice_sizes")
    none = (None,) * (len(op.operands) - 1)
    factors = [
        Factor((d, *none), (d,)) for d in range(len(shape)) if sizes[d] == shape[d]
    ]
    return factor_signatures(factors) + data_movement(*_n(op), (0,))


dynamic_slice_local = BUILTINS.local("stablehlo.dynamic_slice")(
    block_sizes_local("slice_sizes")
)


def _clamped_starts(
    starts: Sequence[np.ndarray], shape: Sequence[int], sizes: Sequence[int]
) -> list[int]:
    return [
        int(np.clip(int(s), 0, dim - size))
        for s, dim, size in zip(starts, shape, sizes, strict=True)
    ]


@BUILTINS.evaluator("stablehlo.dynamic_slice")
def _dynamic_slice(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    x, starts = xs[0], xs[1:]
    sizes = _ints(op, "slice_sizes")
    begin = _clamped_starts(starts, x.shape, sizes)
    return [x[tuple(slice(b, b + s) for b, s in zip(begin, sizes, strict=True))]]


@BUILTINS.rule("stablehlo.dynamic_update_slice")
def dynamic_update_slice_rule(op: OpSpec) -> list[Signature]:
    """Split dims the update covers whole; partials pass (max/min: one side alone)."""
    shape = op.operands[0].shape
    upd = op.operands[1].shape
    none = (None,) * (len(op.operands) - 2)
    factors = [
        Factor((d, d, *none), (d,)) for d in range(len(shape)) if upd[d] == shape[d]
    ]
    n = _n(op)
    return (
        factor_signatures(factors)
        + data_movement(*n, (0, 1))
        + joint(*n, (0,), ("max", "min"))
        + joint(*n, (1,), ("max", "min"))
    )


@BUILTINS.evaluator("stablehlo.dynamic_update_slice")
def _dynamic_update_slice(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    x, upd, starts = xs[0], xs[1], xs[2:]
    begin = _clamped_starts(starts, x.shape, upd.shape)
    out = x.copy()
    out[tuple(slice(b, b + s) for b, s in zip(begin, upd.shape, strict=True))] = upd
    return [out]


@BUILTINS.rule("stablehlo.pad")
def pad_rule(op: OpSpec) -> list[Signature]:
    """Split unpadded dims.  Partials: value and padding together (a ``B``
    padding value is repeated by ``P(sum)``), or max/min with the value alone."""
    lo, hi = _ints(op, "edge_padding_low"), _ints(op, "edge_padding_high")
    interior = _ints(op, "interior_padding") or (0,) * len(lo)
    rank = op.operands[0].rank
    factors = [
        Factor((d, None), (d,))
        for d in range(rank)
        if lo[d] == 0 and hi[d] == 0 and interior[d] == 0
    ]
    n = _n(op)
    return (
        factor_signatures(factors)
        + data_movement(*n, (0, 1))
        + joint(*n, (0,), ("max", "min"))
    )


@BUILTINS.evaluator("stablehlo.pad")
def _pad(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    x, pv = xs
    lo, hi = _ints(op, "edge_padding_low"), _ints(op, "edge_padding_high")
    interior = _ints(op, "interior_padding") or (0,) * x.ndim
    # Interior padding first, then edges (negative edges crop).
    spread = [n + max(n - 1, 0) * i for n, i in zip(x.shape, interior, strict=True)]
    y = np.full(spread, pv, dtype=x.dtype)
    y[tuple(slice(None, None, i + 1) for i in interior)] = x
    pads = [(max(a, 0), max(b, 0)) for a, b in zip(lo, hi, strict=True)]
    y = np.pad(y, pads, constant_values=pv)
    crop = tuple(
        slice(-min(a, 0), y.shape[d] + min(b, 0))
        for d, (a, b) in enumerate(zip(lo, hi, strict=True))
    )
    return [y[crop]]


# --- contraction and reduction -----------------------------------------------------


def dot_general_factors(op: OpSpec) -> list[Factor]:
    """Batch, lhs-free, rhs-free (parallel) and contracting (sum) factors."""
    lhs, rhs = op.operands[0].rank, op.operands[1].rank
    lb, rb = _ints(op, "lhs_batching_dimensions"), _ints(op, "rhs_batching_dimensions")
    lc = _ints(op, "lhs_contracting_dimensions")
    rc = _ints(op, "rhs_contracting_dimensions")
    lfree = [d for d in range(lhs) if d not in lb and d not in lc]
    rfree = [d for d in range(rhs) if d not in rb and d not in rc]
    factors = [
        Factor((a, b), (k,)) for k, (a, b) in enumerate(zip(lb, rb, strict=True))
    ]
    factors += [Factor((d, None), (len(lb) + k,)) for k, d in enumerate(lfree)]
    factors += [
        Factor((None, d), (len(lb) + len(lfree) + k,)) for k, d in enumerate(rfree)
    ]
    factors += [Factor((a, b), (None,), "sum") for a, b in zip(lc, rc, strict=True)]
    return factors


@BUILTINS.rule("stablehlo.dot_general")
def dot_general_rule(op: OpSpec) -> list[Signature]:
    """Factors, plus linearity in each side: ``(P, B) -> P``, ``(B, P) -> P``."""
    sigs = factor_signatures(dot_general_factors(op))
    if not is_bool(op.results[0].element):
        sigs += linear_each(*_n(op), (0, 1))
    return sigs


def _einsum_spec(op: OpSpec) -> str:
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    lhs = [""] * op.operands[0].rank
    rhs = [""] * op.operands[1].rank
    out: list[str] = []
    lb, rb = _ints(op, "lhs_batching_dimensions"), _ints(op, "rhs_batching_dimensions")
    lc = _ints(op, "lhs_contracting_dimensions")
    rc = _ints(op, "rhs_contracting_dimensions")
    for a, b in zip(lb, rb, strict=True):
        lhs[a] = rhs[b] = c = next(letters)
        out.append(c)
    for a, b in zip(lc, rc, strict=True):
        lhs[a] = rhs[b] = next(letters)
    for side in (lhs, rhs):
        for d, c in enumerate(side):
            if not c:
                side[d] = c = next(letters)
                out.append(c)
    return f"{''.join(lhs)},{''.join(rhs)}->{''.join(out)}"


@BUILTINS.evaluator("stablehlo.dot_general")
def _dot_general(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    dtype = numpy_dtype(op.results[0].element)
    a, b = (x.astype(dtype, copy=False) for x in xs)
    return [np.einsum(_einsum_spec(op), a, b)]


# reduce body -> (numpy combine, partial kind of a split reduced dim, element filter)
_REDUCE_KINDS: dict[str, tuple[np.ufunc, PartialKind | None]] = {
    "add": (np.add, "sum"),
    "mul": (np.multiply, None),
    "max": (np.maximum, "max"),
    "min": (np.minimum, "min"),
    "and": (np.bitwise_and, "min"),
    "or": (np.bitwise_or, "max"),
}


def reduce_partial_kind(op: OpSpec, kind: str | None) -> PartialKind | None:
    """How per-device results of a reduction combine (None: no partial form).

    ``and``/``or`` are min/max only on booleans (bitwise on integers is not).
    """
    if kind not in _REDUCE_KINDS:
        return None
    partial = _REDUCE_KINDS[kind][1]
    if kind in ("and", "or") and not all(is_bool(t.element) for t in op.operands):
        return None
    if kind == "add" and any(is_bool(t.element) for t in op.operands):
        return None
    return partial


def reduce_signatures(
    op: OpSpec, n_inputs: int, reduced: Sequence[int], kind: str | None
) -> list[Signature]:
    """Signatures of a reduction: ``n_inputs`` data operands then their inits.

    Kept dims are parallel factors.  A reduced dim split gives ``P(kind)``;
    a sum's init values then go ``P(sum)`` too (each device would add them
    once), a max/min's stay ``B`` (idempotent).  A ``P(kind)`` input passes
    through, with the init as for a split.
    """
    rank = op.operands[0].rank
    kept = [d for d in range(rank) if d not in reduced]
    n_results = len(op.results)
    inits = (None,) * (len(op.operands) - n_inputs)
    factors = [
        Factor((d,) * n_inputs + inits, (j,) * n_results) for j, d in enumerate(kept)
    ]
    partial = reduce_partial_kind(op, kind)
    sigs = factor_signatures(factors)
    if partial is None:
        return sigs
    absent = PARTIAL_SUM if partial == "sum" else B
    inputs = (None,) * n_results
    reduction = [
        Factor((d,) * n_inputs + inits, inputs, partial, absent) for d in reduced
    ]
    sigs += factor_signatures(reduction)
    n = (len(op.operands), n_results)
    if partial == "sum":
        sigs += linear(*n, range(len(op.operands)))
    else:
        sigs += joint(*n, range(n_inputs), (partial,))
    return sigs


@BUILTINS.rule("stablehlo.reduce")
def reduce_rule(op: OpSpec) -> list[Signature]:
    n_inputs = len(op.operands) // 2
    return reduce_signatures(op, n_inputs, _ints(op, "dimensions"), op.attr("kind"))


def reduce_arrays(
    kind: str,
    dims: Sequence[int],
    inputs: Sequence[np.ndarray],
    inits: Sequence[np.ndarray],
) -> list[np.ndarray]:
    ufunc = _REDUCE_KINDS[kind][0]
    out = []
    for x, init in zip(inputs, inits, strict=True):
        r = ufunc.reduce(x, axis=tuple(dims), dtype=x.dtype) if dims else x
        out.append(ufunc(init, r))
    return out


@BUILTINS.evaluator("stablehlo.reduce")
def _reduce(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    n = len(xs) // 2
    kind = op.attr("kind")
    if kind in ARG_KINDS:  # (values, indices, their inits): argmax/argmin
        return arg_reduce_arrays(str(kind), _ints(op, "dimensions"), *xs)
    if kind not in _REDUCE_KINDS:
        raise ValueError(f"stablehlo.reduce: cannot evaluate body kind {kind!r}")
    return reduce_arrays(kind, _ints(op, "dimensions"), xs[:n], xs[n:])


# --- gather ---------------------------------------------------------------------


def _gather_dims(op: OpSpec) -> dict[str, tuple[int, ...]]:
    keys = (
        "offset_dims",
        "collapsed_slice_dims",
        "operand_batching_dims",
        "start_indices_batching_dims",
        "start_index_map",
        "slice_sizes",
    )
    return {k: _ints(op, k) for k in keys}


def _gather_batch_dims(op: OpSpec) -> tuple[list[int], list[int]]:
    """(indices batch dims, result batch dims), paired in order."""
    g = _gather_dims(op)
    ivd = int(op.attr("index_vector_dim"))
    idx_batch = [d for d in range(op.operands[1].rank) if d != ivd]
    res_batch = [d for d in range(op.results[0].rank) if d not in g["offset_dims"]]
    return idx_batch, res_batch


def _gather_offset_operand_dims(op: OpSpec) -> list[int]:
    g = _gather_dims(op)
    return [
        d
        for d in range(op.operands[0].rank)
        if d not in g["collapsed_slice_dims"] and d not in g["operand_batching_dims"]
    ]


@BUILTINS.rule("stablehlo.gather")
def gather_rule(op: OpSpec) -> list[Signature]:
    """Indices split on batch dims (operand ``B``, or split on the paired
    operand batching dim); operand split on offset dims it is sliced whole;
    operand partials of every kind pass with indices ``B``; an operand dim
    an index selects one row of splits with indices ``B`` into a ``P(sum)``
    result (``sbpc.ops.indexed_blocks``).
    """
    g = _gather_dims(op)
    shape = op.operands[0].shape
    idx_batch, res_batch = _gather_batch_dims(op)
    pair = dict(
        zip(g["start_indices_batching_dims"], g["operand_batching_dims"], strict=True)
    )
    factors = [
        Factor((pair.get(i), i), (r,))
        for i, r in zip(idx_batch, res_batch, strict=True)
    ]
    for d, r in zip(_gather_offset_operand_dims(op), g["offset_dims"], strict=True):
        if g["slice_sizes"][d] == shape[d]:
            factors.append(Factor((d, None), (r,)))
    if not is_bool(op.results[0].element):
        factors += [
            Factor((d, None), (None,), "sum")
            for d in g["start_index_map"]
            if d in g["collapsed_slice_dims"] and shape[d] > 1
        ]
    return factor_signatures(factors) + data_movement(*_n(op), (0,))


_gather_slice_sizes = block_sizes_local("slice_sizes", whole_only=True)


@BUILTINS.local("stablehlo.gather")
def gather_local(
    op: OpSpec, local: OpSpec, sig: Signature, hierarchy: Sequence[int], coord: Coord
) -> OpSpec:
    """Slice sizes of split offset dims; the block offsets of split indexed
    dims (``sbpc.ops.indexed_blocks``)."""
    local = _gather_slice_sizes(op, local, sig, hierarchy, coord)
    g = _gather_dims(op)
    rows = [d for d in g["start_index_map"] if d in g["collapsed_slice_dims"]]
    return block_attrs(op, local, sig, hierarchy, coord, g["start_index_map"], rows)


@BUILTINS.evaluator("stablehlo.gather")
def _gather(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    """StableHLO gather, start indices clamped into range as the spec says."""
    x, indices = xs
    g = _gather_dims(op)
    ivd = int(op.attr("index_vector_dim"))
    if ivd == indices.ndim:
        indices = indices[..., None]
    res_shape = op.results[0].shape
    pos = np.indices(res_shape, sparse=False) if res_shape else np.zeros((0,), int)
    idx_batch, res_batch = _gather_batch_dims(op)
    batch_at = {i: pos[r] for i, r in zip(idx_batch, res_batch, strict=True)}
    index: list[np.ndarray | int] = [0] * x.ndim
    inside: np.ndarray | bool = True
    for k, od in enumerate(g["start_index_map"]):
        where = tuple(batch_at[i] if i != ivd else k for i in range(indices.ndim))
        start = indices[where].astype(np.int64)
        start, held = gather_block_starts(
            op, k, start, x.shape[od], g["slice_sizes"][od]
        )
        index[od] = index[od] + start
        inside = inside & held
    for od, ib in zip(
        g["operand_batching_dims"], g["start_indices_batching_dims"], strict=True
    ):
        index[od] = index[od] + batch_at[ib]
    for od, r in zip(_gather_offset_operand_dims(op), g["offset_dims"], strict=True):
        index[od] = index[od] + pos[r]
    full = tuple(np.broadcast_to(np.asarray(i), res_shape) for i in index)
    out = x[full] if res_shape else x[tuple(int(np.asarray(i)) for i in index)]
    return [np.where(inside, out, np.zeros((), x.dtype))]


# --- scatter ---------------------------------------------------------------------

# scatter body kind -> numpy combine (``ufunc.at``); None: the update replaces.
_SCATTER_KINDS: dict[str, np.ufunc | None] = {
    "add": np.add,
    "mul": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
    "or": np.logical_or,
    "and": np.logical_and,
    "replace": None,
}


def _scatter_dims(op: OpSpec) -> dict[str, tuple[int, ...]]:
    keys = (
        "update_window_dims",
        "inserted_window_dims",
        "input_batching_dims",
        "scatter_indices_batching_dims",
        "scatter_dims_to_operand_dims",
    )
    return {k: _ints(op, k) for k in keys}


def _scatter_pairs(
    op: OpSpec,
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(window pairs, scatter pairs).

    Window pairs: (operand dim, update window dim) in order.  Scatter pairs:
    (scatter indices dim, update scatter dim) in order, the index vector dim
    left out.
    """
    g = _scatter_dims(op)
    ivd = int(op.attr("index_vector_dim"))
    dropped = set(g["inserted_window_dims"]) | set(g["input_batching_dims"])
    window = [d for d in range(op.operands[0].rank) if d not in dropped]
    idx = [d for d in range(op.operands[1].rank) if d != ivd]
    upd = [d for d in range(op.operands[2].rank) if d not in g["update_window_dims"]]
    return (
        list(zip(window, g["update_window_dims"], strict=True)),
        list(zip(idx, upd, strict=True)),
    )


def scatter_partial_kind(op: OpSpec) -> PartialKind | None:
    """The partial kind a scatter's body commutes with (None: order-dependent
    ``replace``, or ``mul``)."""
    kind = op.attr("kind")
    if kind in ("max", "or"):
        return "max"
    if kind in ("min", "and"):
        return "min"
    return "sum" if kind == "add" else None


@BUILTINS.rule("stablehlo.scatter")
def scatter_rule(op: OpSpec) -> list[Signature]:
    """Operands (operand, scatter_indices, updates) -> result.

    * Any body: an operand window dim the updates cover whole splits with its
      update window dim (indices ``B``); a batching dim splits in all three.
    * ``add``: jointly linear in operand and updates (``P(sum)``, indices
      ``B``); an update scatter dim (not batching) splits with its indices dim
      while the operand is ``P(sum)``: each device adds its share of the
      updates into its piece, so the result is ``P(sum)``.
    * ``max``/``min`` (``or``/``and`` on booleans): the same with ``P(max)`` /
      ``P(min)``, the operand also ``B`` (idempotent); the operand alone may
      also be ``P(min)`` under a max body (``max(min_d a_d, u) = min_d max(a_d,
      u)``) and ``P(max)`` under a min body.
    * ``mul``: linear in the operand alone (updates, indices ``B``).
    * ``replace``: no partials (which duplicate wins is order-dependent).
    * Any body: an operand dim an index selects one row of (an inserted
      window dim) splits with indices and updates ``B``: each device writes
      the updates that fall in its block (``sbpc.ops.indexed_blocks``).
    """
    g = _scatter_dims(op)
    operand, _, updates = op.operands
    window, scatter = _scatter_pairs(op)
    factors = [
        Factor((od, None, ud), (od,))
        for od, ud in window
        if updates.shape[ud] == operand.shape[od]
    ]
    to_upd = dict(scatter)
    batch = dict(
        zip(g["scatter_indices_batching_dims"], g["input_batching_dims"], strict=True)
    )
    factors += [Factor((od, i, to_upd[i]), (od,)) for i, od in batch.items()]
    factors += [
        Factor((od, None, None), (od,))
        for od in g["scatter_dims_to_operand_dims"]
        if od in g["inserted_window_dims"] and operand.shape[od] > 1
    ]
    sigs = factor_signatures(factors)
    n = _n(op)
    partial = scatter_partial_kind(op)
    if op.attr("kind") == "mul":
        sigs += linear_each(*n, (0,))
    if partial is None:
        return sigs
    unbatched = [(i, u) for i, u in scatter if i not in batch]
    holders = [Partial(partial)] + ([] if partial == "sum" else [B])
    for held in holders:
        sigs += factor_signatures(
            Factor((None, i, u), (None,), partial, held) for i, u in unbatched
        )
    if partial == "sum":
        return sigs + linear(*n, (0, 2))
    other: PartialKind = "min" if partial == "max" else "max"
    return (
        sigs
        + joint(*n, (0, 2), (partial,))
        + joint(*n, (0,), (partial, other))
        + joint(*n, (2,), (partial,))
    )


@BUILTINS.local("stablehlo.scatter")
def scatter_local(
    op: OpSpec, local: OpSpec, sig: Signature, hierarchy: Sequence[int], coord: Coord
) -> OpSpec:
    """The block offsets of split inserted window dims
    (``sbpc.ops.indexed_blocks``); the rest needs only the local types."""
    g = _scatter_dims(op)
    index_map = g["scatter_dims_to_operand_dims"]
    rows = [d for d in index_map if d in g["inserted_window_dims"]]
    return block_attrs(op, local, sig, hierarchy, coord, index_map, rows)


@BUILTINS.evaluator("stablehlo.scatter")
def _scatter(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    """StableHLO scatter as XLA runs it: an update window that does not fit
    in the operand at its start index is skipped whole; duplicates combine
    in row-major order of the updates."""
    x, indices, updates = xs
    kind = op.attr("kind")
    if kind not in _SCATTER_KINDS or kind not in scatter_kinds(op.operands[0].element):
        raise ValueError(f"stablehlo.scatter: cannot evaluate body kind {kind!r}")
    g = _scatter_dims(op)
    ivd = int(op.attr("index_vector_dim"))
    if ivd == indices.ndim:
        indices = indices[..., None]
    window, scatter = _scatter_pairs(op)
    shape = updates.shape
    pos = np.indices(shape) if shape else np.zeros((0,), int)
    at = {i: pos[u] for i, u in scatter}
    index: list[np.ndarray] = [np.zeros(shape, np.int64) for _ in range(x.ndim)]
    size = [1] * x.ndim
    for od, ud in window:
        size[od] = shape[ud]
        index[od] = index[od] + pos[ud]
        if size[od] > x.shape[od]:
            raise ValueError(
                f"stablehlo.scatter: update window dim {ud} ({size[od]}) is larger "
                f"than operand dim {od} ({x.shape[od]})"
            )
    valid = np.ones(shape, bool)
    for k, od in enumerate(g["scatter_dims_to_operand_dims"]):
        where = tuple(at[i] if i != ivd else k for i in range(indices.ndim))
        start = np.broadcast_to(indices[where].astype(np.int64), shape)
        start, fits = scatter_block_starts(op, k, start, size[od])
        valid &= fits & (start >= 0) & (start <= x.shape[od] - size[od])
        index[od] = index[od] + start
    for od, i in zip(
        g["input_batching_dims"], g["scatter_indices_batching_dims"], strict=True
    ):
        index[od] = index[od] + at[i]
    target = tuple(np.broadcast_to(i, shape)[valid] for i in index)
    values = updates[valid]
    out = x.copy()
    ufunc = _SCATTER_KINDS[kind]
    if ufunc is None:
        out[target] = values
    else:
        ufunc.at(out, target, values)
    return [out]
