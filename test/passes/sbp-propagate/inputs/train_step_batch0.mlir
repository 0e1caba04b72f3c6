// A two-layer MLP's Adam step (sizes 8, 16, 4) from jax.jit with NamedShardings
// on a 2x4 mesh, its batch 0: the Shardy-annotated module of issue 36, row E
// (test/fuzz/make_seeds.py makes its kind).
module @jit_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg2: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg3: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg4: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg5: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg6: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg7: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg8: tensor<i32> {sdy.sharding = #sdy.sharding<@mesh, []>}, %arg9: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg10: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg11: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg12: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg13: tensor<0x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg14: tensor<0xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<16xf32> {jax.result_info = "result[1][0]['b']"}, tensor<8x16xf32> {jax.result_info = "result[1][0]['w']"}, tensor<4xf32> {jax.result_info = "result[1][1]['b']"}, tensor<16x4xf32> {jax.result_info = "result[1][1]['w']"}, tensor<16xf32> {jax.result_info = "result[2]['m'][0]['b']"}, tensor<8x16xf32> {jax.result_info = "result[2]['m'][0]['w']"}, tensor<4xf32> {jax.result_info = "result[2]['m'][1]['b']"}, tensor<16x4xf32> {jax.result_info = "result[2]['m'][1]['w']"}, tensor<i32> {jax.result_info = "result[2]['step']"}, tensor<16xf32> {jax.result_info = "result[2]['v'][0]['b']"}, tensor<8x16xf32> {jax.result_info = "result[2]['v'][0]['w']"}, tensor<4xf32> {jax.result_info = "result[2]['v'][1]['b']"}, tensor<16x4xf32> {jax.result_info = "result[2]['v'][1]['w']"}) {
    %0 = stablehlo.dot_general %arg13, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<0x8xf32>, tensor<8x16xf32>) -> tensor<0x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<0x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<0x16xf32>
    %4 = call @relu(%3) : (tensor<0x16xf32>) -> tensor<0x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<0x16xf32>
    %6 = stablehlo.compare GT, %3, %5, FLOAT : (tensor<0x16xf32>, tensor<0x16xf32>) -> tensor<0x16xi1>
    %7 = stablehlo.dot_general %4, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<0x16xf32>, tensor<16x4xf32>) -> tensor<0x4xf32>
    %8 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<0x4xf32>
    %10 = stablehlo.add %7, %9 : tensor<0x4xf32>
    %11:3 = call @log_softmax(%10) : (tensor<0x4xf32>) -> (tensor<0x4xf32>, tensor<0x4xf32>, tensor<0x1xf32>)
    %12 = call @_one_hot(%arg14) : (tensor<0xi32>) -> tensor<0x4xf32>
    %13 = stablehlo.multiply %12, %11#0 : tensor<0x4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.reduce(%13 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<0x4xf32>, tensor<f32>) -> tensor<0xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.reduce(%14 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<0xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.divide %15, %cst_2 : tensor<f32>
    %17 = stablehlo.negate %16 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %18 = stablehlo.negate %cst_3 : tensor<f32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.divide %18, %cst_4 : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<f32>) -> tensor<0xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<0xf32>) -> tensor<0x4xf32>
    %22 = stablehlo.multiply %12, %21 : tensor<0x4xf32>
    %23 = call @log_softmax_0(%11#1, %11#2, %22) : (tensor<0x4xf32>, tensor<0x1xf32>, tensor<0x4xf32>) -> tensor<0x4xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.reduce(%23 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<0x4xf32>, tensor<f32>) -> tensor<4xf32>
    %25 = stablehlo.reshape %24 : (tensor<4xf32>) -> tensor<1x4xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %26 = stablehlo.reduce(%25 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %27 = stablehlo.dot_general %23, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<0x4xf32>, tensor<0x16xf32>) -> tensor<4x16xf32>
    %28 = stablehlo.transpose %27, dims = [1, 0] : (tensor<4x16xf32>) -> tensor<16x4xf32>
    %29 = stablehlo.dot_general %23, %arg3, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<0x4xf32>, tensor<16x4xf32>) -> tensor<0x16xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<0x16xf32>
    %31 = stablehlo.select %6, %29, %30 : tensor<0x16xi1>, tensor<0x16xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.reduce(%31 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<0x16xf32>, tensor<f32>) -> tensor<16xf32>
    %33 = stablehlo.reshape %32 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %34 = stablehlo.reduce(%33 init: %cst_9) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %35 = stablehlo.dot_general %31, %arg13, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<0x16xf32>, tensor<0x8xf32>) -> tensor<16x8xf32>
    %36 = stablehlo.transpose %35, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %37 = stablehlo.add %arg8, %c : tensor<i32>
    %cst_10 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %39 = stablehlo.multiply %38, %arg4 : tensor<16xf32>
    %cst_11 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %41 = stablehlo.multiply %40, %34 : tensor<16xf32>
    %42 = stablehlo.add %39, %41 : tensor<16xf32>
    %cst_12 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %44 = stablehlo.multiply %43, %arg5 : tensor<8x16xf32>
    %cst_13 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %46 = stablehlo.multiply %45, %36 : tensor<8x16xf32>
    %47 = stablehlo.add %44, %46 : tensor<8x16xf32>
    %cst_14 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %49 = stablehlo.multiply %48, %arg6 : tensor<4xf32>
    %cst_15 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %51 = stablehlo.multiply %50, %26 : tensor<4xf32>
    %52 = stablehlo.add %49, %51 : tensor<4xf32>
    %cst_16 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %54 = stablehlo.multiply %53, %arg7 : tensor<16x4xf32>
    %cst_17 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %56 = stablehlo.multiply %55, %28 : tensor<16x4xf32>
    %57 = stablehlo.add %54, %56 : tensor<16x4xf32>
    %cst_18 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %59 = stablehlo.multiply %58, %arg9 : tensor<16xf32>
    %cst_19 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %61 = stablehlo.multiply %60, %34 : tensor<16xf32>
    %62 = stablehlo.multiply %61, %34 : tensor<16xf32>
    %63 = stablehlo.add %59, %62 : tensor<16xf32>
    %cst_20 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %65 = stablehlo.multiply %64, %arg10 : tensor<8x16xf32>
    %cst_21 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %67 = stablehlo.multiply %66, %36 : tensor<8x16xf32>
    %68 = stablehlo.multiply %67, %36 : tensor<8x16xf32>
    %69 = stablehlo.add %65, %68 : tensor<8x16xf32>
    %cst_22 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %71 = stablehlo.multiply %70, %arg11 : tensor<4xf32>
    %cst_23 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %73 = stablehlo.multiply %72, %26 : tensor<4xf32>
    %74 = stablehlo.multiply %73, %26 : tensor<4xf32>
    %75 = stablehlo.add %71, %74 : tensor<4xf32>
    %cst_24 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %77 = stablehlo.multiply %76, %arg12 : tensor<16x4xf32>
    %cst_25 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %78 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %79 = stablehlo.multiply %78, %28 : tensor<16x4xf32>
    %80 = stablehlo.multiply %79, %28 : tensor<16x4xf32>
    %81 = stablehlo.add %77, %80 : tensor<16x4xf32>
    %82 = stablehlo.convert %37 : (tensor<i32>) -> tensor<f32>
    %cst_26 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %83 = stablehlo.power %cst_26, %82 : tensor<f32>
    %cst_27 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %84 = stablehlo.subtract %cst_27, %83 : tensor<f32>
    %cst_28 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %85 = stablehlo.power %cst_28, %82 : tensor<f32>
    %cst_29 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %86 = stablehlo.subtract %cst_29, %85 : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %84, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %88 = stablehlo.divide %42, %87 : tensor<16xf32>
    %cst_30 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %90 = stablehlo.multiply %89, %88 : tensor<16xf32>
    %91 = stablehlo.broadcast_in_dim %86, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %92 = stablehlo.divide %63, %91 : tensor<16xf32>
    %93 = stablehlo.sqrt %92 : tensor<16xf32>
    %cst_31 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %95 = stablehlo.add %93, %94 : tensor<16xf32>
    %96 = stablehlo.divide %90, %95 : tensor<16xf32>
    %97 = stablehlo.subtract %arg0, %96 : tensor<16xf32>
    %98 = stablehlo.broadcast_in_dim %84, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %99 = stablehlo.divide %47, %98 : tensor<8x16xf32>
    %cst_32 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %101 = stablehlo.multiply %100, %99 : tensor<8x16xf32>
    %102 = stablehlo.broadcast_in_dim %86, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %103 = stablehlo.divide %69, %102 : tensor<8x16xf32>
    %104 = stablehlo.sqrt %103 : tensor<8x16xf32>
    %cst_33 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %105 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %106 = stablehlo.add %104, %105 : tensor<8x16xf32>
    %107 = stablehlo.divide %101, %106 : tensor<8x16xf32>
    %108 = stablehlo.subtract %arg1, %107 : tensor<8x16xf32>
    %109 = stablehlo.broadcast_in_dim %84, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %110 = stablehlo.divide %52, %109 : tensor<4xf32>
    %cst_34 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %111 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %112 = stablehlo.multiply %111, %110 : tensor<4xf32>
    %113 = stablehlo.broadcast_in_dim %86, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %114 = stablehlo.divide %75, %113 : tensor<4xf32>
    %115 = stablehlo.sqrt %114 : tensor<4xf32>
    %cst_35 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %116 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %117 = stablehlo.add %115, %116 : tensor<4xf32>
    %118 = stablehlo.divide %112, %117 : tensor<4xf32>
    %119 = stablehlo.subtract %arg2, %118 : tensor<4xf32>
    %120 = stablehlo.broadcast_in_dim %84, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %121 = stablehlo.divide %57, %120 : tensor<16x4xf32>
    %cst_36 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %122 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %123 = stablehlo.multiply %122, %121 : tensor<16x4xf32>
    %124 = stablehlo.broadcast_in_dim %86, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %125 = stablehlo.divide %81, %124 : tensor<16x4xf32>
    %126 = stablehlo.sqrt %125 : tensor<16x4xf32>
    %cst_37 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %127 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %128 = stablehlo.add %126, %127 : tensor<16x4xf32>
    %129 = stablehlo.divide %123, %128 : tensor<16x4xf32>
    %130 = stablehlo.subtract %arg3, %129 : tensor<16x4xf32>
    return %17, %97, %108, %119, %130, %42, %47, %52, %57, %37, %63, %69, %75, %81 : tensor<f32>, tensor<16xf32>, tensor<8x16xf32>, tensor<4xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<4xf32>, tensor<16x4xf32>, tensor<i32>, tensor<16xf32>, tensor<8x16xf32>, tensor<4xf32>, tensor<16x4xf32>
  }
  func.func private @relu(%arg0: tensor<0x16xf32>) -> tensor<0x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<0x16xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<0x16xf32>
    return %1 : tensor<0x16xf32>
  }
  func.func private @log_softmax(%arg0: tensor<0x4xf32>) -> (tensor<0x4xf32>, tensor<0x4xf32>, tensor<0x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<0x4xf32>, tensor<f32>) -> tensor<0xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<0xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<0xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<0xf32>) -> tensor<0x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<0x1xf32>) -> tensor<0x4xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<0x4xf32>
    %6 = stablehlo.exponential %5 : tensor<0x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<0x4xf32>, tensor<f32>) -> tensor<0xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<0xf32>) -> tensor<0x1xf32>
    %9 = stablehlo.log %8 : tensor<0x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<0x1xf32>) -> tensor<0x4xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<0x4xf32>
    return %11, %6, %8 : tensor<0x4xf32>, tensor<0x4xf32>, tensor<0x1xf32>
  }
  func.func private @_one_hot(%arg0: tensor<0xi32>) -> tensor<0x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<0xi32>) -> tensor<0x1xi32>
    %1 = stablehlo.iota dim = 1 : tensor<1x4xi32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<0x1xi32>) -> tensor<0x4xi32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x4xi32>) -> tensor<0x4xi32>
    %4 = stablehlo.compare EQ, %2, %3, SIGNED : (tensor<0x4xi32>, tensor<0x4xi32>) -> tensor<0x4xi1>
    %5 = stablehlo.convert %4 : (tensor<0x4xi1>) -> tensor<0x4xf32>
    return %5 : tensor<0x4xf32>
  }
  func.func private @log_softmax_0(%arg0: tensor<0x4xf32>, %arg1: tensor<0x1xf32>, %arg2: tensor<0x4xf32>) -> tensor<0x4xf32> {
    %0 = stablehlo.negate %arg2 : tensor<0x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<0x4xf32>, tensor<f32>) -> tensor<0xf32>
    %2 = stablehlo.reshape %1 : (tensor<0xf32>) -> tensor<0x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<0x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<0x1xf32>, tensor<f32>) -> tensor<0xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<0xf32>) -> tensor<0x4xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<0x4xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<0x4xf32>
    return %7 : tensor<0x4xf32>
  }
}

