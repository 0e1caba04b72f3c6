"""Factor and partial-pattern derivation of 1-D signatures."""

from __future__ import annotations

from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.ops.derive import (
    PARTIAL_SUM,
    Factor,
    all_broadcast,
    data_movement,
    dedupe,
    elementwise_factors,
    factor_signatures,
    joint,
    linear,
    linear_each,
    monotone,
    sig1d,
)


def test_matmul_factors_give_oneflows_split_signatures() -> None:
    m, n = Factor((0, None), (0,)), Factor((None, 1), (1,))
    k = Factor((1, 0), (None,), "sum")
    assert factor_signatures([m, n, k]) == [
        sig1d([S(0), B], [S(0)]),
        sig1d([B, S(1)], [S(1)]),
        sig1d([S(1), S(0)], [P]),
    ]


def test_reduction_factor_with_accumulator() -> None:
    # sum over dim 1 with an init value: the init must be P(sum) too.
    k = Factor((1, None), (None,), "sum", absent=PARTIAL_SUM)
    assert factor_signatures([k]) == [sig1d([S(1), P], [P])]


def test_elementwise_factors_skip_scalars() -> None:
    factors = elementwise_factors([0, 2, 2], [2])
    assert factor_signatures(factors) == [
        sig1d([B, S(0), S(0)], [S(0)]),
        sig1d([B, S(1), S(1)], [S(1)]),
    ]


def test_partial_patterns() -> None:
    assert linear(2, 1, (0, 1)) == [sig1d([P, P], [P])]
    assert linear_each(2, 1, (0, 1)) == [sig1d([P, B], [P]), sig1d([B, P], [P])]
    mx, mn = Partial("max"), Partial("min")
    assert monotone(2, 1, {0: 1, 1: -1}) == [
        sig1d([mx, B], [mx]),
        sig1d([mn, B], [mn]),
        sig1d([B, mx], [mn]),
        sig1d([B, mn], [mx]),
    ]
    assert joint(2, 1, (0, 1), ("max",)) == [sig1d([mx, mx], [mx])]
    assert len(data_movement(1, 1, (0,))) == 3


def test_dedupe_and_all_broadcast() -> None:
    s = sig1d([B], [B])
    assert dedupe([s, sig1d([P], [P]), s]) == [s, sig1d([P], [P])]
    assert all_broadcast(2, 1, ndim=2) == all_broadcast(2, 1, 2)
    assert all_broadcast(2, 1, 2).inputs == ((B, B), (B, B))
