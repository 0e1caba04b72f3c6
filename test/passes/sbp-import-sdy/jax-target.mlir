// RUN: sbpc-opt %s --split-input-file -p 'sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing' -t jax | filecheck %s

// The emitted program speaks the user's mesh: its axis names, and as
// IN_SPECS/OUT_SPECS the PartitionSpecs given to jax.jit.

// CHECK: MESH_SHAPE = (2, 4)
// CHECK-NEXT: MESH_AXES = ("x", "y")
// CHECK: IN_SPECS = (P(("x", "y"), None), P(None, "y"))
// CHECK-NEXT: OUT_SPECS = P("x", None)
// CHECK: lax.all_gather(v1, "y", axis=1, tiled=True)
module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {}]>}, %arg1: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<16x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    %1 = stablehlo.tanh %0 : tensor<16x8xf32>
    return %1 : tensor<16x8xf32>
  }
}

// -----

// A shard_map body runs as it is inside the program's shard_map: its psum is
// a psum over the mesh axis its replica groups span ("y").

// CHECK: MESH_AXES = ("x", "y")
// CHECK: (_mc2 := lax.dot_general(_mc0, _mc1, {{.*}})), (_mc3 := lax.psum(_mc2, "y")),), _mc3)[-1]
module @jit_h attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x32xf32>, %arg1: tensor<32x8xf32>) -> (tensor<16x8xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{"y"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x", "y"} (%arg2: tensor<8x8xf32>, %arg3: tensor<8x8xf32>) {
      %3 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      %4 = "stablehlo.all_reduce"(%3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %5 = stablehlo.add %arg4, %arg5 : tensor<f32>
        stablehlo.return %5 : tensor<f32>
      }) : (tensor<8x8xf32>) -> tensor<8x8xf32>
      sdy.return %4 : tensor<8x8xf32>
    } : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<16x8xf32>
    return %2 : tensor<16x8xf32>
  }
}
