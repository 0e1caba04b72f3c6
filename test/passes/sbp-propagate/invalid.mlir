// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p sbp-propagate

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @illegal(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<4x6xf32> {
    // S(0) on both sides of a matmul is not a signature (seed 000).
    // expected-error @below {{sbp.sig ([S(0)], [S(0)]) -> ([S(0)]) is not a legal signature of 'stablehlo.dot_general'; legal signatures:}}
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)])>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
    return %0 : tensor<4x6xf32>
  }
}

// -----

// expected-error @below {{no placement: add sbp.placement to the module}}
func.func @no_placement(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.exponential %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @wrong_rank_of_sig(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @below {{layout of operand 0 [S(0), B] has 2 entries, but the placement (cpu, 2) has 1 hierarchy dimension}}
    %0 = stablehlo.exponential %a {sbp.sig = #sbp.sig<([S(0), B]) -> ([S(0), B])>} : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
