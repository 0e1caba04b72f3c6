// Options are checked as the pipeline is parsed; a stage count the stage axis
// cannot hold is an error at the module.
// RUN: not sbpc-opt %s -p 'sbp-pipeline{stages=-1}' 2>&1 | filecheck %s --check-prefix=STAGES
// RUN: not sbpc-opt %s -p 'sbp-pipeline{microbatches=-1}' 2>&1 | filecheck %s --check-prefix=MICRO
// RUN: not sbpc-opt %s -p 'sbp-pipeline{schedule=zigzag}' 2>&1 | filecheck %s --check-prefix=SCHEDULE
// RUN: not sbpc-opt %s -p 'sbp-pipeline{cost_model="bw=0"}' 2>&1 | filecheck %s --check-prefix=COST
// RUN: not sbpc-opt %s -p 'sbp-pipeline{stages=4 microbatches=2}' 2>&1 | filecheck %s --check-prefix=AXIS
// RUN: not sbpc-opt %s -p 'sbp-pipeline{stages=3 microbatches=2}' 2>&1 | filecheck %s --check-prefix=CUT

// STAGES: sbpc-opt: error: stages must be a whole number >= 1 (0: searched), not -1
// MICRO: sbpc-opt: error: microbatches must be a whole number >= 1 (0: searched), not -1
// SCHEDULE: sbpc-opt: error: unknown schedule 'zigzag', expected one of gpipe, 1f1b, auto
// COST: sbpc-opt: error: bad cost_model option
// AXIS: bad-options.mlir:[[# @LINE + 2]]:1: error: 4 stages do not divide the stage axis (mesh dim 0, of size 6) of the 6 mesh
// CUT: bad-options.mlir:[[# @LINE + 2]]:3: error: cannot cut the step into 3 stages: its forward has 2 places where parameters start being used
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3, 4, 5]>} {
  func.func @main(%w1: tensor<4x4xf32>, %w2: tensor<4x4xf32>, %x: tensor<8x4xf32>) -> (tensor<f32>, tensor<4x4xf32>) {
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    %y = stablehlo.dot_general %h, %w2, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %r = stablehlo.reduce(%y init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<f32>
    return %r, %w1 : tensor<f32>, tensor<4x4xf32>
  }
}
