// test/fuzz/make_seeds.py: Reshape, transpose, concatenate, pad, slice, dynamic slice, broadcast.
module @jit_run attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<i32> {sdy.sharding = #sdy.sharding<@mesh, []>}) -> (tensor<4x8xf32> {jax.result_info = "result[0]"}, tensor<8x8xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %1 = stablehlo.concatenate %arg0, %0, dim = 0 : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
    %2 = stablehlo.reshape %1 : (tensor<16x8xf32>) -> tensor<4x4x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3 = call @_pad(%2, %c) : (tensor<4x4x8xf32>, tensor<i32>) -> tensor<4x6x8xf32>
    %4 = stablehlo.slice %3 [0:4, 1:5, 0:8] : (tensor<4x6x8xf32>) -> tensor<4x4x8xf32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_1 = stablehlo.constant dense<8> : tensor<i32>
    %6 = stablehlo.add %arg1, %c_1 : tensor<i32>
    %7 = stablehlo.select %5, %6, %arg1 : tensor<i1>, tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %8 = stablehlo.dynamic_slice %arg0, %7, %c_2, sizes = [4, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<4x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%4 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4x4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %10 = stablehlo.add %9, %8 : tensor<4x8xf32>
    %11 = stablehlo.slice %arg0 [0:8, 0:1] : (tensor<8x8xf32>) -> tensor<8x1xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x8xf32>
    return %10, %12 : tensor<4x8xf32>, tensor<8x8xf32>
  }
  func.func private @_pad(%arg0: tensor<4x4x8xf32>, %arg1: tensor<i32>) -> tensor<4x6x8xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [0, 1, 0], high = [0, 1, 0], interior = [0, 0, 0] : (tensor<4x4x8xf32>, tensor<f32>) -> tensor<4x6x8xf32>
    return %1 : tensor<4x6x8xf32>
  }
}
