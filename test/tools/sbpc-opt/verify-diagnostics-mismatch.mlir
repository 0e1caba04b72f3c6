// RUN: not sbpc-opt %s --verify-diagnostics 2>&1 | filecheck %s

// --verify-diagnostics fails when an expected diagnostic is missing and when
// an unexpected one appears, as in mlir-opt.

// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]: error: expected error "this is never produced" on line [[# @LINE + 1]] was not produced
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @above {{this is never produced}}
  return %a : tensor<4xf32>
}
