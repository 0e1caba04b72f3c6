// sbp-remat{policy=dots} on a two-layer attention step (jax.grad, flat):
// x + softmax((x wq)(x wk)^T)(x wv) per layer, residual, mean square loss.
// `dots` keeps each layer's weight products (dot_general with no batch
// dimensions: q, k, v) from the forward and recomputes the rest from them
// and the layer's input: the scores (a dot_general with batch dimensions),
// the softmax, the probabilities' product with v, the residual add.  The
// kept products are the barrier's operands; the backward reads the forward's
// own q, k, v and the clones of the rest.  `full` recomputes the whole layer
// from its input and weights.
// RUN: sbpc-opt %s -p 'sbp-remat{layers=all policy=dots}' | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-remat{layers=all}' | filecheck %s --check-prefix=FULL
// auto with dots: dots on the first layers, then whole layers over dots.
// The greedy plan needs 18372 B as it is; dots on layer 0: 13764 (on both:
// the same); layer 0 whole and layer 1 dots: 12484 (both whole: the same).
// RUN: sbpc-opt %s -p 'sbp-remat{layers=auto policy=dots memory_budget=15000}' | filecheck %s --check-prefix=AUTO
// RUN: sbpc-opt %s -p 'sbp-remat{layers=auto policy=dots memory_budget=13500}' | filecheck %s --check-prefix=MIXED
// RUN: not sbpc-opt %s -p 'sbp-remat{layers=all policy=some}' 2>&1 | filecheck %s --check-prefix=BAD

// CHECK: sbp.recomputed_layers = [#builtin.int<0>, #builtin.int<1>], sbp.remat_policies = ["dots", "dots"]
// CHECK: %[[Q0:[0-9]+]] = stablehlo.dot_general %arg6, %arg0, contracting_dims = [2] x [0]
// CHECK-NEXT: %[[K0:[0-9]+]] = stablehlo.dot_general %arg6, %arg1, contracting_dims = [2] x [0]
// CHECK-NEXT: %[[V0:[0-9]+]] = stablehlo.dot_general %arg6, %arg2, contracting_dims = [2] x [0]
// CHECK: %[[X1:[0-9]+]] = stablehlo.add %arg6,
// CHECK-NEXT: %[[Q1:[0-9]+]] = stablehlo.dot_general %[[X1]], %arg3, contracting_dims = [2] x [0]
// CHECK-NEXT: %[[K1:[0-9]+]] = stablehlo.dot_general %[[X1]], %arg4, contracting_dims = [2] x [0]
// CHECK-NEXT: %[[V1:[0-9]+]] = stablehlo.dot_general %[[X1]], %arg5, contracting_dims = [2] x [0]
// Layer 1: the barrier carries q, k, v and the layer's input; the scores
// are recomputed from the kept q and k, and no weight product is.
// CHECK: %[[BQ1:[0-9]+]], %[[BK1:[0-9]+]], %[[BV1:[0-9]+]], %[[BX1:[0-9]+]], {{.*}} = stablehlo.optimization_barrier %[[Q1]], %[[K1]], %[[V1]], %[[X1]],
// CHECK-NEXT: stablehlo.dot_general %[[BQ1]], %[[BK1]], batching_dims = [0] x [0], contracting_dims = [2] x [2]
// CHECK-NOT: contracting_dims = [2] x [0]
// CHECK: %[[O1:[0-9]+]] = stablehlo.dot_general %{{[0-9]+}}, %[[BV1]], batching_dims = [0] x [0]
// CHECK-NEXT: stablehlo.add %[[BX1]], %[[O1]]
// CHECK-NOT: contracting_dims = [2] x [0]
// The backward reads the forward's own v.
// CHECK: stablehlo.dot_general %{{[0-9]+}}, %[[V1]], batching_dims = [0] x [0]
// Layer 0, the same from its kept products and the step's input.
// CHECK: %[[BQ0:[0-9]+]], %[[BK0:[0-9]+]], %[[BV0:[0-9]+]], %[[BX0:[0-9]+]], {{.*}} = stablehlo.optimization_barrier %[[Q0]], %[[K0]], %[[V0]], %arg6,
// CHECK-NEXT: stablehlo.dot_general %[[BQ0]], %[[BK0]], batching_dims = [0] x [0], contracting_dims = [2] x [2]
// CHECK-NOT: contracting_dims = [2] x [0]
// CHECK: %[[O0:[0-9]+]] = stablehlo.dot_general %{{[0-9]+}}, %[[BV0]], batching_dims = [0] x [0]
// CHECK-NEXT: stablehlo.add %[[BX0]], %[[O0]]
// CHECK: stablehlo.dot_general %{{[0-9]+}}, %[[Q0]], batching_dims = [0] x [0]
// CHECK-NOT: stablehlo.optimization_barrier

