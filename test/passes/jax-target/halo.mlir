// RUN: sbpc-opt %s -p 'sbp-propagate{improve=0},sbp-lower-boxing' -t jax | filecheck %s
// (improve=0: greedy's own plan, the one whose emission this test reads.)

// A row-split 3x3 convolution and max pool: each device receives one row
// from either neighbour (lax.ppermute along the split's mesh axis) and runs
// the op without row padding; the pool's edge devices pad with its init.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  func.func @main(%x: tensor<2x16x16x4xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}, %w: tensor<3x3x4x8xf32>)
      -> (tensor<2x16x16x8xf32>, tensor<2x16x16x4xf32>) {
    // CHECK: # halo: 1 rows from the previous and 1 from the next device along "d0"
    // CHECK-NEXT: [[X:v[0-9]+_halo0]] = jnp.concatenate([lax.ppermute(lax.slice_in_dim(v0, 3, 4, axis=1), "d0", [(0, 1), (1, 2), (2, 3)]), v0, lax.ppermute(lax.slice_in_dim(v0, 0, 1, axis=1), "d0", [(1, 0), (2, 1), (3, 2)])], axis=1)
    // CHECK-NEXT: = lax.conv_general_dilated([[X]], v1, window_strides=(1, 1), padding=((0, 0), (1, 1)),
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x16x16x4xf32>, tensor<3x3x4x8xf32>) -> tensor<2x16x16x8xf32>
    %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
    // CHECK: [[P:v[0-9]+_halo0]] = jnp.concatenate([jnp.where(lax.axis_index("d0") == 0, [[I:v[0-9]+]], lax.ppermute(lax.slice_in_dim(v0, 3, 4, axis=1), "d0", [(0, 1), (1, 2), (2, 3)])), v0, jnp.where(lax.axis_index("d0") == 3, [[I]], lax.ppermute(
    // CHECK-NEXT: = lax.reduce_window([[P]], [[I]], lax.max, (1, 3, 3, 1), (1, 1, 1, 1), ((0, 0), (0, 0), (1, 1), (0, 0)),
    %1 = "stablehlo.reduce_window"(%x, %init) <{padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) : (tensor<2x16x16x4xf32>, tensor<f32>) -> tensor<2x16x16x4xf32>
    return %0, %1 : tensor<2x16x16x8xf32>, tensor<2x16x16x4xf32>
  }
}
