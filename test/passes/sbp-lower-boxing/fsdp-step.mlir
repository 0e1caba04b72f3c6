// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal memory_budget=1507328},sbp-lower-boxing' | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal},sbp-lower-boxing' | filecheck %s --check-prefix=FREE

// FSDP found by the search (docs/memory.md, "FSDP's per-use gather"): the
// SGD step of test/sbpc/test_jax_fsdp.py (3 tanh layers of 256 x 256 f32
// weights, batch 1024 split over 8 devices), lowered by jax.jit.  Under
// half its replicated footprint (1507328 bytes) sbp-propagate stores the
// weights split and marks them sbp.gather_per_use, and sbp-lower-boxing
// gathers each before every product reading it whole: the forward's (the
// first at the start, the others fenced with the activation they
// multiply) and the backward's (fenced with the gradient they multiply).
// Without a budget nothing is marked and no barrier is written.

// CHECK: func.func @main(%arg0: tensor<256x256xf32> {{{.*}}sbp.gather_per_use}, %arg1: tensor<256x256xf32> {{{.*}}sbp.gather_per_use}, %arg2: tensor<256x256xf32> {{{.*}}sbp.gather_per_use}
// CHECK-NEXT: %[[W0:.*]] = sbp.all_gather %arg0
// CHECK-NEXT: stablehlo.dot_general %arg3, %[[W0]]
// CHECK: %[[S1:.*]], %[[H1:.*]] = stablehlo.optimization_barrier %arg1, %{{.*}}
// CHECK-NEXT: %[[W1:.*]] = sbp.all_gather %[[S1]]
// CHECK-NEXT: stablehlo.dot_general %[[H1]], %[[W1]]
// CHECK: %[[S2:.*]], %[[H2:.*]] = stablehlo.optimization_barrier %arg2, %{{.*}}
// CHECK-NEXT: %[[W2:.*]] = sbp.all_gather %[[S2]]
// CHECK-NEXT: stablehlo.dot_general %[[H2]], %[[W2]]
// CHECK: %[[T2:.*]], %[[G2:.*]] = stablehlo.optimization_barrier %arg2, %{{.*}}
// CHECK-NEXT: %[[B2:.*]] = sbp.all_gather %[[T2]]
// CHECK-NEXT: stablehlo.dot_general %[[G2]], %[[B2]], contracting_dims = [1] x [1]
// CHECK: %[[T1:.*]], %[[G1:.*]] = stablehlo.optimization_barrier %arg1, %{{.*}}
// CHECK-NEXT: %[[B1:.*]] = sbp.all_gather %[[T1]]
// CHECK-NEXT: stablehlo.dot_general %[[G1]], %[[B1]], contracting_dims = [1] x [1]

// FREE-NOT: sbp.gather_per_use
// FREE-NOT: optimization_barrier

module @jit_step attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3, 4, 5, 6, 7]>} {
  func.func @main(%arg0: tensor<256x256xf32>, %arg1: tensor<256x256xf32>, %arg2: tensor<256x256xf32>, %arg3: tensor<1024x256xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> (tensor<256x256xf32> {jax.result_info = "result[0]"}, tensor<256x256xf32> {jax.result_info = "result[1]"}, tensor<256x256xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.dot_general %arg3, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1024x256xf32>, tensor<256x256xf32>) -> tensor<1024x256xf32>
    %1 = stablehlo.tanh %0 : tensor<1024x256xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %3 = stablehlo.subtract %2, %1 : tensor<1024x256xf32>
    %4 = stablehlo.dot_general %1, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1024x256xf32>, tensor<256x256xf32>) -> tensor<1024x256xf32>
    %5 = stablehlo.tanh %4 : tensor<1024x256xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %7 = stablehlo.subtract %6, %5 : tensor<1024x256xf32>
    %8 = stablehlo.dot_general %5, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1024x256xf32>, tensor<256x256xf32>) -> tensor<1024x256xf32>
    %9 = stablehlo.tanh %8 : tensor<1024x256xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %11 = stablehlo.subtract %10, %9 : tensor<1024x256xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_3 = stablehlo.constant dense<2.621440e+05> : tensor<f32>
    %12 = stablehlo.divide %cst_2, %cst_3 : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<f32>) -> tensor<1024x256xf32>
    %14 = stablehlo.multiply %9, %13 : tensor<1024x256xf32>
    %15 = stablehlo.multiply %13, %9 : tensor<1024x256xf32>
    %16 = stablehlo.add %14, %15 : tensor<1024x256xf32>
    %17 = stablehlo.multiply %16, %11 : tensor<1024x256xf32>
    %18 = stablehlo.multiply %17, %9 : tensor<1024x256xf32>
    %19 = stablehlo.add %17, %18 : tensor<1024x256xf32>
    %20 = stablehlo.dot_general %19, %5, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1024x256xf32>, tensor<1024x256xf32>) -> tensor<256x256xf32>
    %21 = stablehlo.transpose %20, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %22 = stablehlo.dot_general %19, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<1024x256xf32>, tensor<256x256xf32>) -> tensor<1024x256xf32>
    %23 = stablehlo.multiply %22, %7 : tensor<1024x256xf32>
    %24 = stablehlo.multiply %23, %5 : tensor<1024x256xf32>
    %25 = stablehlo.add %23, %24 : tensor<1024x256xf32>
    %26 = stablehlo.dot_general %25, %1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1024x256xf32>, tensor<1024x256xf32>) -> tensor<256x256xf32>
    %27 = stablehlo.transpose %26, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %28 = stablehlo.dot_general %25, %arg1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<1024x256xf32>, tensor<256x256xf32>) -> tensor<1024x256xf32>
    %29 = stablehlo.multiply %28, %3 : tensor<1024x256xf32>
    %30 = stablehlo.multiply %29, %1 : tensor<1024x256xf32>
    %31 = stablehlo.add %29, %30 : tensor<1024x256xf32>
    %32 = stablehlo.dot_general %31, %arg3, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1024x256xf32>, tensor<1024x256xf32>) -> tensor<256x256xf32>
    %33 = stablehlo.transpose %32, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %cst_4 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %35 = stablehlo.multiply %34, %33 : tensor<256x256xf32>
    %36 = stablehlo.subtract %arg0, %35 : tensor<256x256xf32>
    %cst_5 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %38 = stablehlo.multiply %37, %27 : tensor<256x256xf32>
    %39 = stablehlo.subtract %arg1, %38 : tensor<256x256xf32>
    %cst_6 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %41 = stablehlo.multiply %40, %21 : tensor<256x256xf32>
    %42 = stablehlo.subtract %arg2, %41 : tensor<256x256xf32>
    return %36, %39, %42 : tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>
  }
}

