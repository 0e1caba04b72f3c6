// sbp-pipeline{stages=0 microbatches=0 schedule=auto}: stages, microbatches
// and schedule searched together with the layouts (each candidate planned by
// the strategy, boxed and priced); the fastest that fits the memory budget is
// kept and the table stays on the function as sbp.pipeline_search.  The
// two-layer MLP's unpipelined plan needs 576 B per device: under a budget of
// 450 B, only microbatched plans fit (1F1B keeps fewer microbatches in flight
// than GPipe), and the search takes one.
// RUN: sbpc-opt %s -p 'sbp-pipeline{stages=0 microbatches=0 schedule=auto memory_budget=450}' | filecheck %s
// A budget nothing fits is an error with the table.
// RUN: not sbpc-opt %s -p 'sbp-pipeline{stages=0 microbatches=0 schedule=auto memory_budget=100}' 2>&1 | filecheck %s --check-prefix=NONE

// CHECK: sbp.pipeline_search = "pipeline search (memory budget 450 B per device):\0A  no pipeline {{ +}}step {{[^\\]*}}(over the budget by {{[^)]*}})\0A
// CHECK-SAME: \0A* {{[12]}} stage(s) x {{[248]}} microbatch(es), {{gpipe|1f1b}} {{ +}}step {{[^\\(]*}}\0A
// CHECK-SAME: sbp.pipeline = {stages = {{[12]}} : i64, microbatches = {{[248]}} : i64, schedule = "{{gpipe|1f1b}}"}
// CHECK: sbp.microbatch %arg2 along 0

// NONE: error: no pipeline fits the memory budget:
// NONE-NEXT: pipeline search (memory budget 100 B per device):
// NONE-NEXT: no pipeline {{.*}} (over the budget by
module attributes {sbp.placement = #sbp.placement<cpu, [[0, 1], [2, 3]]>} {
  func.func @main(%arg0: tensor<4x4xf32>, %arg1: tensor<4x2xf32>, %arg2: tensor<8x4xf32>, %arg3: tensor<8x2xf32>) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x2xf32>) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    %1 = stablehlo.tanh %0 : tensor<8x4xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %3 = stablehlo.subtract %2, %1 : tensor<8x4xf32>
    %4 = stablehlo.dot_general %1, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
    %5 = stablehlo.subtract %4, %arg3 : tensor<8x2xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<8x2xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x2xf32>
    %8 = stablehlo.multiply %7, %5 : tensor<8x2xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %10 = stablehlo.divide %9, %cst_2 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_4 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %11 = stablehlo.divide %cst_3, %cst_4 : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<f32>) -> tensor<8x2xf32>
    %13 = stablehlo.multiply %12, %8 : tensor<8x2xf32>
    %14 = stablehlo.dot_general %13, %1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x2xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %15 = stablehlo.transpose %14, dims = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %16 = stablehlo.dot_general %13, %arg1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x2xf32>, tensor<4x2xf32>) -> tensor<8x4xf32>
    %17 = stablehlo.multiply %16, %3 : tensor<8x4xf32>
    %18 = stablehlo.multiply %17, %1 : tensor<8x4xf32>
    %19 = stablehlo.add %17, %18 : tensor<8x4xf32>
    %20 = stablehlo.dot_general %19, %arg2, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %21 = stablehlo.transpose %20, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %cst_5 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %23 = stablehlo.multiply %22, %21 : tensor<4x4xf32>
    %24 = stablehlo.subtract %arg0, %23 : tensor<4x4xf32>
    %cst_6 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x2xf32>
    %26 = stablehlo.multiply %25, %15 : tensor<4x2xf32>
    %27 = stablehlo.subtract %arg1, %26 : tensor<4x2xf32>
    return %10, %24, %27 : tensor<f32>, tensor<4x4xf32>, tensor<4x2xf32>
  }
}
