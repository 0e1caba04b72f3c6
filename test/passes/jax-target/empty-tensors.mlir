// Found by the fuzzer (issue 36): a training step whose batch is 0 planned a
// reduce-scatter of an empty tensor, which XLA refuses ("result dimension
// size at scatter_dimension cannot be zero"): the emitted program did not
// run.  A collective on an empty piece now moves nothing; run alone or with
// combining, the program equals its unsharded reference.
// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' -t jax | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' -t jax -o %t.py
// RUN: env XLA_FLAGS=--xla_force_host_platform_device_count=8 %python %t.py | filecheck %s --check-prefix=EXEC
// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' -t 'jax{combine-bytes=0}' -o %t.alone.py
// RUN: env XLA_FLAGS=--xla_force_host_platform_device_count=8 %python %t.alone.py | filecheck %s --check-prefix=EXEC
// RUN: sbpc-opt %S/../sbp-propagate/inputs/train_step_batch0.mlir -p 'sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing' -t jax -o %t.train.py
// RUN: env XLA_FLAGS=--xla_force_host_platform_device_count=8 %python %t.train.py | filecheck %s --check-prefix=EXEC

// CHECK: jnp.zeros((0, 2), jnp.float32)
// CHECK-NOT: psum_scatter
// EXEC: ok
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @main(%x: tensor<0x8xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}, %w: tensor<8x4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> (tensor<0x4xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<0x8xf32>, tensor<8x4xf32>) -> tensor<0x4xf32>
    return %0 : tensor<0x4xf32>
  }
}
