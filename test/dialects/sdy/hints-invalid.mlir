// RUN: sbpc-opt %s --verify-diagnostics --split-input-file

func.func @direction(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sdy.propagation_barrier: allowed_direction must be one of BOTH, FORWARD, BACKWARD, NONE}}
  %0 = sdy.propagation_barrier %arg0 allowed_direction=UP : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @group_type(%arg0: tensor<8xf32>) {
  // expected-error @+1 {{sdy.sharding_group: type must be one of AS, OS}}
  sdy.sharding_group %arg0 group_id=1 type=XY : tensor<8xf32>
  return
}

// -----

func.func @body_types(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sdy.named_computation: the body must end in sdy.return of the results' types}}
  %0 = sdy.named_computation<"f">(%arg0) (%arg1: tensor<8xf32>) {
    %1 = stablehlo.reshape %arg1 : (tensor<8xf32>) -> tensor<2x4xf32>
    sdy.return %1 : tensor<2x4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @unsized_factor(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sdy.op_sharding_rule: factor 'j' has no size}}
  %0 = stablehlo.negate %arg0 {sdy.sharding_rule = #sdy.op_sharding_rule<([i])->([j]) {i=8}>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @bad_factor(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'iJ' is not a list of factor names}}
  %0 = stablehlo.negate %arg0 {sdy.sharding_rule = #sdy.op_sharding_rule<([iJ])->([i]) {i=8}>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
