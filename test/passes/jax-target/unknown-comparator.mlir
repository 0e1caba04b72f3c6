// RUN: not sbpc-opt %s -p sbp-propagate,sbp-lower-boxing -t jax 2>&1 | filecheck %s

// A sort comparator that is not lax.sort's total order (here IEEE LT, which
// orders -0.0 before 0.0 and leaves NaN unordered), or a select_and_scatter
// whose select is not a plain GE/LE compare, has no JAX form: a located error.
// CHECK: unknown-comparator.mlir:[[# @LINE + 4]]:5: error: cannot lower to JAX: 'stablehlo.sort': only comparators that are lax.sort's ascending lexicographic order have a JAX form
// CHECK-NOT: Traceback
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @main(%v: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = "stablehlo.sort"(%v) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
