// RUN: xdsl-opt %s -p sbp-inline | filecheck %s

// sbpc is an xDSL plugin (entry point `xdsl.universe`): plain xdsl-opt runs
// its passes.

// CHECK:     func.func public @main
// CHECK-NEXT:  %0 = arith.mulf %arg0, %arg0 : tensor<4xf32>
// CHECK-NOT: func.func private
func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @square(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @square(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %arg0, %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
