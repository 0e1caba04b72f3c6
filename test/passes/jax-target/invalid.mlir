// RUN: not sbpc-opt %s -p sbp-propagate,sbp-lower-boxing -t jax 2>&1 | filecheck %s
// RUN: not sbpc-opt %s -t jax 2>&1 | filecheck %s --check-prefix=UNBOXED

// What the JAX lowering cannot express is a located error, never broken Python.
// CHECK: invalid.mlir:[[# @LINE + 6]]:5: error: cannot lower to JAX: the JAX emitter has no lowering for 'stablehlo.tan'
// CHECK-NOT: Traceback
// CHECK-NOT: import jax
// UNBOXED: invalid.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: argument #0 has no sbp.nd_sbp: run sbp-propagate
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @main(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = stablehlo.tan %a : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
