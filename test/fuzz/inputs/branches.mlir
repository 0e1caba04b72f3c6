// test/fuzz/make_seeds.py: ``lax.cond`` on a reduction and a ``while_loop`` with a data bound.
module @jit_run attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}, %arg1: tensor<i32> {sdy.sharding = #sdy.sharding<@mesh, []>}) -> (tensor<8x8xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.compare GT, %0, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %2 = stablehlo.convert %1 : (tensor<i1>) -> tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %6 = stablehlo.negate %arg0 : tensor<8x8xf32>
      stablehlo.return %6 : tensor<8x8xf32>
    }, {
      %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %7 = stablehlo.multiply %arg0, %6 : tensor<8x8xf32>
      stablehlo.return %7 : tensor<8x8xf32>
    }) : (tensor<i32>) -> tensor<8x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5:4 = stablehlo.while(%iterArg = %arg1, %iterArg_2 = %3, %iterArg_3 = %c, %iterArg_4 = %4) : tensor<i32>, tensor<8x8xf32>, tensor<i32>, tensor<8x8xf32>
    cond {
      %6 = stablehlo.convert %iterArg_3 : tensor<i32>
      %7 = stablehlo.compare LT, %6, %iterArg, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %c_5 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.add %iterArg_3, %c_5 : tensor<i32>
      %7 = stablehlo.add %iterArg_4, %iterArg_2 : tensor<8x8xf32>
      stablehlo.return %iterArg, %iterArg_2, %6, %7 : tensor<i32>, tensor<8x8xf32>, tensor<i32>, tensor<8x8xf32>
    }
    return %5#3 : tensor<8x8xf32>
  }
}
