module @jit_mlp attributes {sbp.placement = #sbp.placement<cpu, [[0, 1, 2, 3], [4, 5, 6, 7]]>, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x32xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}, %arg1: tensor<32x64xf32> {sbp.nd_sbp = #sbp.nd<[B, S(1)]>}, %arg2: tensor<64xf32>, %arg3: tensor<64x64xf32>, %arg4: tensor<64xf32>, %arg5: tensor<64x16xf32>, %arg6: tensor<16xf32>) -> (tensor<16x16xf32> {jax.result_info = "result"}) {
    %0 = call @dense(%arg0, %arg1, %arg2) : (tensor<16x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
    %1 = call @gelu(%0) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %2 = call @dense_0(%1, %arg3, %arg4) : (tensor<16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
    %3 = call @gelu(%2) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %4 = call @dense_1(%3, %arg5, %arg6) : (tensor<16x64xf32>, tensor<64x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
    return %4 : tensor<16x16xf32>
  }
  func.func private @dense(%arg0: tensor<16x32xf32>, %arg1: tensor<32x64xf32>, %arg2: tensor<64xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %3 = stablehlo.add %0, %2 : tensor<16x64xf32>
    return %3 : tensor<16x64xf32>
  }
  func.func private @gelu(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<16x64xf32>
    %1 = stablehlo.multiply %0, %arg0 : tensor<16x64xf32>
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %3 = stablehlo.multiply %2, %1 : tensor<16x64xf32>
    %4 = stablehlo.add %arg0, %3 : tensor<16x64xf32>
    %cst_0 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %6 = stablehlo.multiply %5, %4 : tensor<16x64xf32>
    %7 = stablehlo.tanh %6 : tensor<16x64xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %9 = stablehlo.add %8, %7 : tensor<16x64xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %11 = stablehlo.multiply %10, %9 : tensor<16x64xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<16x64xf32>
    return %12 : tensor<16x64xf32>
  }
  func.func private @dense_0(%arg0: tensor<16x64xf32>, %arg1: tensor<64x64xf32>, %arg2: tensor<64xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %3 = stablehlo.add %0, %2 : tensor<16x64xf32>
    return %3 : tensor<16x64xf32>
  }
  func.func private @dense_1(%arg0: tensor<16x64xf32>, %arg1: tensor<64x16xf32>, %arg2: tensor<16xf32>) -> tensor<16x16xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<16x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<16x16xf32>
    return %3 : tensor<16x16xf32>
  }
}
