// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p sbp-propagate

// A user signature that needs a halo sbpc cannot exchange is refused at the
// op, saying why: a dilated 3x3 kernel reads 2 rows beyond a piece of 1 row.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3, 4, 5, 6, 7]>} {
  func.func @too_wide(%x: tensor<2x8x16x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<2x8x16x8xf32> {
    // expected-error @+1 {{sbp.sig ([S(1)], [B]) -> ([S(1)]) needs a halo exchange sbpc cannot do: halo of dim 1 wider than a piece of 1 rows}}
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 2], [2, 2]], rhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, sbp.sig = #sbp.sig<([S(1)], [B]) -> ([S(1)])>} : (tensor<2x8x16x4xf32>, tensor<3x3x4x8xf32>) -> tensor<2x8x16x8xf32>
    return %0 : tensor<2x8x16x8xf32>
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cpu, [[0, 1], [2, 3]]>} {
  func.func @two_axes(%x: tensor<2x16x16x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<2x16x16x8xf32> {
    // expected-error @+1 {{sbp.sig ([S(1), S(1)], [B, B]) -> ([S(1), S(1)]) needs a halo exchange sbpc cannot do: halo of dim 1 split by 2 mesh dims}}
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, sbp.sig = #sbp.sig<([S(1), S(1)], [B, B]) -> ([S(1), S(1)])>} : (tensor<2x16x16x4xf32>, tensor<3x3x4x8xf32>) -> tensor<2x16x16x8xf32>
    return %0 : tensor<2x16x16x8xf32>
  }
}
