// RUN: sbpc-opt %s -p sbp-inline --verify-diagnostics | filecheck %s

// Public functions are entry points: calls to them stay, and they stay.
// A recursive private function cannot be inlined: it stays, with a warning.

// CHECK-LABEL: func.func public @main
// CHECK:         %0 = func.call @helper(%arg0)
// CHECK:         %1 = func.call @loop(%0)
// CHECK:       func.func public @helper
// CHECK:       func.func private @loop
// CHECK-NOT:   func.func private @unused
func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @helper(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @loop(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func public @helper(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
// expected-warning @below {{cannot inline recursive function @loop}}
func.func private @loop(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @loop(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @unused(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
