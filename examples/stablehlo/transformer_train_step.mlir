module @jit_transformer_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x8x32xf32>, %arg1: tensor<2x8x32xf32>, %arg2: tensor<32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<32x32xf32>, %arg5: tensor<32x32xf32>, %arg6: tensor<32x32xf32>, %arg7: tensor<32x32xf32>, %arg8: tensor<32xf32>, %arg9: tensor<32xf32>, %arg10: tensor<32x64xf32>, %arg11: tensor<64xf32>, %arg12: tensor<64x32xf32>, %arg13: tensor<32xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<32xf32> {jax.result_info = "result[1]"}, tensor<32xf32> {jax.result_info = "result[2]"}, tensor<32x32xf32> {jax.result_info = "result[3]"}, tensor<32x32xf32> {jax.result_info = "result[4]"}, tensor<32x32xf32> {jax.result_info = "result[5]"}, tensor<32x32xf32> {jax.result_info = "result[6]"}, tensor<32xf32> {jax.result_info = "result[7]"}, tensor<32xf32> {jax.result_info = "result[8]"}, tensor<32x64xf32> {jax.result_info = "result[9]"}, tensor<64xf32> {jax.result_info = "result[10]"}, tensor<64x32xf32> {jax.result_info = "result[11]"}, tensor<32xf32> {jax.result_info = "result[12]"}) {
    %0:2 = call @layer_norm(%arg0, %arg2, %arg3) : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x32xf32>)
    %1:11 = call @causal_attention(%0#0, %arg4, %arg5, %arg6, %arg7) : (tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> (tensor<2x8x32xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<f32>, tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x8x32xf32>)
    %2 = stablehlo.add %arg0, %1#0 : tensor<2x8x32xf32>
    %3:6 = call @layer_norm_0(%2, %arg8, %arg9) : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>, tensor<1x1x32xf32>, tensor<2x8x32xf32>)
    %4 = stablehlo.dot_general %3#0, %arg10, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x64xf32>) -> tensor<2x8x64xf32>
    %5 = stablehlo.broadcast_in_dim %arg11, dims = [2] : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<2x8x64xf32>
    %7 = stablehlo.add %4, %6 : tensor<2x8x64xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<2x8x64xf32>
    %9 = stablehlo.multiply %8, %7 : tensor<2x8x64xf32>
    %10 = stablehlo.multiply %7, %7 : tensor<2x8x64xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %12 = stablehlo.multiply %11, %10 : tensor<2x8x64xf32>
    %cst_0 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %14 = stablehlo.multiply %13, %9 : tensor<2x8x64xf32>
    %15 = stablehlo.add %7, %14 : tensor<2x8x64xf32>
    %cst_1 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %17 = stablehlo.multiply %16, %15 : tensor<2x8x64xf32>
    %18 = stablehlo.tanh %17 : tensor<2x8x64xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %20 = stablehlo.subtract %19, %18 : tensor<2x8x64xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %22 = stablehlo.add %21, %18 : tensor<2x8x64xf32>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %24 = stablehlo.multiply %23, %22 : tensor<2x8x64xf32>
    %25 = stablehlo.multiply %7, %24 : tensor<2x8x64xf32>
    %26 = stablehlo.dot_general %25, %arg12, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x64xf32>, tensor<64x32xf32>) -> tensor<2x8x32xf32>
    %27 = stablehlo.add %2, %26 : tensor<2x8x32xf32>
    %28 = stablehlo.broadcast_in_dim %arg13, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %30 = stablehlo.add %27, %29 : tensor<2x8x32xf32>
    %31 = stablehlo.subtract %30, %arg1 : tensor<2x8x32xf32>
    %32 = stablehlo.multiply %31, %31 : tensor<2x8x32xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.reduce(%32 init: %cst_5) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<f32>
    %cst_6 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %34 = stablehlo.divide %33, %cst_6 : tensor<f32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_8 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %35 = stablehlo.divide %cst_7, %cst_8 : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [] : (tensor<f32>) -> tensor<2x8x32xf32>
    %37 = stablehlo.multiply %31, %36 : tensor<2x8x32xf32>
    %38 = stablehlo.multiply %36, %31 : tensor<2x8x32xf32>
    %39 = stablehlo.add %37, %38 : tensor<2x8x32xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %40 = stablehlo.reduce(%39 init: %cst_9) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %41 = stablehlo.reshape %40 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %42 = stablehlo.reduce(%41 init: %cst_10) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %43 = stablehlo.dot_general %39, %25, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<2x8x64xf32>) -> tensor<32x64xf32>
    %44 = stablehlo.transpose %43, dims = [1, 0] : (tensor<32x64xf32>) -> tensor<64x32xf32>
    %45 = stablehlo.dot_general %39, %arg12, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<64x32xf32>) -> tensor<2x8x64xf32>
    %46 = stablehlo.multiply %7, %45 : tensor<2x8x64xf32>
    %47 = stablehlo.multiply %45, %24 : tensor<2x8x64xf32>
    %cst_11 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %49 = stablehlo.multiply %48, %46 : tensor<2x8x64xf32>
    %50 = stablehlo.multiply %49, %20 : tensor<2x8x64xf32>
    %51 = stablehlo.multiply %50, %18 : tensor<2x8x64xf32>
    %52 = stablehlo.add %50, %51 : tensor<2x8x64xf32>
    %cst_12 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %54 = stablehlo.multiply %53, %52 : tensor<2x8x64xf32>
    %55 = stablehlo.add %47, %54 : tensor<2x8x64xf32>
    %cst_13 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x8x64xf32>
    %57 = stablehlo.multiply %56, %54 : tensor<2x8x64xf32>
    %58 = stablehlo.multiply %57, %12 : tensor<2x8x64xf32>
    %59 = stablehlo.add %55, %58 : tensor<2x8x64xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %60 = stablehlo.reduce(%59 init: %cst_14) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x64xf32>, tensor<f32>) -> tensor<64xf32>
    %61 = stablehlo.reshape %60 : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %62 = stablehlo.reduce(%61 init: %cst_15) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x64xf32>, tensor<f32>) -> tensor<64xf32>
    %63 = stablehlo.dot_general %59, %3#0, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x64xf32>, tensor<2x8x32xf32>) -> tensor<64x32xf32>
    %64 = stablehlo.transpose %63, dims = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
    %65 = stablehlo.dot_general %59, %arg10, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x8x64xf32>, tensor<32x64xf32>) -> tensor<2x8x32xf32>
    %66:3 = call @layer_norm_1(%3#1, %3#2, %3#3, %3#4, %3#5, %65) : (tensor<2x8x32xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>, tensor<1x1x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>)
    %67 = stablehlo.add %39, %66#0 : tensor<2x8x32xf32>
    %68:5 = call @causal_attention_2(%arg4, %0#0, %arg5, %arg6, %1#1, %1#2, %1#3, %1#4, %1#5, %1#6, %1#7, %1#8, %1#9, %arg7, %1#10, %67) : (tensor<32x32xf32>, tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<f32>, tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<32x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> (tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>)
    %69:2 = call @layer_norm_4(%0#1, %68#0) : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> (tensor<32xf32>, tensor<32xf32>)
    %cst_16 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %71 = stablehlo.multiply %70, %69#0 : tensor<32xf32>
    %72 = stablehlo.subtract %arg2, %71 : tensor<32xf32>
    %cst_17 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %73 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %74 = stablehlo.multiply %73, %69#1 : tensor<32xf32>
    %75 = stablehlo.subtract %arg3, %74 : tensor<32xf32>
    %cst_18 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %77 = stablehlo.multiply %76, %68#1 : tensor<32x32xf32>
    %78 = stablehlo.subtract %arg4, %77 : tensor<32x32xf32>
    %cst_19 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %80 = stablehlo.multiply %79, %68#2 : tensor<32x32xf32>
    %81 = stablehlo.subtract %arg5, %80 : tensor<32x32xf32>
    %cst_20 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %83 = stablehlo.multiply %82, %68#3 : tensor<32x32xf32>
    %84 = stablehlo.subtract %arg6, %83 : tensor<32x32xf32>
    %cst_21 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %86 = stablehlo.multiply %85, %68#4 : tensor<32x32xf32>
    %87 = stablehlo.subtract %arg7, %86 : tensor<32x32xf32>
    %cst_22 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %89 = stablehlo.multiply %88, %66#1 : tensor<32xf32>
    %90 = stablehlo.subtract %arg8, %89 : tensor<32xf32>
    %cst_23 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %92 = stablehlo.multiply %91, %66#2 : tensor<32xf32>
    %93 = stablehlo.subtract %arg9, %92 : tensor<32xf32>
    %cst_24 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %95 = stablehlo.multiply %94, %64 : tensor<32x64xf32>
    %96 = stablehlo.subtract %arg10, %95 : tensor<32x64xf32>
    %cst_25 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %97 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %98 = stablehlo.multiply %97, %62 : tensor<64xf32>
    %99 = stablehlo.subtract %arg11, %98 : tensor<64xf32>
    %cst_26 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %101 = stablehlo.multiply %100, %44 : tensor<64x32xf32>
    %102 = stablehlo.subtract %arg12, %101 : tensor<64x32xf32>
    %cst_27 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %103 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %104 = stablehlo.multiply %103, %42 : tensor<32xf32>
    %105 = stablehlo.subtract %arg13, %104 : tensor<32xf32>
    return %34, %72, %75, %78, %81, %84, %87, %90, %93, %96, %99, %102, %105 : tensor<f32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>
  }
  func.func private @layer_norm(%arg0: tensor<2x8x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x32xf32>) {
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
    return %21, %15 : tensor<2x8x32xf32>, tensor<2x8x32xf32>
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
    %cst_0 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %16:2 = call @_where(%15, %12, %cst_0) : (tensor<8x8xi1>, tensor<2x4x8x8xf32>, tensor<f32>) -> (tensor<2x4x8x8xf32>, tensor<2x4x8x8xi1>)
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %17 = stablehlo.reduce(%16#0 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x4x8xf32>
    %19 = stablehlo.maximum %18, %17 : tensor<2x4x8xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %22 = stablehlo.subtract %16#0, %21 : tensor<2x4x8x8xf32>
    %23 = stablehlo.exponential %22 : tensor<2x4x8x8xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.reduce(%23 init: %cst_3) applies stablehlo.add across dimensions = [3] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x1xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1, 2, 3] : (tensor<2x4x8x1xf32>) -> tensor<2x4x8x8xf32>
    %27 = stablehlo.divide %23, %26 : tensor<2x4x8x8xf32>
    %28 = stablehlo.multiply %25, %25 : tensor<2x4x8x1xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x4x8x1xf32>
    %30 = stablehlo.divide %29, %28 : tensor<2x4x8x1xf32>
    %31 = stablehlo.dot_general %27, %8, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %32 = stablehlo.transpose %31, dims = [0, 2, 1, 3] : (tensor<2x4x8x8xf32>) -> tensor<2x8x4x8xf32>
    %33 = stablehlo.reshape %32 : (tensor<2x8x4x8xf32>) -> tensor<2x8x32xf32>
    %34 = stablehlo.dot_general %33, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    return %34, %5, %2, %10, %16#1, %23, %25, %30, %8, %27, %33 : tensor<2x8x32xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<f32>, tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x1xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x8x32xf32>
  }
  func.func private @_where(%arg0: tensor<8x8xi1>, %arg1: tensor<2x4x8x8xf32>, %arg2: tensor<f32>) -> (tensor<2x4x8x8xf32>, tensor<2x4x8x8xi1>) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<2x4x8x8xi1>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %2 = stablehlo.select %0, %arg1, %1 : tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>
    return %2, %0 : tensor<2x4x8x8xf32>, tensor<2x4x8x8xi1>
  }
  func.func private @layer_norm_0(%arg0: tensor<2x8x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>, tensor<1x1x32xf32>, tensor<2x8x32xf32>) {
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
    %14 = stablehlo.divide %13, %12 : tensor<2x8x1xf32>
    %cst_4 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %16 = stablehlo.multiply %15, %14 : tensor<2x8x1xf32>
    %17 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %18 = stablehlo.multiply %5, %17 : tensor<2x8x32xf32>
    %19 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %21 = stablehlo.multiply %18, %20 : tensor<2x8x32xf32>
    %22 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %24 = stablehlo.add %21, %23 : tensor<2x8x32xf32>
    return %24, %5, %16, %13, %19, %18 : tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>, tensor<1x1x32xf32>, tensor<2x8x32xf32>
  }
  func.func private @layer_norm_1(%arg0: tensor<2x8x32xf32>, %arg1: tensor<2x8x1xf32>, %arg2: tensor<2x8x1xf32>, %arg3: tensor<1x1x32xf32>, %arg4: tensor<2x8x32xf32>, %arg5: tensor<2x8x32xf32>) -> (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg5 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %1 = stablehlo.reshape %0 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %3 = stablehlo.multiply %arg4, %arg5 : tensor<2x8x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %5 = stablehlo.reshape %4 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x8x32xf32>
    %7 = stablehlo.multiply %arg5, %6 : tensor<2x8x32xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%5 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %9 = stablehlo.multiply %arg0, %7 : tensor<2x8x32xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_3) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %11 = stablehlo.reshape %10 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %12 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %13 = stablehlo.multiply %7, %12 : tensor<2x8x32xf32>
    %14 = stablehlo.multiply %11, %arg1 : tensor<2x8x1xf32>
    %cst_4 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %16 = stablehlo.divide %14, %15 : tensor<2x8x1xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.reduce(%16 init: %cst_5) applies stablehlo.add across dimensions = [2] : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x32xf32>
    %19 = stablehlo.multiply %arg0, %18 : tensor<2x8x32xf32>
    %20 = stablehlo.add %13, %19 : tensor<2x8x32xf32>
    %21 = stablehlo.multiply %18, %arg0 : tensor<2x8x32xf32>
    %22 = stablehlo.add %20, %21 : tensor<2x8x32xf32>
    %23 = stablehlo.negate %22 : tensor<2x8x32xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.reduce(%23 init: %cst_6) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %25 = stablehlo.reshape %24 : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
    %cst_7 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x8x1xf32>
    %27 = stablehlo.divide %25, %26 : tensor<2x8x1xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %28 = stablehlo.reduce(%27 init: %cst_8) applies stablehlo.add across dimensions = [2] : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x32xf32>
    %30 = stablehlo.add %22, %29 : tensor<2x8x32xf32>
    return %30, %8, %2 : tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>
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
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.reduce(%13 init: %cst_0) applies stablehlo.add across dimensions = [3] : (tensor<2x4x8x1xf32>, tensor<f32>) -> tensor<2x4x8xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<2x4x8x8xf32>
    %18 = stablehlo.add %15, %17 : tensor<2x4x8x8xf32>
    %19 = stablehlo.multiply %18, %arg8 : tensor<2x4x8x8xf32>
    %20 = call @_where_3(%arg7, %19) : (tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
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
    return %41, %39, %33, %28, %1 : tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>
  }
  func.func private @_where_3(%arg0: tensor<2x4x8x8xi1>, %arg1: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4x8x8xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>
    return %1 : tensor<2x4x8x8xf32>
  }
  func.func private @layer_norm_4(%arg0: tensor<2x8x32xf32>, %arg1: tensor<2x8x32xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %1 = stablehlo.reshape %0 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %3 = stablehlo.multiply %arg0, %arg1 : tensor<2x8x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %5 = stablehlo.reshape %4 : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x32xf32>, tensor<f32>) -> tensor<32xf32>
    return %6, %2 : tensor<32xf32>, tensor<32xf32>
  }
}
