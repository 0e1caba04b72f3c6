// test/fuzz/make_seeds.py: Dims no mesh axis divides (6, 10, 5, 7), free for sbpc to split.
module @jit_run attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<6x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<10x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg2: tensor<8x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<6xf32> {jax.result_info = "result[0]"}, tensor<8x7xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x10xf32>, tensor<10x5xf32>) -> tensor<6x5xf32>
    %1 = stablehlo.tanh %0 : tensor<6x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<6xf32>
    %3 = stablehlo.slice %arg1 [0:7, 0:5] : (tensor<10x5xf32>) -> tensor<7x5xf32>
    %4 = stablehlo.transpose %3, dims = [1, 0] : (tensor<7x5xf32>) -> tensor<5x7xf32>
    %5 = stablehlo.dot_general %arg2, %4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x5xf32>, tensor<5x7xf32>) -> tensor<8x7xf32>
    return %2, %5 : tensor<6xf32>, tensor<8x7xf32>
  }
}
