// RUN: sbpc-opt %s -p sbp-import-sdy | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing' -t jax | filecheck %s --check-prefix=JAX

// JAX's axis_index inside shard_map: stablehlo.partition_id, divided by the
// strides of the mesh axes. In the emitted program it is the mesh's device
// id at the device's position (the linear index over all mesh axes); with
// device_ids written, the id at that position.

// CHECK: stablehlo.partition_id : tensor<ui32>
// JAX: jnp.asarray([0, 2, 1, 3, 4, 6, 5, 7], jnp.uint32)[lax.axis_index(("x", "y"))]
sdy.mesh @mesh = <["x"=2, "y"=4], device_ids=[0, 2, 1, 3, 4, 6, 5, 7]>
func.func @main(%arg0: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>] manual_axes={"x", "y"} (%arg1: tensor<2x2xi32>) {
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %c_0 = stablehlo.constant dense<4> : tensor<ui32>
    %1 = stablehlo.partition_id : tensor<ui32>
    %2 = stablehlo.divide %1, %c : tensor<ui32>
    %3 = stablehlo.remainder %2, %c_0 : tensor<ui32>
    %4 = stablehlo.convert %3 : (tensor<ui32>) -> tensor<i32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i32>) -> tensor<2x2xi32>
    %6 = stablehlo.add %arg1, %5 : tensor<2x2xi32>
    sdy.return %6 : tensor<2x2xi32>
  } : (tensor<4x8xi32>) -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}
