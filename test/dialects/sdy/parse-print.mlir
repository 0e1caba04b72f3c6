// RUN: sbpc-opt %s --split-input-file | filecheck %s
// RUN: sbpc-opt %s --split-input-file | sbpc-opt --split-input-file | filecheck %s

// Shardy's forms as jax 0.10.2 prints them (text from
// jax.jit(f, in_shardings=NamedSharding(...), ...).lower(...).as_text(),
// with_sharding_constraint and shard_map) parse and print back unchanged.

module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {}]>}, %arg1: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<16x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    %1 = stablehlo.tanh %0 : tensor<16x8xf32>
    return %1 : tensor<16x8xf32>
  }
}

// CHECK-LABEL: module @jit_f
// CHECK-NEXT: sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
// CHECK-NEXT: func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {}]>}, %arg1: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<16x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})

// -----

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

// CHECK-LABEL: module @jit_g
// CHECK: func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<32x8xf32>)
// CHECK: %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {?}]> : tensor<16x8xf32>

// -----

module @jit_k attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x32xf32>) -> (tensor<16x128xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>] manual_axes={"x", "y"} (%arg1: tensor<8x8xf32>) {
      %1 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> : (tensor<8x8xf32>) -> tensor<8x32xf32>
      %2 = "stablehlo.reduce_scatter"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %18 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %18 : tensor<f32>
      }) : (tensor<8x8xf32>) -> tensor<8x2xf32>
      %3 = "stablehlo.all_to_all"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 1 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, split_count = 4 : i64, split_dimension = 0 : i64}> : (tensor<8x8xf32>) -> tensor<2x32xf32>
      %4 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4]]> : tensor<8x2xi64>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %5 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %18 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
        stablehlo.return %18 : tensor<f32>
      }) : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<f32>
      %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
      %8 = stablehlo.add %1, %7 : tensor<8x32xf32>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %9 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x32xf32>, tensor<f32>) -> tensor<f32>
      %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
      %11 = stablehlo.add %8, %10 : tensor<8x32xf32>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %12 = stablehlo.reduce(%4 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<f32>
      %13 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
      %14 = stablehlo.add %11, %13 : tensor<8x32xf32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %15 = stablehlo.reduce(%5 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<f32>
      %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
      %17 = stablehlo.add %14, %16 : tensor<8x32xf32>
      sdy.return %17 : tensor<8x32xf32>
    } : (tensor<16x32xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// CHECK-LABEL: module @jit_k
// CHECK: sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>] manual_axes={"x", "y"} (%arg1: tensor<8x8xf32>) {
// CHECK-NEXT: "stablehlo.all_gather"(%arg1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<{{\[\[}}0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> : (tensor<8x8xf32>) -> tensor<8x32xf32>
// CHECK-NEXT: "stablehlo.reduce_scatter"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<{{\[\[}}0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>):
// CHECK-NEXT: %[[S:.*]] = stablehlo.add %[[A]], %[[B]] : tensor<f32>
// CHECK-NEXT: stablehlo.return %[[S]] : tensor<f32>
// CHECK-NEXT: }) : (tensor<8x8xf32>) -> tensor<8x2xf32>
// CHECK-NEXT: "stablehlo.all_to_all"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 1 : i64, replica_groups = dense<{{\[\[}}0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, split_count = 4 : i64, split_dimension = 0 : i64}> : (tensor<8x8xf32>) -> tensor<2x32xf32>
// CHECK-NEXT: "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<{{\[\[}}0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4]]> : tensor<8x2xi64>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: "stablehlo.all_reduce"(%arg1)
// CHECK: stablehlo.maximum
// CHECK: sdy.return %{{.*}} : tensor<8x32xf32>
// CHECK-NEXT: } : (tensor<16x32xf32>) -> tensor<16x128xf32>

// -----

// Forms jax does not print here but Shardy defines: device ids, maximal and
// empty meshes, open dimensions with axes, sub-axes, priorities,
// replicated/unreduced axes, an inline mesh, per-op shardings, generic form.

// CHECK-LABEL: module
module {
  // CHECK-NEXT: sdy.mesh @m = <["a"=2, "b"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>
  // CHECK-NEXT: sdy.mesh @maximal = <[], device_ids=[0]>
  // CHECK-NEXT: sdy.mesh @empty = <[]>
  sdy.mesh @m = <["a"=2, "b"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>
  sdy.mesh @maximal = <[], device_ids=[0]>
  sdy.mesh @empty = <[]>
  // CHECK-NEXT: func.func @f(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", ?}, {"b":(1)2}p1], replicated={"b":(2)2}>}) -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<mesh<["q"=2]>, [{}, {?}], unreduced={"q"}>})
  func.func @f(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"a", ?}, {"b":(1)2}p1], replicated={"b":(2)2}>}) -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<mesh<["q"=2]>, [{}, {?}], unreduced={"q"}>}) {
    // CHECK-NEXT: %0 = sdy.sharding_constraint %x <@m, [{?}, {?}]> {foo} : tensor<8x8xf32>
    %0 = sdy.sharding_constraint %x <@m, [{?}, {?}]> {foo} : tensor<8x8xf32>
    // CHECK-NEXT: %1 = stablehlo.add %0, %0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : tensor<8x8xf32>
    %1 = stablehlo.add %0, %0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"a"}, {}]>]>} : tensor<8x8xf32>
    // CHECK-NEXT: stablehlo.add %1, %1 {sdy.sharding = #sdy.sharding_per_value<[<mesh<["x"=2], device_ids=[1, 0]>, [{}, {}], unreduced=min{"x"}>]>}
    // CHECK-NEXT: sdy.sharding_constraint %1 <@m, [{}, {"b"}]> : tensor<8x8xf32>
    %10 = stablehlo.add %1, %1 {sdy.sharding = #sdy.sharding_per_value<[<mesh<["x"=2], device_ids=[1, 0]>, [{}, {}], unreduced=min{"x"}>]>} : tensor<8x8xf32>
    %2 = "sdy.sharding_constraint"(%1) <{sharding = #sdy.sharding<@m, [{}, {"b"}]>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
    // CHECK-NEXT: %{{.*}} = sdy.manual_computation(%{{.*}}) in_shardings=[<@m, [{"a"}, {}]>] out_shardings=[<@m, [{"a"}, {}]>] manual_axes={"a"} (%arg0: tensor<4x8xf32>) {
    // CHECK-NEXT:   sdy.return %arg0 : tensor<4x8xf32>
    // CHECK-NEXT: } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %3 = sdy.manual_computation(%2) in_shardings=[<@m, [{"a"}, {}]>] out_shardings=[<@m, [{"a"}, {}]>] manual_axes={"a"} (%arg0: tensor<4x8xf32>) {
      sdy.return %arg0 : tensor<4x8xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %3 : tensor<8x8xf32>
  }
}
