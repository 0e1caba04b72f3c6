module @jit_transformer_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x8x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xf32>, %arg3: tensor<32x32xf32>, %arg4: tensor<32x32xf32>, %arg5: tensor<32x32xf32>, %arg6: tensor<32x32xf32>, %arg7: tensor<32xf32>, %arg8: tensor<32xf32>, %arg9: tensor<32x64xf32>, %arg10: tensor<64xf32>, %arg11: tensor<64x32xf32>, %arg12: tensor<32xf32>) -> (tensor<2x8x32xf32> {jax.result_info = "result"}) {
    %0 = call @layer_norm(%arg0, %arg1, %arg2) : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
    %1 = call @causal_attention(%0, %arg3, %arg4, %arg5, %arg6) : (tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %2 = stablehlo.add %arg0, %1 : tensor<2x8x32xf32>
    %3 = call @layer_norm(%2, %arg7, %arg8) : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
    %4 = stablehlo.dot_general %3, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x64xf32>) -> tensor<2x8x64xf32>
    %5 = stablehlo.broadcast_in_dim %arg10, dims = [2] : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<2x8x64xf32>
    %7 = stablehlo.add %4, %6 : tensor<2x8x64xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<2x8x64xf32>
    %9 = stablehlo.multiply %8, %7 : tensor<2x8x64xf32>
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %11 = stablehlo.multiply %10, %9 : tensor<2x8x64xf32>
    %12 = stablehlo.add %7, %11 : tensor<2x8x64xf32>
    %cst_0 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<2x8x64xf32>
    %15 = stablehlo.tanh %14 : tensor<2x8x64xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %17 = stablehlo.add %16, %15 : tensor<2x8x64xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %19 = stablehlo.multiply %18, %17 : tensor<2x8x64xf32>
    %20 = stablehlo.multiply %7, %19 : tensor<2x8x64xf32>
    %21 = stablehlo.dot_general %20, %arg11, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x64xf32>, tensor<64x32xf32>) -> tensor<2x8x32xf32>
    %22 = stablehlo.add %2, %21 : tensor<2x8x32xf32>
    %23 = stablehlo.broadcast_in_dim %arg12, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %25 = stablehlo.add %22, %24 : tensor<2x8x32xf32>
    return %25 : tensor<2x8x32xf32>
  }
  func.func private @layer_norm(%arg0: tensor<2x8x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xf32>) -> tensor<2x8x32xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_0 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<2x8x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x8x32xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<2x8x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_2 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<2x8x1xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %12 = stablehlo.add %10, %11 : tensor<2x8x1xf32>
    %13 = stablehlo.rsqrt %12 : tensor<2x8x1xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %15 = stablehlo.multiply %5, %14 : tensor<2x8x32xf32>
    %16 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %18 = stablehlo.multiply %15, %17 : tensor<2x8x32xf32>
    %19 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %21 = stablehlo.add %18, %20 : tensor<2x8x32xf32>
    return %21 : tensor<2x8x32xf32>
  }
  func.func private @causal_attention(%arg0: tensor<2x8x32xf32>, %arg1: tensor<32x32xf32>, %arg2: tensor<32x32xf32>, %arg3: tensor<32x32xf32>, %arg4: tensor<32x32xf32>) -> tensor<2x8x32xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %2 = stablehlo.transpose %1, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %3 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %4 = stablehlo.reshape %3 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %5 = stablehlo.transpose %4, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %6 = stablehlo.dot_general %arg0, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %7 = stablehlo.reshape %6 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %8 = stablehlo.transpose %7, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %9 = stablehlo.dot_general %2, %5, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %cst = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %10 = stablehlo.sqrt %cst : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %12 = stablehlo.divide %9, %11 : tensor<2x4x8x8xf32>
    %13 = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %14 = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %15 = stablehlo.compare LE, %14, %13, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %cst_0 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %16 = call @_where(%15, %12, %cst_0) : (tensor<8x8xi1>, tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8x8xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %17 = stablehlo.reduce(%16 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x4x8xf32>
    %19 = stablehlo.maximum %18, %17 : tensor<2x4x8xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %22 = stablehlo.subtract %16, %21 : tensor<2x4x8x8xf32>
    %23 = stablehlo.exponential %22 : tensor<2x4x8x8xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.reduce(%23 init: %cst_3) applies stablehlo.add across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %27 = stablehlo.divide %23, %26 : tensor<2x4x8x8xf32>
    %28 = stablehlo.dot_general %27, %8, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %29 = stablehlo.transpose %28, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %30 = stablehlo.reshape %29 : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %31 = stablehlo.dot_general %30, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    return %31 : tensor<2x8x32xf32>
  }
  func.func private @_where(%arg0: tensor<8x8xi1>, %arg1: tensor<2x4x8x8xf32>, %arg2: tensor<f32>) -> tensor<2x4x8x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<2x4x8x8xi1>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %2 = stablehlo.select %0, %arg1, %1 : tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>
    return %2 : tensor<2x4x8x8xf32>
  }
}