// FULL: sbp.remat_policies = ["full", "full"]
// FULL: %[[X1:[0-9]+]] = stablehlo.add %arg6,
// FULL: %[[BX1:[0-9]+]], %[[BW1:[0-9]+]], {{.*}} = stablehlo.optimization_barrier %[[X1]], %arg3, %arg4, %arg5,
// FULL-NEXT: stablehlo.dot_general %[[BX1]], %[[BW1]], contracting_dims = [2] x [0]
// FULL: stablehlo.optimization_barrier %arg6, %arg0, %arg1, %arg2,

// AUTO: sbp.recomputed_layers = [#builtin.int<0>], sbp.remat_policies = ["dots"]
// AUTO-COUNT-1: stablehlo.optimization_barrier
// AUTO-NOT: stablehlo.optimization_barrier

// MIXED: sbp.recomputed_layers = [#builtin.int<0>, #builtin.int<1>], sbp.remat_policies = ["full", "dots"]
// MIXED: stablehlo.optimization_barrier %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}},
// MIXED: stablehlo.optimization_barrier %arg6, %arg0, %arg1, %arg2,

// BAD: policy must be full or dots, not 'some'

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<4x4xf32>, %arg3: tensor<4x8xf32>, %arg4: tensor<4x8xf32>, %arg5: tensor<4x4xf32>, %arg6: tensor<2x16x4xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<4x8xf32> {jax.result_info = "result[1][0][0]"}, tensor<4x8xf32> {jax.result_info = "result[1][0][1]"}, tensor<4x4xf32> {jax.result_info = "result[1][0][2]"}, tensor<4x8xf32> {jax.result_info = "result[1][1][0]"}, tensor<4x8xf32> {jax.result_info = "result[1][1][1]"}, tensor<4x4xf32> {jax.result_info = "result[1][1][2]"}) {
    %0 = stablehlo.dot_general %arg6, %arg0, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4xf32>, tensor<4x8xf32>) -> tensor<2x16x8xf32>
    %1 = stablehlo.dot_general %arg6, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4xf32>, tensor<4x8xf32>) -> tensor<2x16x8xf32>
    %2 = stablehlo.dot_general %arg6, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4xf32>, tensor<4x4xf32>) -> tensor<2x16x4xf32>
    %3 = stablehlo.dot_general %0, %1, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x16x8xf32>, tensor<2x16x8xf32>) -> tensor<2x16x16xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.maximum across dimensions = [2] : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x16xf32>
    %6 = stablehlo.maximum %5, %4 : tensor<2x16xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
    %9 = stablehlo.subtract %3, %8 : tensor<2x16x16xf32>
    %10 = stablehlo.exponential %9 : tensor<2x16x16xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%10 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
    %14 = stablehlo.divide %10, %13 : tensor<2x16x16xf32>
    %15 = stablehlo.multiply %12, %12 : tensor<2x16x1xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %17 = stablehlo.divide %16, %15 : tensor<2x16x1xf32>
    %18 = stablehlo.dot_general %14, %2, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x16xf32>, tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
    %19 = stablehlo.add %arg6, %18 : tensor<2x16x4xf32>
    %20 = stablehlo.dot_general %19, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4xf32>, tensor<4x8xf32>) -> tensor<2x16x8xf32>
    %21 = stablehlo.dot_general %19, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4xf32>, tensor<4x8xf32>) -> tensor<2x16x8xf32>
    %22 = stablehlo.dot_general %19, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4xf32>, tensor<4x4xf32>) -> tensor<2x16x4xf32>
    %23 = stablehlo.dot_general %20, %21, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x16x8xf32>, tensor<2x16x8xf32>) -> tensor<2x16x16xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %24 = stablehlo.reduce(%23 init: %cst_3) applies stablehlo.maximum across dimensions = [2] : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16xf32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x16xf32>
    %26 = stablehlo.maximum %25, %24 : tensor<2x16xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
    %29 = stablehlo.subtract %23, %28 : tensor<2x16x16xf32>
    %30 = stablehlo.exponential %29 : tensor<2x16x16xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = stablehlo.reduce(%30 init: %cst_5) applies stablehlo.add across dimensions = [2] : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
    %34 = stablehlo.divide %30, %33 : tensor<2x16x16xf32>
    %35 = stablehlo.multiply %32, %32 : tensor<2x16x1xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %37 = stablehlo.divide %36, %35 : tensor<2x16x1xf32>
    %38 = stablehlo.dot_general %34, %22, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x16xf32>, tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
    %39 = stablehlo.add %19, %38 : tensor<2x16x4xf32>
    %40 = stablehlo.multiply %39, %39 : tensor<2x16x4xf32>
    %cst_7 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x16x4xf32>
    %42 = stablehlo.multiply %41, %39 : tensor<2x16x4xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.reduce(%40 init: %cst_8) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x16x4xf32>, tensor<f32>) -> tensor<f32>
    %cst_9 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %44 = stablehlo.divide %43, %cst_9 : tensor<f32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_11 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %45 = stablehlo.divide %cst_10, %cst_11 : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %45, dims = [] : (tensor<f32>) -> tensor<2x16x4xf32>
    %47 = stablehlo.multiply %46, %42 : tensor<2x16x4xf32>
    %48 = stablehlo.dot_general %47, %34, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4xf32>, tensor<2x16x16xf32>) -> tensor<2x4x16xf32>
    %49 = stablehlo.transpose %48, dims = [0, 2, 1] : (tensor<2x4x16xf32>) -> tensor<2x16x4xf32>
    %50 = stablehlo.dot_general %47, %22, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4xf32>, tensor<2x16x4xf32>) -> tensor<2x16x16xf32>
    %51 = stablehlo.broadcast_in_dim %37, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
    %52 = stablehlo.multiply %50, %51 : tensor<2x16x16xf32>
    %53 = stablehlo.multiply %52, %30 : tensor<2x16x16xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %54 = stablehlo.reduce(%53 init: %cst_12) applies stablehlo.add across dimensions = [2] : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16xf32>
    %55 = stablehlo.reshape %54 : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %56 = stablehlo.negate %55 : tensor<2x16x1xf32>
    %57 = stablehlo.broadcast_in_dim %32, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
    %58 = stablehlo.divide %50, %57 : tensor<2x16x16xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %59 = stablehlo.reduce(%56 init: %cst_13) applies stablehlo.add across dimensions = [2] : (tensor<2x16x1xf32>, tensor<f32>) -> tensor<2x16xf32>
    %60 = stablehlo.broadcast_in_dim %59, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x16xf32>
    %61 = stablehlo.add %58, %60 : tensor<2x16x16xf32>
    %62 = stablehlo.multiply %61, %30 : tensor<2x16x16xf32>
    %63 = stablehlo.dot_general %62, %20, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x16xf32>, tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
    %64 = stablehlo.dot_general %62, %21, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x16xf32>, tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
    %65 = stablehlo.dot_general %49, %19, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4xf32>, tensor<2x16x4xf32>) -> tensor<4x4xf32>
    %66 = stablehlo.transpose %65, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %67 = stablehlo.dot_general %49, %arg5, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4xf32>, tensor<4x4xf32>) -> tensor<2x16x4xf32>
    %68 = stablehlo.add %47, %67 : tensor<2x16x4xf32>
    %69 = stablehlo.dot_general %63, %19, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x8xf32>, tensor<2x16x4xf32>) -> tensor<8x4xf32>
    %70 = stablehlo.transpose %69, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
    %71 = stablehlo.dot_general %63, %arg4, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x8xf32>, tensor<4x8xf32>) -> tensor<2x16x4xf32>
    %72 = stablehlo.add %68, %71 : tensor<2x16x4xf32>
    %73 = stablehlo.dot_general %64, %19, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x8xf32>, tensor<2x16x4xf32>) -> tensor<8x4xf32>
    %74 = stablehlo.transpose %73, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
    %75 = stablehlo.dot_general %64, %arg3, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x8xf32>, tensor<4x8xf32>) -> tensor<2x16x4xf32>
    %76 = stablehlo.add %72, %75 : tensor<2x16x4xf32>
    %77 = stablehlo.dot_general %76, %14, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4xf32>, tensor<2x16x16xf32>) -> tensor<2x4x16xf32>
    %78 = stablehlo.transpose %77, dims = [0, 2, 1] : (tensor<2x4x16xf32>) -> tensor<2x16x4xf32>
    %79 = stablehlo.dot_general %76, %2, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4xf32>, tensor<2x16x4xf32>) -> tensor<2x16x16xf32>
    %80 = stablehlo.broadcast_in_dim %17, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
    %81 = stablehlo.multiply %79, %80 : tensor<2x16x16xf32>
    %82 = stablehlo.multiply %81, %10 : tensor<2x16x16xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %83 = stablehlo.reduce(%82 init: %cst_14) applies stablehlo.add across dimensions = [2] : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16xf32>
    %84 = stablehlo.reshape %83 : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %85 = stablehlo.negate %84 : tensor<2x16x1xf32>
    %86 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
    %87 = stablehlo.divide %79, %86 : tensor<2x16x16xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %88 = stablehlo.reduce(%85 init: %cst_15) applies stablehlo.add across dimensions = [2] : (tensor<2x16x1xf32>, tensor<f32>) -> tensor<2x16xf32>
    %89 = stablehlo.broadcast_in_dim %88, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x16xf32>
    %90 = stablehlo.add %87, %89 : tensor<2x16x16xf32>
    %91 = stablehlo.multiply %90, %10 : tensor<2x16x16xf32>
    %92 = stablehlo.dot_general %91, %0, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x16xf32>, tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
    %93 = stablehlo.dot_general %91, %1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x16xf32>, tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
    %94 = stablehlo.dot_general %78, %arg6, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4xf32>, tensor<2x16x4xf32>) -> tensor<4x4xf32>
    %95 = stablehlo.transpose %94, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %96 = stablehlo.dot_general %92, %arg6, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x8xf32>, tensor<2x16x4xf32>) -> tensor<8x4xf32>
    %97 = stablehlo.transpose %96, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
    %98 = stablehlo.dot_general %93, %arg6, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x16x8xf32>, tensor<2x16x4xf32>) -> tensor<8x4xf32>
    %99 = stablehlo.transpose %98, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
    %cst_16 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %101 = stablehlo.multiply %100, %99 : tensor<4x8xf32>
    %102 = stablehlo.subtract %arg0, %101 : tensor<4x8xf32>
    %cst_17 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %103 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %104 = stablehlo.multiply %103, %97 : tensor<4x8xf32>
    %105 = stablehlo.subtract %arg1, %104 : tensor<4x8xf32>
    %cst_18 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %106 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %107 = stablehlo.multiply %106, %95 : tensor<4x4xf32>
    %108 = stablehlo.subtract %arg2, %107 : tensor<4x4xf32>
    %cst_19 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %109 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %110 = stablehlo.multiply %109, %74 : tensor<4x8xf32>
    %111 = stablehlo.subtract %arg3, %110 : tensor<4x8xf32>
    %cst_20 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %112 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %113 = stablehlo.multiply %112, %70 : tensor<4x8xf32>
    %114 = stablehlo.subtract %arg4, %113 : tensor<4x8xf32>
    %cst_21 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %115 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %116 = stablehlo.multiply %115, %66 : tensor<4x4xf32>
    %117 = stablehlo.subtract %arg5, %116 : tensor<4x4xf32>
    return %44, %102, %105, %108, %111, %114, %117 : tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x4xf32>
  }
}

