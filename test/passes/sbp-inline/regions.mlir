// RUN: sbpc-opt %s -p sbp-inline | filecheck %s

// jax.jit puts a loop body's work in a private helper called from the body
// (lax.scan, fori_loop, the threefry hash); the helper may return some of its
// arguments unchanged.  Inlining reaches into regions, and a returned
// argument becomes the caller's operand.

// CHECK-LABEL: func.func public @main
// CHECK:       stablehlo.while(%[[I:.*]] = %c, %[[X:[a-zA-Z0-9_]+]] = %arg0, %[[K:[a-zA-Z0-9_]+]] = %arg1)
// CHECK:       } do {
// CHECK-NEXT:    %[[M:.*]] = stablehlo.multiply %[[X]], %[[K]] : tensor<4xf32>
// CHECK-NEXT:    %[[ONE:.*]] = stablehlo.constant dense<1> : tensor<i32>
// CHECK-NEXT:    %[[N:.*]] = stablehlo.add %[[I]], %[[ONE]] : tensor<i32>
// CHECK-NEXT:    stablehlo.return %[[N]], %[[M]], %[[K]] : tensor<i32>, tensor<4xf32>, tensor<4xf32>
// CHECK-NOT:   func.func private
func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0:3 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0, %iterArg_1 = %arg1) : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  cond {
    %c_1 = stablehlo.constant dense<3> : tensor<i32>
    %1 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1:2 = func.call @closed_call(%iterArg_0, %iterArg_1) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>
    stablehlo.return %2, %1#0, %1#1 : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  }
  return %0#1 : tensor<4xf32>
}
func.func private @closed_call(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.multiply %arg0, %arg1 : tensor<4xf32>
  return %0, %arg1 : tensor<4xf32>, tensor<4xf32>
}
