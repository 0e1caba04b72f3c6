builtin.module @jit_transformer_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32, sbp.placement = #sbp.placement<cpu, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
  func.func public @main(%arg0: tensor<2x8x32xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}, %arg1: tensor<2x8x32xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}, %arg2: tensor<32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<32x32xf32>, %arg5: tensor<32x32xf32>, %arg6: tensor<32x32xf32>, %arg7: tensor<32x32xf32>, %arg8: tensor<32xf32>, %arg9: tensor<32xf32>, %arg10: tensor<32x64xf32> {sbp.nd_sbp = #sbp.nd<[B, S(1)]>}, %arg11: tensor<64xf32>, %arg12: tensor<64x32xf32> {sbp.nd_sbp = #sbp.nd<[B, S(0)]>}, %arg13: tensor<32xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<32xf32> {jax.result_info = "result[1]"}, tensor<32xf32> {jax.result_info = "result[2]"}, tensor<32x32xf32> {jax.result_info = "result[3]"}, tensor<32x32xf32> {jax.result_info = "result[4]"}, tensor<32x32xf32> {jax.result_info = "result[5]"}, tensor<32x32xf32> {jax.result_info = "result[6]"}, tensor<32xf32> {jax.result_info = "result[7]"}, tensor<32xf32> {jax.result_info = "result[8]"}, tensor<32x64xf32> {jax.result_info = "result[9]"}, tensor<64xf32> {jax.result_info = "result[10]"}, tensor<64x32xf32> {jax.result_info = "result[11]"}, tensor<32xf32> {jax.result_info = "result[12]"}) {
    %0, %1 = func.call @layer_norm(%arg0, %arg2, %arg3) : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x32xf32>)
    %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12 = func.call @causal_attention(%0, %arg4, %arg5, %arg6, %arg7) : (tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> (tensor<2x8x32xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<f32>, tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x8x32xf32>)
    %13 = stablehlo.add %arg0, %2 : tensor<2x8x32xf32>
    %14, %15, %16, %17, %18, %19 = func.call @layer_norm_0(%13, %arg8, %arg9) : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>, tensor<1x1x32xf32>, tensor<2x8x32xf32>)
    %20 = stablehlo.dot_general %14, %arg10, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x64xf32>) -> tensor<2x8x64xf32>
    %21 = stablehlo.broadcast_in_dim %arg11, dims = [2] : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<2x8x64xf32>
    %23 = stablehlo.add %20, %22 : tensor<2x8x64xf32>
    %24 = stablehlo.multiply %23, %23 : tensor<2x8x64xf32>
    %25 = stablehlo.multiply %24, %23 : tensor<2x8x64xf32>
    %26 = stablehlo.multiply %23, %23 : tensor<2x8x64xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %28 = stablehlo.multiply %27, %26 : tensor<2x8x64xf32>
    %cst_1 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %30 = stablehlo.multiply %29, %25 : tensor<2x8x64xf32>
    %31 = stablehlo.add %23, %30 : tensor<2x8x64xf32>
    %cst_2 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %33 = stablehlo.multiply %32, %31 : tensor<2x8x64xf32>
    %34 = stablehlo.tanh %33 : tensor<2x8x64xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %36 = stablehlo.subtract %35, %34 : tensor<2x8x64xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %38 = stablehlo.add %37, %34 : tensor<2x8x64xf32>
    %cst_5 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %40 = stablehlo.multiply %39, %38 : tensor<2x8x64xf32>
    %41 = stablehlo.multiply %23, %40 : tensor<2x8x64xf32>
    %42 = stablehlo.dot_general %41, %arg12, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x64xf32>, tensor<64x32xf32>) -> tensor<2x8x32xf32>
    %43 = stablehlo.add %13, %42 : tensor<2x8x32xf32>
    %44 = stablehlo.broadcast_in_dim %arg13, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %46 = stablehlo.add %43, %45 : tensor<2x8x32xf32>
    %47 = stablehlo.subtract %46, %arg1 : tensor<2x8x32xf32>
    %48 = stablehlo.multiply %47, %47 : tensor<2x8x32xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %49 = stablehlo.reduce(%48 init: %cst_6) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<f32>
    %cst_7 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %50 = stablehlo.divide %49, %cst_7 : tensor<f32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_9 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %51 = stablehlo.divide %cst_8, %cst_9 : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [] : (tensor<f32>) -> tensor<2x8x32xf32>
    %53 = stablehlo.multiply %47, %52 : tensor<2x8x32xf32>
    %54 = stablehlo.multiply %52, %47 : tensor<2x8x32xf32>
    %55 = stablehlo.add %53, %54 : tensor<2x8x32xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %56 = stablehlo.reduce(%55 init: %cst_10) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %57 = stablehlo.reshape %56 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %58 = stablehlo.reduce(%57 init: %cst_11) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %59 = stablehlo.dot_general %55, %41, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<2x8x64xf32>) -> tensor<32x64xf32>
    %60 = stablehlo.transpose %59, dims = [1, 0] : (tensor<32x64xf32>) -> tensor<64x32xf32>
    %61 = stablehlo.dot_general %55, %arg12, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<64x32xf32>) -> tensor<2x8x64xf32>
    %62 = stablehlo.multiply %23, %61 : tensor<2x8x64xf32>
    %63 = stablehlo.multiply %61, %40 : tensor<2x8x64xf32>
    %cst_12 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %65 = stablehlo.multiply %64, %62 : tensor<2x8x64xf32>
    %66 = stablehlo.multiply %65, %36 : tensor<2x8x64xf32>
    %67 = stablehlo.multiply %66, %34 : tensor<2x8x64xf32>
    %68 = stablehlo.add %66, %67 : tensor<2x8x64xf32>
    %cst_13 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %69 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %70 = stablehlo.multiply %69, %68 : tensor<2x8x64xf32>
    %71 = stablehlo.add %63, %70 : tensor<2x8x64xf32>
    %cst_14 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %73 = stablehlo.multiply %72, %70 : tensor<2x8x64xf32>
    %74 = stablehlo.multiply %73, %28 : tensor<2x8x64xf32>
    %75 = stablehlo.add %71, %74 : tensor<2x8x64xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %76 = stablehlo.reduce(%75 init: %cst_15) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x64xf32>, tensor<f32>) -> tensor<64xf32>
    %77 = stablehlo.reshape %76 : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %78 = stablehlo.reduce(%77 init: %cst_16) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x64xf32>, tensor<f32>) -> tensor<64xf32>
    %79 = stablehlo.dot_general %75, %14, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x64xf32>, tensor<2x8x32xf32>) -> tensor<64x32xf32>
    %80 = stablehlo.transpose %79, dims = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
    %81 = stablehlo.dot_general %75, %arg10, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x64xf32>, tensor<32x64xf32>) -> tensor<2x8x32xf32>
    %82, %83, %84 = func.call @layer_norm_1(%15, %16, %17, %18, %19, %81) : (tensor<2x8x32xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>, tensor<1x1x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>)
    %85 = stablehlo.add %55, %82 : tensor<2x8x32xf32>
    %86, %87, %88, %89, %90 = func.call @causal_attention_2(%arg4, %0, %arg5, %arg6, %3, %4, %5, %6, %7, %8, %9, %10, %11, %arg7, %12, %85) : (tensor<32x32xf32>, tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<f32>, tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<32x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> (tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>)
    %91, %92 = func.call @layer_norm_4(%1, %86) : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> (tensor<32xf32>, tensor<32xf32>)
    %cst_17 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %93 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %94 = stablehlo.multiply %93, %91 : tensor<32xf32>
    %95 = stablehlo.subtract %arg2, %94 : tensor<32xf32>
    %cst_18 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %96 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %97 = stablehlo.multiply %96, %92 : tensor<32xf32>
    %98 = stablehlo.subtract %arg3, %97 : tensor<32xf32>
    %cst_19 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %99 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %100 = stablehlo.multiply %99, %87 : tensor<32x32xf32>
    %101 = stablehlo.subtract %arg4, %100 : tensor<32x32xf32>
    %cst_20 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %102 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %103 = stablehlo.multiply %102, %88 : tensor<32x32xf32>
    %104 = stablehlo.subtract %arg5, %103 : tensor<32x32xf32>
    %cst_21 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %105 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %106 = stablehlo.multiply %105, %89 : tensor<32x32xf32>
    %107 = stablehlo.subtract %arg6, %106 : tensor<32x32xf32>
    %cst_22 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %108 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %109 = stablehlo.multiply %108, %90 : tensor<32x32xf32>
    %110 = stablehlo.subtract %arg7, %109 : tensor<32x32xf32>
    %cst_23 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %111 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %112 = stablehlo.multiply %111, %83 : tensor<32xf32>
    %113 = stablehlo.subtract %arg8, %112 : tensor<32xf32>
    %cst_24 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %114 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %115 = stablehlo.multiply %114, %84 : tensor<32xf32>
    %116 = stablehlo.subtract %arg9, %115 : tensor<32xf32>
    %cst_25 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %117 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %118 = stablehlo.multiply %117, %80 : tensor<32x64xf32>
    %119 = stablehlo.subtract %arg10, %118 : tensor<32x64xf32>
    %cst_26 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %120 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %121 = stablehlo.multiply %120, %78 : tensor<64xf32>
    %122 = stablehlo.subtract %arg11, %121 : tensor<64xf32>
    %cst_27 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %123 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %124 = stablehlo.multiply %123, %60 : tensor<64x32xf32>
    %125 = stablehlo.subtract %arg12, %124 : tensor<64x32xf32>
    %cst_28 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %126 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %127 = stablehlo.multiply %126, %58 : tensor<32xf32>
    %128 = stablehlo.subtract %arg13, %127 : tensor<32xf32>
    func.return %50, %95, %98, %101, %104, %107, %110, %113, %116, %119, %122, %125, %128 : tensor<f32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>
  }
  func.func private @layer_norm(%arg0: tensor<2x8x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x32xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_1 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<2x8x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x8x32xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<2x8x32xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_3 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<2x8x1xf32>
    %cst_4 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
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
    func.return %21, %15 : tensor<2x8x32xf32>, tensor<2x8x32xf32>
  }
  func.func private @causal_attention(%arg0: tensor<2x8x32xf32>, %arg1: tensor<32x32xf32>, %arg2: tensor<32x32xf32>, %arg3: tensor<32x32xf32>, %arg4: tensor<32x32xf32>) -> (tensor<2x8x32xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<f32>, tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x8x32xf32>) {
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
    %cst_1 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %16, %17 = func.call @_where(%15, %12, %cst_1) : (tensor<8x8xi1>, tensor<2x4x8x8xf32>, tensor<f32>) -> (tensor<2x4x8x8xf32>, tensor<2x4x8x8xi1>)
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %18 = stablehlo.reduce(%16 init: %cst_2) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x4x8xf32>
    %20 = stablehlo.maximum %19, %18 : tensor<2x4x8xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %23 = stablehlo.subtract %16, %22 : tensor<2x4x8x8xf32>
    %24 = stablehlo.exponential %23 : tensor<2x4x8x8xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.reduce(%24 init: %cst_4) applies stablehlo.add across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %28 = stablehlo.divide %24, %27 : tensor<2x4x8x8xf32>
    %29 = stablehlo.multiply %26, %26 : tensor<2x4x8x1xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x4x8x1xf32>
    %31 = stablehlo.divide %30, %29 : tensor<2x4x8x1xf32>
    %32 = stablehlo.dot_general %28, %8, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %33 = stablehlo.transpose %32, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %34 = stablehlo.reshape %33 : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %35 = stablehlo.dot_general %34, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    func.return %35, %5, %2, %10, %17, %24, %26, %31, %8, %28, %34 : tensor<2x8x32xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<f32>, tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x8x32xf32>
  }
  func.func private @_where(%arg0: tensor<8x8xi1>, %arg1: tensor<2x4x8x8xf32>, %arg2: tensor<f32>) -> (tensor<2x4x8x8xf32>, tensor<2x4x8x8xi1>) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<2x4x8x8xi1>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %2 = stablehlo.select %0, %arg1, %1 : tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>
    func.return %2, %0 : tensor<2x4x8x8xf32>, tensor<2x4x8x8xi1>
  }
  func.func private @layer_norm_0(%arg0: tensor<2x8x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>, tensor<1x1x32xf32>, tensor<2x8x32xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_1 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<2x8x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x8x32xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<2x8x32xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_3 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<2x8x1xf32>
    %cst_4 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %12 = stablehlo.add %10, %11 : tensor<2x8x1xf32>
    %13 = stablehlo.rsqrt %12 : tensor<2x8x1xf32>
    %14 = stablehlo.divide %13, %12 : tensor<2x8x1xf32>
    %cst_5 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %16 = stablehlo.multiply %15, %14 : tensor<2x8x1xf32>
    %17 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %18 = stablehlo.multiply %5, %17 : tensor<2x8x32xf32>
    %19 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %21 = stablehlo.multiply %18, %20 : tensor<2x8x32xf32>
    %22 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %24 = stablehlo.add %21, %23 : tensor<2x8x32xf32>
    func.return %24, %5, %16, %13, %19, %18 : tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>, tensor<1x1x32xf32>, tensor<2x8x32xf32>
  }
  func.func private @layer_norm_1(%arg0: tensor<2x8x32xf32>, %arg1: tensor<2x8x1xf32>, %arg2: tensor<2x8x1xf32>, %arg3: tensor<1x1x32xf32>, %arg4: tensor<2x8x32xf32>, %arg5: tensor<2x8x32xf32>) -> (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg5 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %1 = stablehlo.reshape %0 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %3 = stablehlo.multiply %arg4, %arg5 : tensor<2x8x32xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %5 = stablehlo.reshape %4 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %7 = stablehlo.multiply %arg5, %6 : tensor<2x8x32xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%5 init: %cst_3) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %9 = stablehlo.multiply %arg0, %7 : tensor<2x8x32xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_4) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %11 = stablehlo.reshape %10 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %12 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %13 = stablehlo.multiply %7, %12 : tensor<2x8x32xf32>
    %14 = stablehlo.multiply %11, %arg1 : tensor<2x8x1xf32>
    %cst_5 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %16 = stablehlo.divide %14, %15 : tensor<2x8x1xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.reduce(%16 init: %cst_6) applies stablehlo.add across dimensions = [2] : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x32xf32>
    %19 = stablehlo.multiply %arg0, %18 : tensor<2x8x32xf32>
    %20 = stablehlo.add %13, %19 : tensor<2x8x32xf32>
    %21 = stablehlo.multiply %18, %arg0 : tensor<2x8x32xf32>
    %22 = stablehlo.add %20, %21 : tensor<2x8x32xf32>
    %23 = stablehlo.negate %22 : tensor<2x8x32xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.reduce(%23 init: %cst_7) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %25 = stablehlo.reshape %24 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_8 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %27 = stablehlo.divide %25, %26 : tensor<2x8x1xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %28 = stablehlo.reduce(%27 init: %cst_9) applies stablehlo.add across dimensions = [2] : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x32xf32>
    %30 = stablehlo.add %22, %29 : tensor<2x8x32xf32>
    func.return %30, %8, %2 : tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>
  }
  func.func private @causal_attention_2(%arg0: tensor<32x32xf32>, %arg1: tensor<2x8x32xf32>, %arg2: tensor<32x32xf32>, %arg3: tensor<32x32xf32>, %arg4: tensor<2x4x8x8xf32>, %arg5: tensor<2x4x8x8xf32>, %arg6: tensor<f32>, %arg7: tensor<2x4x8x8xi1>, %arg8: tensor<2x4x8x8xf32>, %arg9: tensor<2x4x8x1xf32>, %arg10: tensor<2x4x8x1xf32>, %arg11: tensor<2x4x8x8xf32>, %arg12: tensor<2x4x8x8xf32>, %arg13: tensor<32x32xf32>, %arg14: tensor<2x8x32xf32>, %arg15: tensor<2x8x32xf32>) -> (tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
    %0 = stablehlo.dot_general %arg15, %arg14, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<32x32xf32>
    %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %2 = stablehlo.dot_general %arg15, %arg13, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %3 = stablehlo.reshape %2 : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
    %4 = stablehlo.transpose %3, dims = [0, 2, 1, 3] : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
    %5 = stablehlo.dot_general %4, %arg12, batching_dims = [0, 1] x [0, 1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %6 = stablehlo.transpose %5, dims = [0, 1, 3, 2] : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %7 = stablehlo.dot_general %4, %arg11, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %8 = stablehlo.broadcast_in_dim %arg10, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %9 = stablehlo.multiply %7, %8 : tensor<2x4x8x8xf32>
    %10 = stablehlo.multiply %9, %arg8 : tensor<2x4x8x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%10 init: %cst) applies stablehlo.add across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %12 = stablehlo.reshape %11 : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %13 = stablehlo.negate %12 : tensor<2x4x8x1xf32>
    %14 = stablehlo.broadcast_in_dim %arg9, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %15 = stablehlo.divide %7, %14 : tensor<2x4x8x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.reduce(%13 init: %cst_1) applies stablehlo.add across dimensions = [3] : (tensor<2x4x8x1xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x8xf32>
    %18 = stablehlo.add %15, %17 : tensor<2x4x8x8xf32>
    %19 = stablehlo.multiply %18, %arg8 : tensor<2x4x8x8xf32>
    %20 = func.call @_where_3(%arg7, %19) : (tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %21 = stablehlo.broadcast_in_dim %arg6, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %22 = stablehlo.divide %20, %21 : tensor<2x4x8x8xf32>
    %23 = stablehlo.dot_general %22, %arg5, batching_dims = [0, 1] x [0, 1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %24 = stablehlo.dot_general %22, %arg4, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %25 = stablehlo.transpose %6, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %26 = stablehlo.reshape %25 : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %27 = stablehlo.dot_general %26, %arg1, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<32x32xf32>
    %28 = stablehlo.transpose %27, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %29 = stablehlo.dot_general %26, %arg3, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %30 = stablehlo.transpose %23, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %31 = stablehlo.reshape %30 : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %32 = stablehlo.dot_general %31, %arg1, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<32x32xf32>
    %33 = stablehlo.transpose %32, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %34 = stablehlo.dot_general %31, %arg2, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %35 = stablehlo.add %29, %34 : tensor<2x8x32xf32>
    %36 = stablehlo.transpose %24, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %37 = stablehlo.reshape %36 : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %38 = stablehlo.dot_general %37, %arg1, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<32x32xf32>
    %39 = stablehlo.transpose %38, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %40 = stablehlo.dot_general %37, %arg0, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %41 = stablehlo.add %35, %40 : tensor<2x8x32xf32>
    func.return %41, %39, %33, %28, %1 : tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>
  }
  func.func private @_where_3(%arg0: tensor<2x4x8x8xi1>, %arg1: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>
    func.return %1 : tensor<2x4x8x8xf32>
  }
  func.func private @layer_norm_4(%arg0: tensor<2x8x32xf32>, %arg1: tensor<2x8x32xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %1 = stablehlo.reshape %0 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %3 = stablehlo.multiply %arg0, %arg1 : tensor<2x8x32xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %5 = stablehlo.reshape %4 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst_3) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    func.return %6, %2 : tensor<32xf32>, tensor<32xf32>
  }
}
