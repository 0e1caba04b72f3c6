// RUN: sbpc-opt %s --split-input-file -p sbp-import-sdy | filecheck %s

// jax.jit(f, in_shardings=(NamedSharding(mesh, P(("x", "y"), None)),
// NamedSharding(mesh, P(None, "y"))), out_shardings=NamedSharding(mesh,
// P("x", None))) on a 2x4 mesh ("x", "y"): the mesh becomes the placement and
// its axis names sbp.mesh_axes; ("x", "y") on dim 0 is [S(0), S(0)].

// CHECK-LABEL: module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32, sbp.placement = #sbp.placement<cpu, {{\[\[}}0, 1, 2, 3], [4, 5, 6, 7]]>, sbp.mesh_axes = ["x", "y"]}
// CHECK: func.func public @main(%arg0: tensor<16x32xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(0)]>}, %arg1: tensor<32x8xf32> {sbp.nd_sbp = #sbp.nd<[B, S(1)]>}) -> (tensor<16x8xf32> {jax.result_info = "result", sbp.nd_sbp = #sbp.nd<[S(0), B]>})
// CHECK-NOT: sdy.sharding
module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {}]>}, %arg1: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<16x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    %1 = stablehlo.tanh %0 : tensor<16x8xf32>
    return %1 : tensor<16x8xf32>
  }
}

// -----

// with_sharding_constraint(c, P("x", P.UNCONSTRAINED)) is a cast to [S(0), B];
// an argument without in_shardings stays free.

// CHECK-LABEL: module @jit_g
// CHECK: func.func public @main(%arg0: tensor<16x32xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}, %arg1: tensor<32x8xf32>)
// CHECK: %1 = sbp.cast %0 to #sbp.nd<[S(0), B]> : tensor<16x8xf32>
// CHECK: stablehlo.multiply %1, %2
module @jit_g attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<32x8xf32>) -> (tensor<16x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {?}]> : tensor<16x8xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<16x8xf32>
    return %3 : tensor<16x8xf32>
  }
}

// -----

// shard_map with psum: the manual computation keeps its body and gets its
// layouts as a fixed signature.

// CHECK-LABEL: module @jit_h
// CHECK: sdy.manual_computation
// CHECK: "stablehlo.all_reduce"
// CHECK: sdy.return
// CHECK-NEXT: } {sbp.sig = #sbp.sig<([S(0), S(1)], [B, S(0)]) -> ([S(0), B])>}
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

// -----

// A 1-D mesh, device ids kept as the rank array; a fully open constraint is
// no constraint; replicated axes are B, unreduced axes P(sum); per-op result
// shardings are casts of the results.

// CHECK-LABEL: module attributes {sbp.placement = #sbp.placement<cpu, [3, 2, 1, 0]>, sbp.mesh_axes = ["d"]}
module {
  sdy.mesh @m = <["d"=4], device_ids=[3, 2, 1, 0]>
  // CHECK: func.func @f(%x: tensor<8x4xf32> {sbp.nd_sbp = #sbp.nd<[B]>}) -> (tensor<8x4xf32> {sbp.nd_sbp = #sbp.nd<[P(sum)]>})
  func.func @f(%x: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {}], replicated={"d"}>}) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {}], unreduced={"d"}>}) {
    // CHECK-NEXT: %0 = stablehlo.add %x, %x : tensor<8x4xf32>
    // CHECK-NEXT: %1 = sbp.cast %0 to #sbp.nd<[S(1)]> : tensor<8x4xf32>
    // CHECK-NEXT: %2 = stablehlo.multiply %1, %x : tensor<8x4xf32>
    // CHECK-NEXT: func.return %2 : tensor<8x4xf32>
    %0 = sdy.sharding_constraint %x <@m, [{?}, {?}]> : tensor<8x4xf32>
    %1 = stablehlo.add %0, %0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {"d"}]>]>} : tensor<8x4xf32>
    %2 = stablehlo.multiply %1, %x : tensor<8x4xf32>
    return %2 : tensor<8x4xf32>
  }
}

// -----

// A typed PRNG key (jax.random.key) without any sharding: JAX constrains it
// on an axis-less @empty_mesh, which constrains nothing.  The constraint is
// dropped and no placement is made up.

// CHECK-LABEL: module @jit_dropout
// CHECK-NOT:   sbp.placement
// CHECK:       func.func public @main(%arg0: tensor<2xui32>, %arg1: tensor<8x16xf32>)
// CHECK-NOT:   sdy.sharding_constraint
// CHECK:       stablehlo.add %arg0, %arg0
module @jit_dropout attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}
  func.func public @main(%arg0: tensor<2xui32>, %arg1: tensor<8x16xf32>) -> (tensor<2xui32>, tensor<8x16xf32>) {
    %0 = sdy.sharding_constraint %arg0 <@empty_mesh, [{}]> : tensor<2xui32>
    %1 = stablehlo.add %0, %0 : tensor<2xui32>
    return %1, %arg1 : tensor<2xui32>, tensor<8x16xf32>
  }
}

// -----

// The same key constraint in a function laid out on a real mesh: still free.

// CHECK-LABEL: module @jit_keyed
// CHECK:       func.func public @main(%arg0: tensor<2xui32>, %arg1: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>})
// CHECK-NOT:   sdy.sharding_constraint
// CHECK-NOT:   sbp.cast
// CHECK:       stablehlo.add %arg0, %arg0
module @jit_keyed attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}]}}
  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}
  func.func public @main(%arg0: tensor<2xui32>, %arg1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<2xui32>, tensor<8x16xf32>) {
    %0 = sdy.sharding_constraint %arg0 <@empty_mesh, [{}]> : tensor<2xui32>
    %1 = stablehlo.add %0, %0 : tensor<2xui32>
    return %1, %arg1 : tensor<2xui32>, tensor<8x16xf32>
  }
}
