"""Elementwise ops: the Elementwise trait and verifiers."""

from __future__ import annotations

from sbpc.dialects import stablehlo as shlo


def test_elementwise_trait():
    assert shlo.AddOp.has_trait(shlo.Elementwise)
    assert shlo.TanhOp.has_trait(shlo.Elementwise)
    assert shlo.SelectOp.has_trait(shlo.Elementwise)
    assert shlo.CompareOp.has_trait(shlo.Elementwise)
    assert not shlo.DotGeneralOp.has_trait(shlo.Elementwise)
    assert not shlo.BroadcastInDimOp.has_trait(shlo.Elementwise)


INVALID = [
    (
        "%0 = stablehlo.add %a, %b : (tensor<8x16xf32>, tensor<16x8xf32>) "
        "-> tensor<8x16xf32>",
        "stablehlo.add: rhs and result shapes differ",
    ),
    (
        "%0 = stablehlo.compare GT, %a, %a : "
        "(tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>",
        "stablehlo.compare: result must be a tensor of i1",
    ),
    (
        "%0 = stablehlo.select %s, %a, %b : "
        "(tensor<f32>, tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>",
        "stablehlo.select: predicate must be a tensor of i1",
    ),
]


def test_verifier(expect_verify_error, invalid_op):
    """Each ``INVALID`` op (see conftest) fails to verify with its message."""
    expect_verify_error(*invalid_op)
