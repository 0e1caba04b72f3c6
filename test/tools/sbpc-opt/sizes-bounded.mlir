// Issue 36, row H and its siblings: sizes are bounded before anything is
// allocated from them.  A mesh of 2^31 x 4 devices parsed by listing its
// 8.6e9 device ids (a MemoryError, or the machine taken down); a dense splat
// is expanded element by element by xDSL; a tensor's bytes priced as floats.
// RUN: not sbpc-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: not sbpc-opt %s --split-input-file -p sbp-import-sdy 2>&1 | filecheck %s --check-prefix=IMPORT

// CHECK: sdy.mesh @mesh = <["x"=2147483648, "y"=4]>
// IMPORT: sizes-bounded.mlir:[[# @LINE + 1]]:1: error: mesh #sdy.mesh<["x"=2147483648, "y"=4]>: 8589934592 devices are more than 1048576
module {
  sdy.mesh @mesh = <["x"=2147483648, "y"=4]>
  func.func @main(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
    return %a : tensor<8xf32>
  }
}

// -----

// CHECK: sdy.mesh @mesh = <["x"=2, "y"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>
module {
  sdy.mesh @mesh = <["x"=2, "y"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>
}

// -----

// RUN: sbpc-opt %s --split-input-file --verify-diagnostics > /dev/null
func.func @splat() -> tensor<1099511627776xf32> {
  // expected-error @below {{a dense literal of 1099511627776 elements is more than sbpc reads (67108864}}
  %c = stablehlo.constant dense<1.0> : tensor<1099511627776xf32>
  return %c : tensor<1099511627776xf32>
}

// -----

func.func @bytes(%a: tensor<4611686018427387904xf32>) -> tensor<4611686018427387904xf32> {
  // expected-error @below {{tensor<4611686018427387904xf32> is too large for sbpc: 18446744073709551616 bytes are more than 2^63 - 1}}
  %0 = stablehlo.exponential %a : tensor<4611686018427387904xf32>
  return %0 : tensor<4611686018427387904xf32>
}

// -----

// expected-error @below {{is too large for sbpc: rank 65 is more than 64 dimensions}}
func.func @rank(%a: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>) {
  return
}

// -----

// Found by the fuzzer: a generic-form func.func without its properties (the
// size check read its signature unverified: an internal KeyError).
module {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{Expected 0 operands, but got 1}}
    %0 = "func.func"(%a) : (tensor<8x16xf32>) -> tensor<8x8xf32>
    func.return
  }
}
