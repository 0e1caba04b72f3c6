// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p 'sbp-pipeline{microbatches=2}'

// Batch normalization: the batch's mean is used inside the step, on every
// example; one microbatch at a time cannot see it.
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @main(%x: tensor<8x4xf32> {sbp.batch_dim = 0 : i64}) -> tensor<8x4xf32> {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %mean = stablehlo.broadcast_in_dim %sum, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>
    // expected-error @below {{'stablehlo.subtract' needs operand #1 summed over the whole batch while it runs on one microbatch (operand #0): a statistic of the batch used inside the step (batch normalization) makes the step impossible to microbatch}}
    %y = stablehlo.subtract %x, %mean : tensor<8x4xf32>
    return %y : tensor<8x4xf32>
  }
}

// -----

// A scan along the batch (a cumulative sum) needs the whole batch.
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @main(%x: tensor<8x4xf32>) -> tensor<f32> {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    // expected-error @below {{'stablehlo.reduce_window' needs its operand #0 whole, but it is split over microbatches along dim 0}}
    %c = "stablehlo.reduce_window"(%x, %zero) <{window_dimensions = array<i64: 8, 1>, padding = dense<[[7, 0], [0, 0]]> : tensor<2x2xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
    %r = stablehlo.reduce(%c init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<f32>
    return %r : tensor<f32>
  }
}

// -----

// A step returns values of the whole batch, not of one microbatch.
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  // expected-error @below {{result #0 is per microbatch (split over time along dim 0): a step must return values of the whole batch}}
  func.func @main(%x: tensor<8x4xf32> {sbp.batch_dim = 0 : i64}) -> tensor<8x4xf32> {
    %y = stablehlo.tanh %x : tensor<8x4xf32>
    return %y : tensor<8x4xf32>
  }
}

// -----

// Nothing to split: every argument is also a result's type.
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  // expected-error @below {{no batch argument to split into microbatches: mark them with {sbp.batch_dim = <dim>}}}
  func.func @main(%w: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %y = stablehlo.tanh %w : tensor<4x4xf32>
    return %y : tensor<4x4xf32>
  }
}

// -----

// The batch dim must split into the microbatches evenly.
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  // expected-error @below {{2 microbatches do not divide the batch dim 0 of an argument of type tensor<3x4xf32>}}
  func.func @main(%x: tensor<3x4xf32> {sbp.batch_dim = 0 : i64}) -> tensor<f32> {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %r = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<f32>
    return %r : tensor<f32>
  }
}
