// RUN: sbpc-opt %s | filecheck %s
// RUN: sbpc-opt %s | sbpc-opt | filecheck %s

// stablehlo.scatter has only the generic form; it prints back exactly as
// jaxlib prints it.  The functions are what jax 0.10.2 emits for
// jax.grad(lambda w, t: w[t].sum()) (an embedding lookup), for the gradient
// of jnp.take_along_axis (batching dimensions), for x.at[i].set(u) (the body
// returns the update) and for x.at[i].max(u) on booleans.

// CHECK-LABEL: func.func public @embedding_grad
// CHECK:      %1 = "stablehlo.scatter"(%0, %t, %g) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false}> ({
// CHECK-NEXT: ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
// CHECK-NEXT:   %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
// CHECK-NEXT:   stablehlo.return %2 : tensor<f32>
// CHECK-NEXT: }) : (tensor<64x32xf32>, tensor<8x16x1xi32>, tensor<8x16x32xf32>) -> tensor<64x32xf32>
func.func public @embedding_grad(%t: tensor<8x16x1xi32>, %g: tensor<8x16x32xf32>) -> tensor<64x32xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
  %1 = "stablehlo.scatter"(%0, %t, %g) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false}> ({
  ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
    %9 = stablehlo.add %arg1, %arg2 : tensor<f32>
    stablehlo.return %9 : tensor<f32>
  }) : (tensor<64x32xf32>, tensor<8x16x1xi32>, tensor<8x16x32xf32>) -> tensor<64x32xf32>
  return %1 : tensor<64x32xf32>
}

// CHECK-LABEL: func.func private @take_along_axis_0
// CHECK:      %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [2], input_batching_dims = [0, 1], scatter_indices_batching_dims = [0, 1], scatter_dims_to_operand_dims = [2], index_vector_dim = 3>, unique_indices = false}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT:   %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
// CHECK-NEXT:   stablehlo.return %2 : tensor<f32>
// CHECK-NEXT: }) : (tensor<8x16x64xf32>, tensor<8x16x1x1xi32>, tensor<8x16x1xf32>) -> tensor<8x16x64xf32>
func.func private @take_along_axis_0(%arg0: tensor<8x16x1x1xi32>, %arg1: tensor<8x16x1xf32>) -> tensor<8x16x64xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16x64xf32>
  %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [2], input_batching_dims = [0, 1], scatter_indices_batching_dims = [0, 1], scatter_dims_to_operand_dims = [2], index_vector_dim = 3>, unique_indices = false}> ({
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
    %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }) : (tensor<8x16x64xf32>, tensor<8x16x1x1xi32>, tensor<8x16x1xf32>) -> tensor<8x16x64xf32>
  return %1 : tensor<8x16x64xf32>
}

// CHECK-LABEL: func.func public @set
// CHECK:      %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
// CHECK-NEXT: ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
// CHECK-NEXT:   stablehlo.return %arg4 : tensor<i32>
// CHECK-NEXT: }) : (tensor<10xi32>, tensor<4x1xi32>, tensor<4xi32>) -> tensor<10xi32>
func.func public @set(%arg0: tensor<10xi32>, %arg1: tensor<4x1xi32>, %arg2: tensor<4xi32>) -> tensor<10xi32> {
  %6 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
  ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
    stablehlo.return %arg4 : tensor<i32>
  }) : (tensor<10xi32>, tensor<4x1xi32>, tensor<4xi32>) -> tensor<10xi32>
  return %6 : tensor<10xi32>
}

// CHECK-LABEL: func.func public @bool_max
// CHECK:      %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
// CHECK-NEXT: ^bb0(%arg3: tensor<i1>, %arg4: tensor<i1>):
// CHECK-NEXT:   %1 = stablehlo.maximum %arg3, %arg4 : tensor<i1>
// CHECK-NEXT:   stablehlo.return %1 : tensor<i1>
// CHECK-NEXT: }) : (tensor<10xi1>, tensor<4x1xi32>, tensor<4xi1>) -> tensor<10xi1>
func.func public @bool_max(%arg0: tensor<10xi1>, %arg1: tensor<4x1xi32>, %arg2: tensor<4xi1>) -> tensor<10xi1> {
  %6 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%arg3: tensor<i1>, %arg4: tensor<i1>):
    %7 = stablehlo.maximum %arg3, %arg4 : tensor<i1>
    stablehlo.return %7 : tensor<i1>
  }) : (tensor<10xi1>, tensor<4x1xi32>, tensor<4xi1>) -> tensor<10xi1>
  return %6 : tensor<10xi1>
}
