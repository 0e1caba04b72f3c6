// sbp-pipeline with two stages on a 2x2 mesh: the stage axis (the first)
// is cut into two placements of 2 devices.  The first layer's forward, its
// weight and its update (and its gradient, which needs the batch) are
// stage 0's; the second layer, the loss and their backward are stage 1's.
// Activations go forward and their gradient back by casts onto the other
// stage; the program's order is stage 0's forward, stage 1's forward and
// backward, stage 0's backward.
// RUN: sbpc-opt %s -p 'sbp-pipeline{stages=2 microbatches=2 schedule=gpipe}' | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-pipeline{stages=2 microbatches=2},sbp-propagate,sbp-lower-boxing' | filecheck %s --check-prefix=BOXED

// CHECK: func.func @main(%arg0: tensor<4x4xf32> {sbp.placement = #sbp.placement<cpu, [0, 1]>}, %arg1: tensor<4x2xf32> {sbp.placement = #sbp.placement<cpu, [2, 3]>}, %arg2: tensor<8x4xf32> {sbp.placement = #sbp.placement<cpu, [0, 1]>}, %arg3: tensor<8x2xf32> {sbp.placement = #sbp.placement<cpu, [2, 3]>})
// CHECK-SAME: sbp.pipeline = {stages = 2 : i64, microbatches = 2 : i64, schedule = "gpipe"}
// CHECK: %[[X:.*]] = sbp.microbatch %arg2 along 0 {sbp.phase = "fwd", sbp.stage = 0 : i64}
// CHECK: %[[Y:.*]] = sbp.microbatch %arg3 along 0 {sbp.phase = "fwd", sbp.stage = 1 : i64}
// CHECK: %[[H0:.*]] = stablehlo.dot_general %[[X]], %arg0, {{.*}}{sbp.phase = "fwd", sbp.stage = 0 : i64}
// CHECK: %[[H:.*]] = stablehlo.tanh %[[H0]] {sbp.phase = "fwd", sbp.stage = 0 : i64}
// CHECK: %[[H1:.*]] = sbp.cast %[[H]] to #sbp.nd<[S(0)]> on #sbp.placement<cpu, [2, 3]> {sbp.phase = "fwd", sbp.stage = 1 : i64} : tensor<4x4xf32>
// CHECK: stablehlo.dot_general %[[H1]], %arg1, {{.*}}{sbp.phase = "fwd", sbp.stage = 1 : i64}
// CHECK: stablehlo.reduce{{.*}}{sbp.phase = "fwd", sbp.stage = 1 : i64}
// CHECK: %[[DH:.*]] = stablehlo.dot_general {{.*}}, %arg1, {{.*}}{sbp.phase = "bwd", sbp.stage = 1 : i64}
// CHECK: %[[DH0:.*]] = sbp.cast %[[DH]] to #sbp.nd<[S(0)]> on #sbp.placement<cpu, [0, 1]> {sbp.phase = "bwd", sbp.stage = 0 : i64}
// CHECK: %[[G1:.*]] = stablehlo.dot_general {{.*}}, %[[X]], {{.*}}{sbp.phase = "bwd", sbp.stage = 0 : i64}
// CHECK-NEXT: %[[G1SUM:.*]] = sbp.accumulate %[[G1]] {sbp.phase = "bwd", sbp.stage = 0 : i64}
// CHECK: %[[T:.*]] = stablehlo.transpose %[[G1SUM]], {{.*}}{sbp.phase = "post", sbp.stage = 0 : i64}
// CHECK: stablehlo.subtract %arg0, {{.*}}{sbp.phase = "post", sbp.stage = 0 : i64}
// CHECK: stablehlo.subtract %arg1, {{.*}}{sbp.phase = "post", sbp.stage = 1 : i64}

// Boxing turns each stage crossing into a transfer between the placements.
// BOXED: sbp.transfer %{{.*}} from #sbp.placement<cpu, [0, 1]> [S(0)] to #sbp.placement<cpu, [2, 3]> [S(0)]
// BOXED: sbp.transfer %{{.*}} from #sbp.placement<cpu, [2, 3]> [S(0)] to #sbp.placement<cpu, [0, 1]> [S(0)]

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
