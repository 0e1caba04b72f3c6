// RUN: sbpc-opt %s --verify-diagnostics --split-input-file

// Shape and type errors are verifier errors reported at the offending op.

func.func @add_shapes(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{stablehlo.add: rhs and result shapes differ: tensor<16x8xf32> vs tensor<8x16xf32>}}
  %0 = stablehlo.add %a, %b : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @unary_element_type(%a: tensor<8xf32>) -> tensor<8xi32> {
  // expected-error @+1 {{stablehlo.negate: operand and result element types differ: tensor<8xf32> vs tensor<8xi32>}}
  %0 = stablehlo.negate %a : (tensor<8xf32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

func.func @dot_contracting(%a: tensor<8x16xf32>, %b: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{stablehlo.dot_general: contracting dimension sizes differ: 16 vs 8}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @dot_batching(%a: tensor<2x4x16xf32>, %b: tensor<3x16x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{stablehlo.dot_general: batching dimension sizes differ: 2 vs 3}}
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x16xf32>, tensor<3x16x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

func.func @dot_result(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{stablehlo.dot_general: result shape [4, 8] should be [8, 4] (batch, lhs free, rhs free dimensions)}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @dot_dims_range(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{stablehlo.dot_general: lhs batching/contracting dimension 2 is out of range for rank 2}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [2] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @broadcast_rank(%a: tensor<8xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{stablehlo.broadcast_in_dim: broadcast_dimensions has 2 entries but the operand has rank 1}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<8xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @broadcast_size(%a: tensor<8xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{stablehlo.broadcast_in_dim: operand dimension 0 of size 8 cannot be broadcast to result dimension 1 of size 16}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<8xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @broadcast_range(%a: tensor<8xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{stablehlo.broadcast_in_dim: broadcast dimension 2 is out of range for rank 2}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [2] : (tensor<8xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @reshape_count(%a: tensor<8x16xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{stablehlo.reshape: element counts differ: tensor<8x16xf32> has 128, tensor<8x8xf32> has 64}}
  %0 = stablehlo.reshape %a : (tensor<8x16xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @transpose_permutation(%a: tensor<8x16xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{stablehlo.transpose: [1, 1] is not a permutation of the operand's 2 dimensions}}
  %0 = stablehlo.transpose %a, dims = [1, 1] : (tensor<8x16xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @transpose_result(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{stablehlo.transpose: result shape [8, 16] should be [16, 8]}}
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @reduce_result(%a: tensor<8x16xf32>, %init: tensor<f32>) -> tensor<16xf32> {
  // expected-error @+1 {{stablehlo.reduce: result 0 has shape [16], expected [8] after reducing dimensions [1]}}
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

func.func @reduce_dims(%a: tensor<8x16xf32>, %init: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{stablehlo.reduce: dimensions are not unique: [1, 1]}}
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.add across dimensions = [1, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_short_form(%a: tensor<8x16xf32>, %init: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected the inner-op to be a commutative binary-op from the stablehlo dialect, with zero region, producing single result}}
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.subtract across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @concatenate(%a: tensor<8x16xf32>, %b: tensor<8x8xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stablehlo.concatenate: input 1 has size 8 in dimension 1, expected 16}}
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<8x16xf32>, tensor<8x8xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @slice_bounds(%a: tensor<8x16xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{stablehlo.slice: range 4:20 of dimension 1 is out of bounds for size 16}}
  %0 = stablehlo.slice %a [1:3, 4:20:2] : (tensor<8x16xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @slice_result(%a: tensor<8x16xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{stablehlo.slice: result shape [2, 16] should be [2, 8]}}
  %0 = stablehlo.slice %a [1:3, 0:16:2] : (tensor<8x16xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

func.func @compare_i1(%a: tensor<8xf32>) -> tensor<8xi32> {
  // expected-error @+1 {{stablehlo.compare: result must be a tensor of i1, got tensor<8xi32>}}
  %0 = stablehlo.compare GT, %a, %a, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

func.func @select_branches(%p: tensor<8xi1>, %a: tensor<8xf32>, %b: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{stablehlo.select: branch types differ: tensor<8xf32> vs tensor<4xf32>}}
  %0 = stablehlo.select %p, %a, %b : (tensor<8xi1>, tensor<8xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @select_predicate(%p: tensor<4xi1>, %a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{stablehlo.select: predicate must be rank 0 or have the branches' shape: tensor<4xi1> vs tensor<8xf32>}}
  %0 = stablehlo.select %p, %a, %a : tensor<4xi1>, tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @iota() -> tensor<8xi32> {
  // expected-error @+1 {{stablehlo.iota: iota dimension 1 is out of range for rank 1}}
  %0 = stablehlo.iota dim = 1 : tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

func.func @pad(%a: tensor<8x16xf32>, %v: tensor<f32>) -> tensor<11x19xf32> {
  // expected-error @+1 {{stablehlo.pad: result shape [11, 19] should be [11, 34]}}
  %0 = stablehlo.pad %a, %v, low = [1, 0], high = [2, 3], interior = [0, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<11x19xf32>
  return %0 : tensor<11x19xf32>
}

// -----

func.func @dynamic_slice(%a: tensor<8x16xf32>, %i: tensor<i32>) -> tensor<2x32xf32> {
  // expected-error @+1 {{stablehlo.dynamic_slice: slice size 32 of dimension 1 exceeds the operand size 16}}
  %0 = stablehlo.dynamic_slice %a, %i, %i, sizes = [2, 32] : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}

// -----

func.func @dynamic_slice_result(%a: tensor<8x16xf32>, %i: tensor<i32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{stablehlo.dynamic_slice: result shape [2, 8] should be the slice sizes [2, 4]}}
  %0 = stablehlo.dynamic_slice %a, %i, %i, sizes = [2, 4] : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @dynamic_update_slice_elements(%a: tensor<8x16xf32>, %u: tensor<2x4xf16>, %i: tensor<i32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{stablehlo.dynamic_update_slice: update and operand element types differ: tensor<2x4xf16> vs tensor<8x16xf32>}}
  %0 = stablehlo.dynamic_update_slice %a, %u, %i, %i : (tensor<8x16xf32>, tensor<2x4xf16>, tensor<i32>, tensor<i32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @clamp(%lo: tensor<4xf32>, %a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{stablehlo.clamp: min must be rank 0 or have the operand's shape: tensor<4xf32> vs tensor<8xf32>}}
  %0 = stablehlo.clamp %lo, %a, %lo : (tensor<4xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @gather(%a: tensor<8x16xf32>, %i: tensor<2x1xi32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{stablehlo.gather: result shape [2, 8] should be [2, 16]}}
  %0 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<8x16xf32>, tensor<2x1xi32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @dot_algorithm_count(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{stablehlo.dot_algorithm: lhs_component_count must be positive, got 0}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 0, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @dot_algorithm_type(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{stablehlo.dot_algorithm: lhs_precision_type must be a floating-point type, got i32}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = i32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @dot_algorithm_precision(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{stablehlo.dot_general: precision_config must be DEFAULT when an algorithm is given}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [HIGHEST, DEFAULT], algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @scatter_update_shape(%a: tensor<64x32xf32>, %i: tensor<8x1xi32>, %u: tensor<4x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{stablehlo.scatter: update scatter dimension 0 has size 4, the scatter indices say 8}}
  %0 = "stablehlo.scatter"(%a, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<64x32xf32>, tensor<8x1xi32>, tensor<4x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

func.func @scatter_window_too_big(%a: tensor<64x32xf32>, %i: tensor<8x1xi32>, %u: tensor<8x40xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{stablehlo.scatter: update window dimension 1 has size 40, larger than operand dimension 1 (32)}}
  %0 = "stablehlo.scatter"(%a, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<64x32xf32>, tensor<8x1xi32>, tensor<8x40xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

func.func @scatter_rank(%a: tensor<64x32xf32>, %i: tensor<8x1xi32>, %u: tensor<8x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{stablehlo.scatter: operand rank 2 should be the number of update window (1), inserted window (0) and input batching (0) dimensions}}
  %0 = "stablehlo.scatter"(%a, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<64x32xf32>, tensor<8x1xi32>, tensor<8x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

func.func @scatter_index_vector(%a: tensor<64x32xf32>, %i: tensor<8x2xi32>, %u: tensor<8x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{stablehlo.scatter: scatter_dims_to_operand_dims has 1 entries but the index vector has 2}}
  %0 = "stablehlo.scatter"(%a, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<64x32xf32>, tensor<8x2xi32>, tensor<8x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

func.func @scatter_batching_sizes(%a: tensor<4x16x64xf32>, %i: tensor<8x16x1x1xi32>, %u: tensor<8x16x1xf32>) -> tensor<4x16x64xf32> {
  // expected-error @+1 {{stablehlo.scatter: batching dimension sizes differ: operand dimension 0 is 4, scatter indices dimension 0 is 8}}
  %0 = "stablehlo.scatter"(%a, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [2], input_batching_dims = [0, 1], scatter_indices_batching_dims = [0, 1], scatter_dims_to_operand_dims = [2], index_vector_dim = 3>, unique_indices = false}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<4x16x64xf32>, tensor<8x16x1x1xi32>, tensor<8x16x1xf32>) -> tensor<4x16x64xf32>
  return %0 : tensor<4x16x64xf32>
}

// -----

func.func @scatter_result_type(%a: tensor<64x32xf32>, %i: tensor<8x1xi32>, %u: tensor<8x32xf32>) -> tensor<64x32xf16> {
  // expected-error @+1 {{stablehlo.scatter: result type tensor<64x32xf16> differs from the operand's tensor<64x32xf32>}}
  %0 = "stablehlo.scatter"(%a, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<64x32xf32>, tensor<8x1xi32>, tensor<8x32xf32>) -> tensor<64x32xf16>
  return %0 : tensor<64x32xf16>
}

// -----

// Variadic scatter (several inputs and updates) is valid StableHLO but refused.
func.func @scatter_variadic(%a: tensor<64xf32>, %b: tensor<64xi32>, %i: tensor<8x1xi32>, %u: tensor<8xf32>, %v: tensor<8xi32>) -> tensor<64xf32> {
  // expected-error @+1 {{stablehlo.scatter: only single-operand scatter is supported, got 2 inputs and 2 results}}
  %0:2 = "stablehlo.scatter"(%a, %b, %i, %u, %v) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<i32>, %z: tensor<f32>, %w: tensor<i32>):
    stablehlo.return %z, %w : tensor<f32>, tensor<i32>
  }) : (tensor<64xf32>, tensor<64xi32>, tensor<8x1xi32>, tensor<8xf32>, tensor<8xi32>) -> (tensor<64xf32>, tensor<64xi32>)
  return %0#0 : tensor<64xf32>
}

// -----

func.func @scatter_update_elements(%a: tensor<64x32xf32>, %i: tensor<8x1xi32>, %u: tensor<8x32xf16>) -> tensor<64x32xf32> {
  // expected-error @+1 {{stablehlo.scatter: updates and operand element types differ: tensor<8x32xf16> vs tensor<64x32xf32>}}
  %0 = "stablehlo.scatter"(%a, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<64x32xf32>, tensor<8x1xi32>, tensor<8x32xf16>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}
