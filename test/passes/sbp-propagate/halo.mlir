// RUN: sbpc-opt %s --split-input-file -p 'sbp-propagate{improve=0}' | filecheck %s

// Overlapping windows split along rows with a halo exchange: a 3x3 'SAME'
// convolution and a 3x3 max pool keep their row-split input where it is.
// A halo wider than a piece (a dilated 3x3 kernel needs 2 rows; pieces of
// 8 rows on 8 devices hold 1) gets no such candidate: the rows are gathered.
// (Greedy's own choice, improve=0: the default improvement gathers x and
// splits the features instead, 16 us modeled against the halo's 22 us with
// a launch cost per ppermute.)

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  // CHECK-LABEL: func.func @rows
  func.func @rows(%x: tensor<2x16x16x4xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}, %w: tensor<3x3x4x8xf32>)
      -> (tensor<2x16x16x8xf32>, tensor<2x16x16x4xf32>) {
    // CHECK: stablehlo.convolution(%x, %w) {{.*}} sbp.sig = #sbp.sig<([S(1)], [B]) -> ([S(1)])>}
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x16x16x4xf32>, tensor<3x3x4x8xf32>) -> tensor<2x16x16x8xf32>
    %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
    // CHECK: "stablehlo.reduce_window"(%x, %init)
    // CHECK: }) {sbp.sig = #sbp.sig<([S(1)], [B]) -> ([S(1)])>}
    %1 = "stablehlo.reduce_window"(%x, %init) <{padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) : (tensor<2x16x16x4xf32>, tensor<f32>) -> tensor<2x16x16x4xf32>
    return %0, %1 : tensor<2x16x16x8xf32>, tensor<2x16x16x4xf32>
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3, 4, 5, 6, 7]>} {
  // CHECK-LABEL: func.func @too_wide
  func.func @too_wide(%x: tensor<2x8x16x4xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}, %w: tensor<3x3x4x8xf32>)
      -> tensor<2x8x16x8xf32> {
    // CHECK-NOT: sbp.sig = #sbp.sig<([S(1)], [B]) -> ([S(1)])>
    // CHECK: stablehlo.convolution
    // CHECK-NOT: sbp.sig = #sbp.sig<([S(1)], [B]) -> ([S(1)])>
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 2], [2, 2]], rhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x16x4xf32>, tensor<3x3x4x8xf32>) -> tensor<2x8x16x8xf32>
    return %0 : tensor<2x8x16x8xf32>
  }
}
