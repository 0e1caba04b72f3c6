// RUN: sbpc-opt %s -p sbp-inline | filecheck %s

// Nested private helpers (as jax.jit emits them) are inlined transitively and
// then erased; the caller's value names survive.

// CHECK-LABEL: func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %0 = arith.addf %arg0, %arg0 : tensor<4xf32>
// CHECK-NEXT:    %1 = arith.mulf %0, %0 : tensor<4xf32>
// CHECK-NEXT:    %2 = arith.addf %1, %1 : tensor<4xf32>
// CHECK-NEXT:    %3 = arith.mulf %2, %2 : tensor<4xf32>
// CHECK-NEXT:    func.return %3 : tensor<4xf32>
// CHECK-NOT:   func.func private
func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @twice_squared(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @twice_squared(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @twice_squared(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @add(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = arith.mulf %0, %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
