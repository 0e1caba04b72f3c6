// Crashes the fuzzer (test/fuzz/harness.py, `make fuzz`) found, each now a
// located error. Run with --no-sbp-verify too: the passes check what they
// trust even when the user skipped the verifier.
// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p sbp-inline,sbp-propagate,sbp-lower-boxing
// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p sbp-inline,sbp-propagate,sbp-lower-boxing --no-sbp-verify

// A value used by the op defining it parsed into a cycle; placement
// resolution then recursed until RecursionError.
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @self_use(%a: tensor<8xf32>) {
    // expected-error @below {{operand #0 does not dominate this use (it is defined by this op)}}
    %0 = sbp.cast %0 to #sbp.nd<[S(0)]> : tensor<8xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @used_before_defined(%a: tensor<8xf32>) -> tensor<8xf32> {
    // expected-error @below {{operand #1 does not dominate this use (it is defined later)}}
    %0 = stablehlo.add %a, %1 : tensor<8xf32>
    %1 = stablehlo.add %a, %0 : tensor<8xf32>
    return %1 : tensor<8xf32>
  }
}

// -----

// An unterminated string: xDSL's string regex backtracked exponentially over
// the rest of the line (minutes); now a parse error at once.
func.func @reduce(%a: tensor<8x16xf32>, %z: tensor<f32>) -> tensor<8xf32> {
  // expected-error @below {{End of file reached before closing string literal}}
  %0 = stablehlo.reduce(%a init: %z) " stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// With --no-sbp-verify an argument layout of the wrong rank reached the
// graph bridge (internal GraphError).
module attributes {sbp.placement = #sbp.placement<cpu, [[0, 1], [2, 3]]>} {
  // expected-error @below {{sbp.nd_sbp of argument 0: [S(0)] has 1 entry, but the placement (cpu, 2x2) has 2 hierarchy dimensions}}
  func.func @arg_rank(%a: tensor<8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> tensor<8xf32> {
    return %a : tensor<8xf32>
  }
}

// -----

// ... and a signature of the wrong rank reached the layout algebra (internal
// ValueError from zip).
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @sig_rank(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @below {{layout of operand 0 [S(0), B] has 2 entries, but the placement (cpu, 2) has 1 hierarchy dimension}}
    %0 = stablehlo.exponential %a {sbp.sig = #sbp.sig<([S(0), B]) -> ([S(0), B])>} : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}

// -----

// An operand named as its own op's region argument: the parser read the
// operand first, took the argument as its definition and left the forward
// placeholder in the op (an internal error at the first verifier; seed 777).
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @in_loop(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @below {{use of undeclared SSA value %x}}
    %0 = stablehlo.while(%x = %x) : tensor<4x8xf32>
    cond {
      %t = stablehlo.constant dense<false> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      stablehlo.return %x : tensor<4x8xf32>
    }
    return %0 : tensor<4x8xf32>
  }
}
