// Found by the fuzzer (issue 36): softmax attention on an empty batch
// reduces an empty dim with max; `jnp.max` refuses an empty dim ("zero-size
// array to reduction operation max which has no identity"), so the emitted
// program did not run.  Max and min reductions go through lax's, whose
// identity leaves the init.
// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' -t jax | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' -t jax -o %t.py
// RUN: env XLA_FLAGS=--xla_force_host_platform_device_count=8 %python %t.py | filecheck %s --check-prefix=EXEC

// CHECK: lax.reduce_max(
// CHECK: lax.reduce_min(
// EXEC: ok
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @main(%x: tensor<4x0xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}, %y: tensor<4x0xi32> {sbp.nd_sbp = #sbp.nd<[B]>}, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %big = stablehlo.constant dense<7> : tensor<i32>
    %0 = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x0xf32>, tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.reduce(%y init: %big) applies stablehlo.minimum across dimensions = [1] : (tensor<4x0xi32>, tensor<i32>) -> tensor<4xi32>
    %2 = stablehlo.add %0, %z : tensor<4xf32>
    return %2, %1 : tensor<4xf32>, tensor<4xi32>
  }
}
