// test/fuzz/make_seeds.py: An RNN over time with ``lax.scan``, and a ``fori_loop`` after it.
module @jit_run attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<5x4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}]>}) -> (tensor<4x8xf32> {jax.result_info = "result[0]"}, tensor<4x8xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5x4x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2:5 = stablehlo.while(%iterArg = %arg1, %iterArg_3 = %arg0, %iterArg_4 = %c, %iterArg_5 = %0, %iterArg_6 = %1) : tensor<5x4x8xf32>, tensor<8x8xf32>, tensor<i32>, tensor<4x8xf32>, tensor<5x4x8xf32>
    cond {
      %c_7 = stablehlo.constant dense<5> : tensor<i32>
      %5 = stablehlo.compare LT, %iterArg_4, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %5 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_4) : (tensor<5x4x8xf32>, tensor<i32>) -> tensor<4x8xf32>
      %6:2 = func.call @closed_call(%iterArg_3, %iterArg_5, %5) : (tensor<8x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
      %7 = func.call @dynamic_update_index_in_dim(%iterArg_6, %6#1, %iterArg_4) : (tensor<5x4x8xf32>, tensor<4x8xf32>, tensor<i32>) -> tensor<5x4x8xf32>
      %c_7 = stablehlo.constant dense<1> : tensor<i32>
      %8 = stablehlo.add %iterArg_4, %c_7 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_3, %8, %6#0, %7 : tensor<5x4x8xf32>, tensor<8x8xf32>, tensor<i32>, tensor<4x8xf32>, tensor<5x4x8xf32>
    }
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %3:2 = stablehlo.while(%iterArg = %c_1, %iterArg_3 = %2#3) : tensor<i32>, tensor<4x8xf32>
    cond {
      %c_4 = stablehlo.constant dense<3> : tensor<i32>
      %5 = stablehlo.compare LT, %iterArg, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %5 = func.call @closed_call_0(%iterArg_3) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %c_4 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.add %iterArg, %c_4 : tensor<i32>
      stablehlo.return %6, %5 : tensor<i32>, tensor<4x8xf32>
    }
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%2#4 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<5x4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    return %3#1, %4 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<5x4x8xf32>, %arg1: tensor<i32>) -> tensor<4x8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 4, 8] : (tensor<5x4x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x8xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x4x8xf32>) -> tensor<4x8xf32>
    return %1 : tensor<4x8xf32>
  }
  func.func private @closed_call(%arg0: tensor<8x8xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %1 = stablehlo.add %0, %arg2 : tensor<4x8xf32>
    %2 = stablehlo.tanh %1 : tensor<4x8xf32>
    return %2, %2 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<5x4x8xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<i32>) -> tensor<5x4x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<4x8xf32>) -> tensor<1x4x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<5x4x8xf32>, tensor<1x4x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<5x4x8xf32>
    return %1 : tensor<5x4x8xf32>
  }
  func.func private @closed_call_0(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %3 = stablehlo.add %1, %2 : tensor<4x8xf32>
    return %3 : tensor<4x8xf32>
  }
}
