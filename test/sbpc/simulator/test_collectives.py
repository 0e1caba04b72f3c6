"""What each device computes in one step: checked against hand-made pieces."""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.boxing.planner import BoxingStep
from sbpc.simulator.collectives import (
    CollectiveError,
    apply_step,
    groups,
    identity,
    reduce,
)


def one_dim(kind, src, dst, reduce=None):
    return BoxingStep(kind, (0,), (src,), (dst,), (4,), reduce=reduce)


def pieces_1d(parts):
    return {(i,): np.asarray(p) for i, p in enumerate(parts)}


def test_groups_are_row_major_over_their_dims():
    assert groups((2, 3), (1,)) == [
        [(0, 0), (0, 1), (0, 2)],
        [(1, 0), (1, 1), (1, 2)],
    ]
    assert groups((2, 3), (0,)) == [
        [(0, 0), (1, 0)],
        [(0, 1), (1, 1)],
        [(0, 2), (1, 2)],
    ]
    assert groups((2, 2, 2), (0, 2)) == [
        [(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1)],
        [(0, 1, 0), (0, 1, 1), (1, 1, 0), (1, 1, 1)],
    ]


def test_all_gather():
    out = apply_step(pieces_1d([[0], [1], [2], [3]]), one_dim("all_gather", S(0), B))
    assert all(list(v) == [0, 1, 2, 3] for v in out.values())


def test_all_to_all():
    x = np.arange(16).reshape(4, 4)
    start = {(i,): x[i : i + 1] for i in range(4)}  # S(0): row i
    out = apply_step(start, one_dim("all_to_all", S(0), S(1)))
    for j in range(4):
        assert (out[(j,)] == x[:, j : j + 1]).all()  # S(1): column j


@pytest.mark.parametrize(("kind", "expected"), [("sum", 6), ("max", 3), ("min", 0)])
def test_all_reduce(kind, expected):
    out = apply_step(
        pieces_1d([[0], [1], [2], [3]]),
        one_dim("all_reduce", Partial(kind), B, kind),
    )
    assert all(list(v) == [expected] for v in out.values())


def test_reduce_scatter():
    parts = [np.arange(4) * (i + 1) for i in range(4)]  # sum: arange(4) * 10
    out = apply_step(pieces_1d(parts), one_dim("reduce_scatter", P, S(0), "sum"))
    assert [int(out[(i,)][0]) for i in range(4)] == [0, 10, 20, 30]


def test_local_slice():
    out = apply_step(pieces_1d([np.arange(4)] * 4), one_dim("local_slice", B, S(0)))
    assert [list(out[(i,)]) for i in range(4)] == [[0], [1], [2], [3]]


def test_local_to_partial_from_broadcast():
    start = pieces_1d([np.arange(2.0)] * 4)
    out = apply_step(start, one_dim("local_to_partial", B, P))
    assert list(out[(0,)]) == [0, 1] and all(not out[(i,)].any() for i in (1, 2, 3))
    kept = apply_step(start, one_dim("local_to_partial", B, Partial("max")))
    assert all(list(v) == [0, 1] for v in kept.values())


def test_local_to_partial_from_split_fills_with_the_identity():
    start = pieces_1d([[1.0], [2.0], [3.0], [4.0]])
    out = apply_step(start, one_dim("local_to_partial", S(0), Partial("max")))
    assert list(out[(2,)]) == [-np.inf, -np.inf, 3.0, -np.inf]
    out = apply_step(start, one_dim("local_to_partial", S(0), P))
    assert list(out[(1,)]) == [0, 2.0, 0, 0]


def test_identity_and_reduce_by_dtype():
    assert identity("max", np.int8) == -128 and identity("min", np.uint8) == 255
    assert identity("max", np.float32) == -np.inf and identity("sum", np.int32) == 0
    assert identity("min", np.bool_) and not identity("max", np.bool_)
    flags = [np.array([True, False]), np.array([True, True])]
    assert list(reduce(flags, "sum")) == [True, True]
    assert list(reduce(flags, "min")) == [True, False]
    assert reduce([np.array([1], np.int8)] * 2, "sum").dtype == np.int8


def test_transfer_moves_pieces_by_sources():
    src = Placement("cpu", (2,), (0, 1))
    dst = Placement("cpu", (2, 2), (2, 3, 4, 5))
    step = BoxingStep(
        "transfer",
        (0,),
        (B,),
        (B, B),
        (2,),
        src_placement=src,
        dst_placement=dst,
        sources=(0, 1, 0, 1),
    )
    out = apply_step({(0,): np.array([7]), (1,): np.array([7])}, step)
    assert sorted(out) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_bad_pieces_are_reported():
    with pytest.raises(CollectiveError, match="no piece for device"):
        apply_step(pieces_1d([[0], [1]]), one_dim("all_gather", S(0), B))
    with pytest.raises(CollectiveError, match="no axis 1"):
        apply_step(pieces_1d([[0, 1]] * 4), one_dim("local_slice", B, S(1)))


def test_uneven_slice_gives_balanced_pieces():
    """2 elements over 4 devices: pieces of 1, 1, 0, 0 (OneFlow's balanced split)."""
    out = apply_step(pieces_1d([[0, 1]] * 4), one_dim("local_slice", B, S(0)))
    assert [out[(c,)].tolist() for c in range(4)] == [[0], [1], [], []]
