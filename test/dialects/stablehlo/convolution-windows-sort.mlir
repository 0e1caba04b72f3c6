// RUN: sbpc-opt %s --split-input-file | filecheck %s
// RUN: sbpc-opt %s --split-input-file | sbpc-opt --split-input-file | filecheck %s

// stablehlo.convolution, reduce_window, select_and_scatter and sort exactly as
// jax 0.10.2 prints them (lax.conv_general_dilated and its two gradients,
// flax max_pool and its gradient, jnp.cumsum, jnp.argsort); the generic form of
// convolution (get_asm(print_generic_op_form=True)) prints in the pretty form.

// CHECK-LABEL: func.func public @conv
func.func public @conv(%arg0: tensor<2x8x8x3xf32>, %arg1: tensor<3x3x3x4xf32>, %arg2: tensor<2x3x4x4xf32>) -> (tensor<2x8x8x4xf32>, tensor<3x3x3x4xf32>, tensor<2x3x7x4xf32>) {
  // CHECK-NEXT: %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x8x8x4xf32>
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x8x8x4xf32>
  // CHECK-NEXT: %1 = stablehlo.convolution(%arg0, %arg2) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [2, 1], pad = [[1, 0], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<2x8x8x3xf32>, tensor<2x3x4x4xf32>) -> tensor<3x3x3x4xf32>
  %1 = stablehlo.convolution(%arg0, %arg2) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [2, 1], pad = [[1, 0], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<2x8x8x3xf32>, tensor<2x3x4x4xf32>) -> tensor<3x3x3x4xf32>
  // CHECK-NEXT: %2 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 0], [0, 1]], lhs_dilate = [1, 2], rhs_dilate = [2, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x3x7x4xf32>
  %2 = "stablehlo.convolution"(%arg0, %arg1) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 2>, padding = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>], rhs_dilation = array<i64: 2, 1>, window_reversal = array<i1: false, true>, window_strides = array<i64: 2, 2>}> : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x3x7x4xf32>
  return %0, %1, %2 : tensor<2x8x8x4xf32>, tensor<3x3x3x4xf32>, tensor<2x3x7x4xf32>
}

// -----

// Depthwise (feature groups) and its weight gradient (batch groups); a 1-D
// convolution with only some window entries (StableHLO's defaults fill the rest).

// CHECK-LABEL: func.func public @groups
func.func public @groups(%arg0: tensor<2x8x8x6xf32>, %arg1: tensor<3x3x1x6xf32>, %arg2: tensor<2x3x16xf32>, %arg3: tensor<4x3x5xf32>) -> (tensor<2x8x8x6xf32>, tensor<3x3x1x6xf32>, tensor<2x4x12xf32>) {
  // CHECK-NEXT: feature_group_count = 6 : i64
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 6 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x6xf32>, tensor<3x3x1x6xf32>) -> tensor<2x8x8x6xf32>
  // CHECK-NEXT: stablehlo.convolution(%arg0, %0) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], {{.*}} {batch_group_count = 6 : i64, feature_group_count = 1 : i64
  %1 = stablehlo.convolution(%arg0, %0) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 6 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x6xf32>, tensor<2x8x8x6xf32>) -> tensor<3x3x1x6xf32>
  // CHECK-NEXT: %2 = stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x16xf32>, tensor<4x3x5xf32>) -> tensor<2x4x12xf32>
  %2 = stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x16xf32>, tensor<4x3x5xf32>) -> tensor<2x4x12xf32>
  return %0, %1, %2 : tensor<2x8x8x6xf32>, tensor<3x3x1x6xf32>, tensor<2x4x12xf32>
}

// -----

// CHECK-LABEL: func.func public @pool
func.func public @pool(%arg0: tensor<2x8x8x3xf32>, %arg1: tensor<4x8xf32>) -> (tensor<2x8x8x3xf32>, tensor<4x8xf32>, tensor<4x8xi32>) {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  // CHECK: %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
  // CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
  // CHECK-NEXT:   %{{.*}} = stablehlo.maximum %arg2, %arg3 : tensor<f32>
  // CHECK-NEXT:   stablehlo.return %{{.*}} : tensor<f32>
  // CHECK-NEXT: }) : (tensor<2x8x8x3xf32>, tensor<f32>) -> tensor<2x4x4x3xf32>
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
    %9 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
    stablehlo.return %9 : tensor<f32>
  }) : (tensor<2x8x8x3xf32>, tensor<f32>) -> tensor<2x4x4x3xf32>
  %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  // CHECK: "stablehlo.select_and_scatter"(%arg0, %0, %cst_1) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>):
  // CHECK-NEXT:   %{{.*}} = stablehlo.compare GE, %[[A]], %[[B]], FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
  // CHECK:      }, {
  // CHECK:        stablehlo.add
  // CHECK:      }) : (tensor<2x8x8x3xf32>, tensor<2x4x4x3xf32>, tensor<f32>) -> tensor<2x8x8x3xf32>
  %7 = "stablehlo.select_and_scatter"(%arg0, %0, %cst_3) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
    %9 = stablehlo.compare GE, %arg2, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %9 : tensor<i1>
  }, {
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
    %9 = stablehlo.add %arg2, %arg3 : tensor<f32>
    stablehlo.return %9 : tensor<f32>
  }) : (tensor<2x8x8x3xf32>, tensor<2x4x4x3xf32>, tensor<f32>) -> tensor<2x8x8x3xf32>
  %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  // CHECK: "stablehlo.reduce_window"(%arg1, %{{.*}}) <{base_dilations = array<i64: 1, 1>, padding = dense<{{\[\[}}0, 0], [7, 0]]> : tensor<2x2xi64>
  %1 = "stablehlo.reduce_window"(%arg1, %cst_0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [7, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 8>, window_strides = array<i64: 1, 1>}> ({
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
    %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %i = stablehlo.iota dim = 1 : tensor<4x8xi32>
  // CHECK: "stablehlo.sort"(%arg1, %{{.*}}) <{dimension = 1 : i64, is_stable = true}> ({
  // CHECK: stablehlo.compare LT, %{{.*}}, %{{.*}}, TOTALORDER
  // CHECK: }) : (tensor<4x8xf32>, tensor<4x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>)
  %s:2 = "stablehlo.sort"(%arg1, %i) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a1: tensor<f32>, %a2: tensor<f32>, %a3: tensor<i32>, %a4: tensor<i32>):
    %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %e1 = stablehlo.compare EQ, %a1, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %s1 = stablehlo.select %e1, %c, %a1 : tensor<i1>, tensor<f32>
    %n1 = stablehlo.compare NE, %a1, %a1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %k1 = stablehlo.select %n1, %nan, %s1 : tensor<i1>, tensor<f32>
    %e2 = stablehlo.compare EQ, %a2, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %s2 = stablehlo.select %e2, %c, %a2 : tensor<i1>, tensor<f32>
    %n2 = stablehlo.compare NE, %a2, %a2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %k2 = stablehlo.select %n2, %nan, %s2 : tensor<i1>, tensor<f32>
    %lt = stablehlo.compare LT, %k1, %k2, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<4x8xf32>, tensor<4x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>)
  return %7, %1, %s#1 : tensor<2x8x8x3xf32>, tensor<4x8xf32>, tensor<4x8xi32>
}
