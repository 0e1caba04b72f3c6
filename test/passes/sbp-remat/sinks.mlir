// sbp-remat's sinks: each recomputation barrier also carries the values
// computed since the barrier before it that nothing reads before it, and
// their readers read them from the barrier (XLA:GPU's scheduler otherwise
// runs them last, docs/passes.md).  The stack of stack.mlir, with the
// learning rate's broadcast moved into the forward: computed from
// constants alone, it is not carried (XLA makes it where it is read).
// RUN: sbpc-opt %s -p 'sbp-remat{layers=all}' | filecheck %s

// CHECK: %[[LOSS:[0-9]+]] = stablehlo.divide %{{.*}} : tensor<f32>
// CHECK-NEXT: %[[LR0:.*]] = stablehlo.constant dense<1.000000e-01>
// CHECK-NEXT: %[[LR:[0-9]+]] = stablehlo.broadcast_in_dim %[[LR0]]
// The first barrier: layer 1's inputs, the backward value before it, the loss.
// CHECK: %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[BLOSS:[0-9]+]] = stablehlo.optimization_barrier %{{[0-9]+}}, %arg2, %{{[0-9]+}}, %[[LOSS]] : tensor<16x4xf32>, tensor<4x8xf32>, tensor<16x4xf32>, tensor<f32>
// The second: layer 0's inputs, the backward value, layer 1's weight gradient.
// CHECK: = stablehlo.optimization_barrier %arg4, %arg0, %arg1, %{{[0-9]+}}, %{{[0-9]+}} : tensor<16x4xf32>, tensor<4x8xf32>, tensor<8x4xf32>, tensor<16x8xf32>, tensor<8x4xf32>
// CHECK-NOT: stablehlo.optimization_barrier
// CHECK: stablehlo.multiply %[[LR]],
// CHECK: func.return %[[BLOSS]],

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>, %arg2: tensor<4x8xf32>, %arg3: tensor<8x4xf32>, %arg4: tensor<16x4xf32>, %arg5: tensor<16x4xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<4x8xf32> {jax.result_info = "result[1][0][0]"}, tensor<8x4xf32> {jax.result_info = "result[1][0][1]"}, tensor<4x8xf32> {jax.result_info = "result[1][1][0]"}, tensor<8x4xf32> {jax.result_info = "result[1][1][1]"}) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x4xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
    %1 = stablehlo.tanh %0 : tensor<16x8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %3 = stablehlo.subtract %2, %1 : tensor<16x8xf32>
    %4 = stablehlo.dot_general %1, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
    %5 = stablehlo.add %arg4, %4 : tensor<16x4xf32>
    %6 = stablehlo.dot_general %5, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x4xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
    %7 = stablehlo.tanh %6 : tensor<16x8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %9 = stablehlo.subtract %8, %7 : tensor<16x8xf32>
    %10 = stablehlo.dot_general %7, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
    %11 = stablehlo.add %5, %10 : tensor<16x4xf32>
    %12 = stablehlo.subtract %11, %arg5 : tensor<16x4xf32>
    %13 = stablehlo.multiply %12, %12 : tensor<16x4xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %15 = stablehlo.multiply %14, %12 : tensor<16x4xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.reduce(%13 init: %cst_3) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x4xf32>, tensor<f32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %17 = stablehlo.divide %16, %cst_4 : tensor<f32>
    %cst_7 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_6 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %18 = stablehlo.divide %cst_5, %cst_6 : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %20 = stablehlo.multiply %19, %15 : tensor<16x4xf32>
    %21 = stablehlo.dot_general %20, %7, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x4xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    %22 = stablehlo.transpose %21, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %23 = stablehlo.dot_general %20, %arg3, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x4xf32>, tensor<8x4xf32>) -> tensor<16x8xf32>
    %24 = stablehlo.multiply %23, %9 : tensor<16x8xf32>
    %25 = stablehlo.multiply %24, %7 : tensor<16x8xf32>
    %26 = stablehlo.add %24, %25 : tensor<16x8xf32>
    %27 = stablehlo.dot_general %26, %5, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %28 = stablehlo.transpose %27, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
    %29 = stablehlo.dot_general %26, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<4x8xf32>) -> tensor<16x4xf32>
    %30 = stablehlo.add %20, %29 : tensor<16x4xf32>
    %31 = stablehlo.dot_general %30, %1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x4xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    %32 = stablehlo.transpose %31, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %33 = stablehlo.dot_general %30, %arg1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x4xf32>, tensor<8x4xf32>) -> tensor<16x8xf32>
    %34 = stablehlo.multiply %33, %3 : tensor<16x8xf32>
    %35 = stablehlo.multiply %34, %1 : tensor<16x8xf32>
    %36 = stablehlo.add %34, %35 : tensor<16x8xf32>
    %37 = stablehlo.dot_general %36, %arg4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %38 = stablehlo.transpose %37, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
    %40 = stablehlo.multiply %39, %38 : tensor<4x8xf32>
    %41 = stablehlo.subtract %arg0, %40 : tensor<4x8xf32>
    %cst_8 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %43 = stablehlo.multiply %42, %32 : tensor<8x4xf32>
    %44 = stablehlo.subtract %arg1, %43 : tensor<8x4xf32>
    %cst_9 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %46 = stablehlo.multiply %45, %28 : tensor<4x8xf32>
    %47 = stablehlo.subtract %arg2, %46 : tensor<4x8xf32>
    %cst_10 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %49 = stablehlo.multiply %48, %22 : tensor<8x4xf32>
    %50 = stablehlo.subtract %arg3, %49 : tensor<8x4xf32>
    func.return %17, %41, %44, %47, %50 : tensor<f32>, tensor<4x8xf32>, tensor<8x4xf32>, tensor<4x8xf32>, tensor<8x4xf32>
  }
}
