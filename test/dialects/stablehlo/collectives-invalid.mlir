// RUN: sbpc-opt %s --verify-diagnostics --split-input-file

// A collective's dimensions are checked against its operands when it is read
// (a reduce_scatter over a dimension the operand lacks would otherwise reach
// the emitted program and fail only when it runs), and its result shape
// against what the collective makes of the operand and the group size.

func.func @all_gather_dim_range(%a: tensor<8x8xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{stablehlo.all_gather: all_gather_dim 2 is out of range for an operand of rank 2}}
  %0 = "stablehlo.all_gather"(%a) <{all_gather_dim = 2 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> : (tensor<8x8xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

func.func @all_gather_result(%a: tensor<8x8xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{stablehlo.all_gather: result shape [8, 16] should be [8, 32] for operand shape [8, 8]}}
  %0 = "stablehlo.all_gather"(%a) <{all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> : (tensor<8x8xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @reduce_scatter_range(%a: tensor<8x8xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{stablehlo.reduce_scatter: scatter_dimension 2 is out of range for an operand of rank 2}}
  %0 = "stablehlo.reduce_scatter"(%a) <{scatter_dimension = 2 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8x8xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @reduce_scatter_negative(%a: tensor<8x8xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{stablehlo.reduce_scatter: scatter_dimension -1 is out of range for an operand of rank 2}}
  %0 = "stablehlo.reduce_scatter"(%a) <{scatter_dimension = -1 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8x8xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @reduce_scatter_divides(%a: tensor<8x6xf32>) -> tensor<8x1xf32> {
  // expected-error @+1 {{stablehlo.reduce_scatter: scatter_dimension 1 has size 6, not a multiple of 4 (the devices it is split over)}}
  %0 = "stablehlo.reduce_scatter"(%a) <{scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8x6xf32>) -> tensor<8x1xf32>
  return %0 : tensor<8x1xf32>
}

// -----

func.func @reduce_scatter_result(%a: tensor<8x8xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{stablehlo.reduce_scatter: result shape [8, 2] should be [2, 8] for operand shape [8, 8]}}
  %0 = "stablehlo.reduce_scatter"(%a) <{scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8x8xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @all_to_all_split_range(%a: tensor<8x8xf32>) -> tensor<2x32xf32> {
  // expected-error @+1 {{stablehlo.all_to_all: split_dimension -1 is out of range for an operand of rank 2}}
  %0 = "stablehlo.all_to_all"(%a) <{concat_dimension = 1 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, split_count = 4 : i64, split_dimension = -1 : i64}> : (tensor<8x8xf32>) -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}

// -----

func.func @all_to_all_concat_range(%a: tensor<8x8xf32>) -> tensor<2x32xf32> {
  // expected-error @+1 {{stablehlo.all_to_all: concat_dimension 3 is out of range for an operand of rank 2}}
  %0 = "stablehlo.all_to_all"(%a) <{concat_dimension = 3 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, split_count = 4 : i64, split_dimension = 0 : i64}> : (tensor<8x8xf32>) -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}

// -----

func.func @all_to_all_count(%a: tensor<8x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{stablehlo.all_to_all: split_count 2 differs from the replica groups' size 4}}
  %0 = "stablehlo.all_to_all"(%a) <{concat_dimension = 1 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<8x8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @all_to_all_result(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{stablehlo.all_to_all: result shape [8, 8] should be [2, 32] for operand shape [8, 8]}}
  %0 = "stablehlo.all_to_all"(%a) <{concat_dimension = 1 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, split_count = 4 : i64, split_dimension = 0 : i64}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// partition_id is per-device code: outside a manual computation sbpc's
// global view has no device to number, so its value may not be read there
// (one nothing reads has no effect: sbp-import-sdy drops it).

func.func @partition_id_global() -> tensor<ui32> {
  // expected-error @+1 {{stablehlo.partition_id read outside a manual computation (shard_map) is not supported: sbpc compiles a global-view program, where no device id exists (each device would hold a different value, not a piece of one array); read it inside sdy.manual_computation}}
  %0 = stablehlo.partition_id : tensor<ui32>
  return %0 : tensor<ui32>
}

// -----

sdy.mesh @mesh = <["x"=2]>
func.func @partition_id_type(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<2xi32>) {
    // expected-error @+1 {{stablehlo.partition_id: result must be tensor<ui32>, got tensor<i32>}}
    %1 = stablehlo.partition_id : tensor<i32>
    sdy.return %arg1 : tensor<2xi32>
  } : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
