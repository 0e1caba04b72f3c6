// RUN: not sbpc-opt %s 2>&1 | filecheck %s
// RUN: not sbpc-opt < %s 2>&1 | filecheck %s --check-prefix=STDIN

// Without --verify-diagnostics an error is one MLIR-style line, the source
// line and a caret, exit status 1, and no traceback.
// CHECK: errors-are-located.mlir:[[# @LINE + 6]]:23: error: use of undeclared SSA value %x
// CHECK-NEXT: {{^}}  %0 = arith.addf %a, %x : tensor<4xf32>
// CHECK-NEXT: {{^}}                      ^
// CHECK-NOT: Traceback
// STDIN: <stdin>:[[# @LINE + 2]]:23: error: use of undeclared SSA value %x
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
