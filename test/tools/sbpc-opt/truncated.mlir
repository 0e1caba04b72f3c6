// RUN: not sbpc-opt %s 2>&1 | filecheck %s
// CHECK: truncated.mlir:[[# @LINE + 4]]:1: error: unexpected end of input
// CHECK-NOT: Traceback
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
