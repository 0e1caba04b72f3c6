// sbp-propagate's report of a pipelined step adds the pipeline: each stage's
// ops, modelled times (forward and backward per microbatch, before and after
// the loop), stash, microbatches in flight and memory per device, the moves
// between stages, the step and its bubble, and the other schedule's step and
// memory; the HTML page draws the loop's schedule, one row per stage.
// RUN: sbpc-opt %s -p 'sbp-pipeline{stages=2 microbatches=4},sbp-propagate{report=- report_format=text}' -o /dev/null 2>&1 | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-pipeline{stages=2 microbatches=4},sbp-propagate{report=- report_format=html}' -o /dev/null 2>&1 | filecheck %s --check-prefix=HTML

// CHECK: // sbp-propagate @main on cpu, [0, 1]
// CHECK: // sbp-propagate @main on cpu, [2, 3]
// CHECK: pipeline: 2 stage(s) x 4 microbatch(es), schedule 1f1b: step {{.*}} (loop {{.*}}, bubble {{.*}}%; equal stages: 20.0%), peak memory {{.*}} per device
// CHECK-NEXT: stage  devices  ops    fwd/mb     bwd/mb     before     after      stash/mb   in flight  memory
// CHECK-NEXT: 0      2        {{[0-9]+ +[0-9.e+-]+ [mun]?s +[0-9.e+-]+ [mun]?s}}
// 1F1B: stage 0 keeps 2 microbatches in flight, stage 1 one.
// CHECK-SAME: {{ 2 +[0-9.]+ B}}
// CHECK-NEXT: 1      2        {{.*}} 1 {{ +}}{{[0-9.]+ B}}
// CHECK-NEXT: move per microbatch: s0.fwd -> stage 1: {{.*}}
// CHECK-NEXT: move per microbatch: s1.bwd -> stage 0: {{.*}}
// CHECK-NEXT: under gpipe: step {{.*}}, peak memory {{.*}} per device

// HTML: <section id="pipeline"><h2>Pipeline schedule</h2><pre>pipeline: 2 stage(s) x 4 microbatch(es)
// HTML: </pre><svg
// HTML-SAME: F0.0
// HTML-SAME: B1.3
// HTML-SAME: </svg></section>

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
