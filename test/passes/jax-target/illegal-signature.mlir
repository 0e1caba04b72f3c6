// Found by the fuzzer (issue 36): `-t jax` without sbp-lower-boxing emitted
// an op under a hand-written signature that is not one of its legal ones
// (exp of a partial sum is not the sum of the exps): a program with wrong
// numbers.  The JAX target refuses it at the op, as sbp-lower-boxing does.
// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -t jax > /dev/null
// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p sbp-inline -t jax > /dev/null
// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p sbp-lower-boxing -t jax > /dev/null

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @illegal_sig(%a: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[P]>}) -> tensor<4x8xf32> {
    // expected-error @below {{sbp.sig ([P(sum)]) -> ([P(sum)]) is not a legal signature of 'stablehlo.exponential'}}
    %0 = stablehlo.exponential %a {sbp.sig = #sbp.sig<([P]) -> ([P])>} : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cpu, [[0, 1], [2, 3]]>} {
  func.func @split_contracted(%a: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[B, S(1)]>}, %b: tensor<8x4xf32> {sbp.nd_sbp = #sbp.nd<[B, B]>}) -> tensor<4x4xf32> {
    // expected-error @below {{sbp.sig ([B, S(1)], [B, B]) -> ([B, S(1)]) is not a legal signature of 'stablehlo.dot_general'}}
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([B, S(1)], [B, B]) -> ([B, S(1)])>} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}
