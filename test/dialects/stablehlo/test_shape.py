"""Data-movement ops: accessors and verifiers."""

from __future__ import annotations


def test_shape_op_accessors(parse):
    module = parse(
        "func.func @f(%x: tensor<8x16xf32>, %s: tensor<f32>, %i: tensor<i32>) {\n"
        "  %0 = stablehlo.broadcast_in_dim %x, dims = [0, 2] : "
        "(tensor<8x16xf32>) -> tensor<8x4x16xf32>\n"
        "  %1 = stablehlo.transpose %x, dims = [1, 0] : "
        "(tensor<8x16xf32>) -> tensor<16x8xf32>\n"
        "  %2 = stablehlo.slice %x [1:3, 0:16:2] : (tensor<8x16xf32>) -> tensor<2x8xf32>\n"
        "  %3 = stablehlo.concatenate %x, %x, dim = 1 : "
        "(tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x32xf32>\n"
        "  %4 = stablehlo.pad %x, %s, low = [1, 0], high = [2, 3], interior = [0, 1] : "
        "(tensor<8x16xf32>, tensor<f32>) -> tensor<11x34xf32>\n"
        "  %5 = stablehlo.dynamic_slice %x, %i, %i, sizes = [2, 4] : "
        "(tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>\n"
        "  %6 = stablehlo.iota dim = 1 : tensor<8x16xi32>\n"
        "  %7 = stablehlo.reverse %x, dims = [0, 1] : tensor<8x16xf32>\n"
        "  %8 = stablehlo.compare LT, %x, %x, FLOAT : "
        "(tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>\n"
        "  %9 = stablehlo.compare EQ, %x, %x : "
        "(tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>\n"
        "  return\n}"
    )
    ops = [op for op in module.walk() if op.name.startswith("stablehlo.")]
    bcast, transpose, slice_, concat, pad, dslice, iota, reverse, lt, eq = ops
    assert bcast.broadcast_dimensions == (0, 2)
    assert transpose.permutation == (1, 0)
    assert (slice_.start_indices, slice_.limit_indices, slice_.strides) == (
        (1, 0),
        (3, 16),
        (1, 2),
    )
    assert concat.dimension == 1 and len(concat.inputs) == 2
    assert pad.edge_padding_low == (1, 0)
    assert pad.edge_padding_high == (2, 3)
    assert pad.interior_padding == (0, 1)
    assert dslice.slice_sizes == (2, 4) and len(dslice.start_indices) == 2
    assert iota.iota_dimension == 1
    assert reverse.dimensions == (0, 1)
    assert (lt.comparison_direction, lt.compare_type) == ("LT", "FLOAT")
    assert (eq.comparison_direction, eq.compare_type) == ("EQ", None)


INVALID = [
    (
        "%0 = stablehlo.broadcast_in_dim %a, dims = [1, 0] : "
        "(tensor<8x16xf32>) -> tensor<8x16xf32>",
        "stablehlo.broadcast_in_dim: operand dimension 0 of size 8 cannot be "
        "broadcast to result dimension 1 of size 16",
    ),
    (
        "%0 = stablehlo.reshape %a : (tensor<8x16xf32>) -> tensor<8x8xf32>",
        "stablehlo.reshape: element counts differ",
    ),
    (
        "%0 = stablehlo.transpose %a, dims = [0, 0] : "
        "(tensor<8x16xf32>) -> tensor<8x8xf32>",
        r"stablehlo.transpose: \[0, 0\] is not a permutation",
    ),
    (
        "%0 = stablehlo.concatenate %a, %b, dim = 0 : "
        "(tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<24x16xf32>",
        "stablehlo.concatenate: input 1 has size 8 in dimension 1, expected 16",
    ),
    (
        "%0 = stablehlo.slice %a [0:9, 0:16] : (tensor<8x16xf32>) -> tensor<9x16xf32>",
        "stablehlo.slice: range 0:9 of dimension 0 is out of bounds for size 8",
    ),
]


def test_verifier(expect_verify_error, invalid_op):
    """Each ``INVALID`` op (see conftest) fails to verify with its message."""
    expect_verify_error(*invalid_op)
