// test/fuzz/make_seeds.py: A two-layer MLP's SGD step: batch on x, the hidden layer on y.
module @jit_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}]>}, %arg1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}, %arg2: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}, %arg3: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg4: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<16xf32> {jax.result_info = "result[1]['b1']"}, tensor<8x16xf32> {jax.result_info = "result[1]['w1']"}, tensor<16x4xf32> {jax.result_info = "result[1]['w2']"}) {
    %0 = stablehlo.dot_general %arg3, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<8x16xf32>
    %4 = call @relu(%3) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %6 = stablehlo.compare GT, %3, %5, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %7 = stablehlo.dot_general %4, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %8 = stablehlo.subtract %7, %arg4 : tensor<8x4xf32>
    %9 = stablehlo.multiply %8, %8 : tensor<8x4xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %11 = stablehlo.multiply %10, %8 : tensor<8x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %13 = stablehlo.divide %12, %cst_2 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_4 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %14 = stablehlo.divide %cst_3, %cst_4 : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %16 = stablehlo.multiply %15, %11 : tensor<8x4xf32>
    %17 = stablehlo.dot_general %16, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %18 = stablehlo.transpose %17, dims = [1, 0] : (tensor<4x16xf32>) -> tensor<16x4xf32>
    %19 = stablehlo.dot_general %16, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<16x4xf32>) -> tensor<8x16xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %21 = stablehlo.select %6, %19, %20 : tensor<8x16xi1>, tensor<8x16xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.reduce(%21 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<16xf32>
    %23 = stablehlo.reshape %22 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.reduce(%23 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %25 = stablehlo.dot_general %21, %arg3, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
    %26 = stablehlo.transpose %25, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %cst_8 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %28 = stablehlo.multiply %27, %24 : tensor<16xf32>
    %29 = stablehlo.subtract %arg0, %28 : tensor<16xf32>
    %cst_9 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %31 = stablehlo.multiply %30, %26 : tensor<8x16xf32>
    %32 = stablehlo.subtract %arg1, %31 : tensor<8x16xf32>
    %cst_10 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %34 = stablehlo.multiply %33, %18 : tensor<16x4xf32>
    %35 = stablehlo.subtract %arg2, %34 : tensor<16x4xf32>
    return %13, %29, %32, %35 : tensor<f32>, tensor<16xf32>, tensor<8x16xf32>, tensor<16x4xf32>
  }
  func.func private @relu(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8x16xf32>
    return %1 : tensor<8x16xf32>
  }
}
