// RUN: sbpc-opt %s --split-input-file -p 'sbp-propagate{improve=0}' --verify-diagnostics | filecheck %s

// The gradient of an embedding lookup (what jax.grad of w[t].sum() emits):
// zeros scattered-added at the token rows.  With the tokens and their
// gradients split along the batch, every device adds its share of the rows
// into its piece of the table: the table gradient comes out P(sum).  The
// replicated zeros become P(sum) locally (one copy kept), for free.  (Greedy
// as OneFlow derives, improve=0: the improvement may pick other zeros.)

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  // CHECK-LABEL: func.func @embedding_grad
  func.func @embedding_grad(%t: tensor<8x16x1xi32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                            %g: tensor<8x16x32xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>})
      -> (tensor<64x32xf32> {sbp.nd_sbp = #sbp.nd<[P(sum)]>}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    // greedy decides the zeros first, by local work alone: each device makes its rows
    // CHECK: stablehlo.broadcast_in_dim %cst, dims = [] {sbp.sig = #sbp.sig<([B]) -> ([S(0)])>}
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    // CHECK: "stablehlo.scatter"(%0, %t, %g) <{{.*}}}> ({
    // CHECK: }) {sbp.sig = #sbp.sig<([P(sum)], [S(0)], [S(0)]) -> ([P(sum)])>} : (tensor<64x32xf32>, tensor<8x16x1xi32>, tensor<8x16x32xf32>) -> tensor<64x32xf32>
    %1 = "stablehlo.scatter"(%0, %t, %g) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %9 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %9 : tensor<f32>
    }) : (tensor<64x32xf32>, tensor<8x16x1xi32>, tensor<8x16x32xf32>) -> tensor<64x32xf32>
    return %1 : tensor<64x32xf32>
  }
}

// -----

// Gradients split along the embedding dim: the table gradient is split the
// same way (each device scatters its columns), the tokens replicated.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  // CHECK-LABEL: func.func @embedding_dim
  func.func @embedding_dim(%w: tensor<64x32xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>},
                           %t: tensor<8x16x1xi32> {sbp.nd_sbp = #sbp.nd<[B]>},
                           %g: tensor<8x16x32xf32> {sbp.nd_sbp = #sbp.nd<[S(2)]>})
      -> (tensor<64x32xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) {
    // CHECK: }) {sbp.sig = #sbp.sig<([S(1)], [B], [S(2)]) -> ([S(1)])>}
    %1 = "stablehlo.scatter"(%w, %t, %g) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      stablehlo.return %arg2 : tensor<f32>
    }) : (tensor<64x32xf32>, tensor<8x16x1xi32>, tensor<8x16x32xf32>) -> tensor<64x32xf32>
    return %1 : tensor<64x32xf32>
  }
}

// -----

// take_along_axis's gradient splits along its batching dims.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  // CHECK-LABEL: func.func @batching
  func.func @batching(%x: tensor<8x16x64xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>},
                      %i: tensor<8x16x1x1xi32> {sbp.nd_sbp = #sbp.nd<[S(1)]>},
                      %u: tensor<8x16x1xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>})
      -> (tensor<8x16x64xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) {
    // CHECK: }) {sbp.sig = #sbp.sig<([S(1)], [S(1)], [S(1)]) -> ([S(1)])>}
    %1 = "stablehlo.scatter"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [2], input_batching_dims = [0, 1], scatter_indices_batching_dims = [0, 1], scatter_dims_to_operand_dims = [2], index_vector_dim = 3>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<8x16x64xf32>, tensor<8x16x1x1xi32>, tensor<8x16x1xf32>) -> tensor<8x16x64xf32>
    return %1 : tensor<8x16x64xf32>
  }
}

// -----

// A body that is neither one of the combines sbpc knows nor "return the
// update" is refused where the scatter is.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @subtract(%x: tensor<64xf32>, %i: tensor<8x1xi32>, %u: tensor<8xf32>) -> tensor<64xf32> {
    // expected-error @+1 {{unsupported scatter combiner on f32: the body must return the update or combine both arguments with one of add, mul, max, min}}
    %0 = "stablehlo.scatter"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %1 = stablehlo.subtract %a, %b : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<64xf32>, tensor<8x1xi32>, tensor<8xf32>) -> tensor<64xf32>
    return %0 : tensor<64xf32>
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @bitwise_or(%x: tensor<64xi32>, %i: tensor<8x1xi32>, %u: tensor<8xi32>) -> tensor<64xi32> {
    // expected-error @+1 {{unsupported scatter combiner on i32}}
    %0 = "stablehlo.scatter"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %1 = stablehlo.or %a, %b : tensor<i32>
      stablehlo.return %1 : tensor<i32>
    }) : (tensor<64xi32>, tensor<8x1xi32>, tensor<8xi32>) -> tensor<64xi32>
    return %0 : tensor<64xi32>
  }
}
