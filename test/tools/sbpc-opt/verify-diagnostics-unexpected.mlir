// RUN: not sbpc-opt %s --verify-diagnostics 2>&1 | filecheck %s

// CHECK: verify-diagnostics-unexpected.mlir:[[# @LINE + 2]]:23: error: unexpected error: use of undeclared SSA value %x
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
