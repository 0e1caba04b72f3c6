// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p sbp-lower-boxing


module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @not_propagated(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @below {{operand has no known layout: run sbp-propagate before sbp-lower-boxing}}
    %0 = stablehlo.exponential %a {sbp.sig = #sbp.sig<([B]) -> ([B])>} : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @bad_placement(%a: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[B]>}) -> tensor<4x8xf32> {
    // expected-error @below {{rank 1 appears more than once}}
    %0 = sbp.cast %a to #sbp.nd<[B]> on #sbp.placement<cpu, [1, 1]> : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @illegal_sig(%a: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[P]>}) -> tensor<4x8xf32> {
    // exp of a partial sum is not the sum of exps: a hand-written signature
    // that would compute wrong numbers is refused.
    // expected-error @below {{sbp.sig ([P(sum)]) -> ([P(sum)]) is not a legal signature of 'stablehlo.exponential'}}
    %0 = stablehlo.exponential %a {sbp.sig = #sbp.sig<([P]) -> ([P])>} : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
