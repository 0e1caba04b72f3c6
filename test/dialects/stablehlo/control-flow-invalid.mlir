// RUN: sbpc-opt %s --verify-diagnostics --split-input-file

// Control-flow verifiers report at the op.

func.func @while_body_types(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{stablehlo.while: the body must end in stablehlo.return of the carried values' types}}
  %0 = stablehlo.while(%x = %a) : tensor<8xf32>
  cond {
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %c = stablehlo.constant dense<1.0> : tensor<4xf32>
    stablehlo.return %c : tensor<4xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

func.func @while_cond_type(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{stablehlo.while: the cond region must end in stablehlo.return of one tensor<i1>}}
  %0 = stablehlo.while(%x = %a) : tensor<8xf32>
  cond {
    stablehlo.return %x : tensor<8xf32>
  } do {
    stablehlo.return %x : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

func.func @case_index(%i: tensor<i64>, %a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{stablehlo.case: the index must be a tensor<i32>}}
  %0 = "stablehlo.case"(%i) ({
    stablehlo.return %a : tensor<8xf32>
  }) : (tensor<i64>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @case_branch(%i: tensor<i32>, %a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{stablehlo.case: branch 1 must end in stablehlo.return of the results' types}}
  %0 = "stablehlo.case"(%i) ({
    stablehlo.return %a : tensor<8xf32>
  }, {
    %c = stablehlo.constant dense<1.0> : tensor<4xf32>
    stablehlo.return %c : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @bitcast_shape(%a: tensor<8xui32>) -> tensor<4xf32> {
  // expected-error @+1 {{stablehlo.bitcast_convert: same-width conversion must keep the shape}}
  %0 = stablehlo.bitcast_convert %a : (tensor<8xui32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
