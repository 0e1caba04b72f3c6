// RUN: sbpc-opt %s --split-input-file -p sbp-propagate | filecheck %s

// Convolution rules from its loops: a batch-split input keeps the batch split
// (kernel B); output channels split with the kernel; input channels split in
// both give partial sums; a depthwise convolution splits channels with its
// groups; a patch embedding (stride = window) splits its rows without a halo.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  // CHECK-LABEL: func.func @conv
  func.func @conv(%x: tensor<8x8x8x4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}, %w: tensor<3x3x4x8xf32>,
                  %x2: tensor<8x8x8x4xf32>, %w2: tensor<3x3x4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(3)]>},
                  %x3: tensor<8x8x8x4xf32> {sbp.nd_sbp = #sbp.nd<[S(3)]>}, %w3: tensor<3x3x4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(2)]>})
      -> (tensor<8x8x8x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}, tensor<8x8x8x8xf32> {sbp.nd_sbp = #sbp.nd<[S(3)]>}, tensor<8x8x8x8xf32> {sbp.nd_sbp = #sbp.nd<[P(sum)]>}) {
    // CHECK: stablehlo.convolution(%x, %w) {{.*}} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], sbp.sig = #sbp.sig<([S(0)], [B]) -> ([S(0)])>}
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x8x8x4xf32>, tensor<3x3x4x8xf32>) -> tensor<8x8x8x8xf32>
    // CHECK: stablehlo.convolution(%x2, %w2) {{.*}} sbp.sig = #sbp.sig<([B], [S(3)]) -> ([S(3)])>}
    %1 = stablehlo.convolution(%x2, %w2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<8x8x8x4xf32>, tensor<3x3x4x8xf32>) -> tensor<8x8x8x8xf32>
    // CHECK: stablehlo.convolution(%x3, %w3) {{.*}} sbp.sig = #sbp.sig<([S(3)], [S(2)]) -> ([P(sum)])>}
    %2 = stablehlo.convolution(%x3, %w3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<8x8x8x4xf32>, tensor<3x3x4x8xf32>) -> tensor<8x8x8x8xf32>
    return %0, %1, %2 : tensor<8x8x8x8xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8x8xf32>
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  // CHECK-LABEL: func.func @depthwise_and_patches
  func.func @depthwise_and_patches(%x: tensor<8x8x8x8xf32> {sbp.nd_sbp = #sbp.nd<[S(3)]>}, %w: tensor<3x3x1x8xf32> {sbp.nd_sbp = #sbp.nd<[S(3)]>},
                                   %p: tensor<8x8x8x8xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}, %k: tensor<2x2x8x16xf32>)
      -> (tensor<8x8x8x8xf32> {sbp.nd_sbp = #sbp.nd<[S(3)]>}, tensor<8x4x4x16xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) {
    // CHECK: stablehlo.convolution(%x, %w) {{.*}} feature_group_count = 8 : i64, sbp.sig = #sbp.sig<([S(3)], [S(3)]) -> ([S(3)])>}
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 8 : i64} : (tensor<8x8x8x8xf32>, tensor<3x3x1x8xf32>) -> tensor<8x8x8x8xf32>
    // CHECK: stablehlo.convolution(%p, %k) {{.*}} sbp.sig = #sbp.sig<([S(1)], [B]) -> ([S(1)])>}
    %1 = stablehlo.convolution(%p, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<8x8x8x8xf32>, tensor<2x2x8x16xf32>) -> tensor<8x4x4x16xf32>
    return %0, %1 : tensor<8x8x8x8xf32>, tensor<8x4x4x16xf32>
  }
}

// -----

// Windows and sorts split along the dimensions no window or sort crosses.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  // CHECK-LABEL: func.func @windows_and_sort
  func.func @windows_and_sort(%x: tensor<8x8x8x4xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}, %v: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>})
      -> (tensor<8x4x4x4xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}, tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}, tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    // CHECK: "stablehlo.reduce_window"(%x, %cst)
    // CHECK: sbp.sig = #sbp.sig<([S(1)], [B]) -> ([S(1)])>
    %0 = "stablehlo.reduce_window"(%x, %cst) <{window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) : (tensor<8x8x8x4xf32>, tensor<f32>) -> tensor<8x4x4x4xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    // CHECK: "stablehlo.reduce_window"(%v, %zero)
    // CHECK: sbp.sig = #sbp.sig<([S(0)], [{{.*}}]) -> ([S(0)])>
    %1 = "stablehlo.reduce_window"(%v, %zero) <{padding = dense<[[0, 0], [15, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 16>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
    // CHECK: "stablehlo.sort"(%v)
    // CHECK: sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>
    %2 = "stablehlo.sort"(%v) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %lt = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %0, %1, %2 : tensor<8x4x4x4xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  }
}
