// RUN: sbpc-opt %s --verify-diagnostics --split-input-file

// Convolution, window and sort errors are located diagnostics at the op.

func.func @conv_shape(%x: tensor<2x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<2x8x8x4xf32> {
  // expected-error @+1 {{stablehlo.convolution: result shape [2, 8, 8, 4] should be [2, 6, 6, 4]}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x8x8x4xf32>
  return %0 : tensor<2x8x8x4xf32>
}

// -----

func.func @conv_groups(%x: tensor<2x8x8x6xf32>, %w: tensor<3x3x2x6xf32>) -> tensor<2x8x8x6xf32> {
  // expected-error @+1 {{stablehlo.convolution: input features (6) must be feature_group_count (6) x kernel input features (2)}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 6 : i64} : (tensor<2x8x8x6xf32>, tensor<3x3x2x6xf32>) -> tensor<2x8x8x6xf32>
  return %0 : tensor<2x8x8x6xf32>
}

// -----

func.func @conv_dims(%x: tensor<2x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<2x6x6x4xf32> {
  // expected-error @+1 {{missing 'f' dimension}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, 2]x[0, 1, i, o]->[b, 0, 1, f] {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x6x6x4xf32>
  return %0 : tensor<2x6x6x4xf32>
}

// -----

func.func @window_shape(%x: tensor<4x8xf32>, %c: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{stablehlo.reduce_window: result 0 has shape [4, 8], expected [4, 4]}}
  %0 = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @sort_dim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{stablehlo.sort: dimension 2 is out of range for rank 2}}
  %0 = "stablehlo.sort"(%x) <{dimension = 2 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @sort_returns_nothing(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{stablehlo.sort: comparator must return one tensor<i1>, returns nothing}}
  %0 = "stablehlo.sort"(%x) <{dimension = 1 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return
  }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @sort_returns_a_float(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{stablehlo.sort: comparator must return one tensor<i1>, returns tensor<f32>}}
  %0 = "stablehlo.sort"(%x) <{dimension = 1 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @top_k(%x: tensor<4x8xf32>) -> tensor<4x9xf32> {
  // expected-error @+1 {{chlo.top_k: k = 9 is out of range for a last dimension of 8}}
  %v, %i = chlo.top_k(%x, k = 9) : tensor<4x8xf32> -> (tensor<4x9xf32>, tensor<4x9xi32>)
  return %v : tensor<4x9xf32>
}

// -----

func.func @top_k_values(%x: tensor<4x8xf32>) -> tensor<4x3xf16> {
  // expected-error @+1 {{chlo.top_k: values and operand element types differ: tensor<4x3xf16> vs tensor<4x8xf32>}}
  %v, %i = chlo.top_k(%x, k = 3) : tensor<4x8xf32> -> (tensor<4x3xf16>, tensor<4x3xi32>)
  return %v : tensor<4x3xf16>
}
