// RUN: sbpc-opt %s --split-input-file | filecheck %s
// RUN: sbpc-opt %s --split-input-file | sbpc-opt --split-input-file | filecheck %s

// The generic form (as `mlir-opt --mlir-print-op-generic` or JAX's
// get_asm(print_generic_op_form=True) writes it) parses, with its <{...}>
// properties and #stablehlo attributes, and prints in the pretty form.
// stablehlo.gather has no pretty form in StableHLO: it stays generic.

// CHECK-LABEL: func.func public @main
"func.func"() <{function_type = (tensor<8x16xf32>, tensor<16x8xf32>, tensor<2x1xi32>, tensor<i32>) -> tensor<8x8xf32>, sym_name = "main", sym_visibility = "public"}> ({
^bb0(%arg0: tensor<8x16xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<2x1xi32>, %arg3: tensor<i32>):
  // CHECK-NEXT: %0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  // CHECK-NEXT: %1 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  // CHECK-NEXT: %2 = stablehlo.reduce(%arg0 init: %0) applies stablehlo.maximum across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  // CHECK-NEXT: %3 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
  // CHECK-NEXT: %4 = stablehlo.compare GT, %arg0, %3, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  // CHECK-NEXT: %5 = stablehlo.select %4, %arg0, %3 : tensor<8x16xi1>, tensor<8x16xf32>
  // CHECK-NEXT: %6 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
  // CHECK-NEXT: %7 = stablehlo.add %5, %6 : tensor<8x16xf32>
  // CHECK-NEXT: %8 = stablehlo.reshape %7 : (tensor<8x16xf32>) -> tensor<2x4x16xf32>
  // CHECK-NEXT: %9 = stablehlo.concatenate %arg0, %7, dim = 0 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  // CHECK-NEXT: %10 = stablehlo.slice %arg0 [1:3, 0:16:2] : (tensor<8x16xf32>) -> tensor<2x8xf32>
  // CHECK-NEXT: %11 = stablehlo.dynamic_slice %arg0, %arg3, %arg3, sizes = [2, 4] : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %12 = stablehlo.dynamic_update_slice %arg0, %11, %arg3, %arg3 : (tensor<8x16xf32>, tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x16xf32>
  // CHECK-NEXT: %13 = stablehlo.pad %arg0, %0, low = [1, 0], high = [2, 3], interior = [0, 0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<11x19xf32>
  // CHECK-NEXT: %14 = stablehlo.reverse %arg0, dims = [0] : tensor<8x16xf32>
  // CHECK-NEXT: %15 = stablehlo.iota dim = 0 : tensor<8xi32>
  // CHECK-NEXT: %16 = stablehlo.convert %15 : (tensor<8xi32>) -> tensor<8xf32>
  // CHECK-NEXT: %17 = stablehlo.exponential %arg0 {sbp.note} : tensor<8x16xf32>
  // CHECK-NEXT: %18 = "stablehlo.gather"(%arg0, %arg2) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<8x16xf32>, tensor<2x1xi32>) -> tensor<2x16xf32>
  // CHECK-NEXT: %19 = stablehlo.dot_general %8, %8, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x4xf32>
  // CHECK-NEXT: func.return %1 : tensor<8x8xf32>
  %0 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
  %1 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %2 = "stablehlo.reduce"(%arg0, %0) <{dimensions = array<i64: 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%r) : (tensor<f32>) -> ()
  }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  %3 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
  %4 = "stablehlo.compare"(%arg0, %3) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  %5 = "stablehlo.select"(%4, %arg0, %3) : (tensor<8x16xi1>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %6 = "stablehlo.transpose"(%arg1) <{permutation = array<i64: 1, 0>}> : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %7 = "stablehlo.add"(%5, %6) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %8 = "stablehlo.reshape"(%7) : (tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %9 = "stablehlo.concatenate"(%arg0, %7) <{dimension = 0 : i64}> : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  %10 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 3, 16>, start_indices = array<i64: 1, 0>, strides = array<i64: 1, 2>}> : (tensor<8x16xf32>) -> tensor<2x8xf32>
  %11 = "stablehlo.dynamic_slice"(%arg0, %arg3, %arg3) <{slice_sizes = array<i64: 2, 4>}> : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
  %12 = "stablehlo.dynamic_update_slice"(%arg0, %11, %arg3, %arg3) : (tensor<8x16xf32>, tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x16xf32>
  %13 = "stablehlo.pad"(%arg0, %0) <{edge_padding_high = array<i64: 2, 3>, edge_padding_low = array<i64: 1, 0>, interior_padding = array<i64: 0, 0>}> : (tensor<8x16xf32>, tensor<f32>) -> tensor<11x19xf32>
  %14 = "stablehlo.reverse"(%arg0) <{dimensions = array<i64: 0>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %15 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<8xi32>
  %16 = "stablehlo.convert"(%15) : (tensor<8xi32>) -> tensor<8xf32>
  %17 = "stablehlo.exponential"(%arg0) {sbp.note} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %18 = "stablehlo.gather"(%arg0, %arg2) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<8x16xf32>, tensor<2x1xi32>) -> tensor<2x16xf32>
  %19 = "stablehlo.dot_general"(%8, %8) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2]>}> : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x4xf32>
  "func.return"(%1) : (tensor<8x8xf32>) -> ()
}) : () -> ()

// -----

// A generic reduce whose body is not one commutative op prints its region.
// CHECK-LABEL: func.func @argmax
// CHECK:       %0, %1 = stablehlo.reduce(%arg0 init: %cst), (%arg1 init: %c) across dimensions = [1] : (tensor<8x16xf32>, tensor<8x16xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>)
// CHECK-NEXT:   reducer(%a0: tensor<f32>, %b0: tensor<f32>) (%a1: tensor<i32>, %b1: tensor<i32>)  {
// CHECK-NEXT:    %2 = stablehlo.compare GE, %a0, %b0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT:    %3 = stablehlo.select %2, %a0, %b0 : tensor<i1>, tensor<f32>
// CHECK-NEXT:    %4 = stablehlo.select %2, %a1, %b1 : tensor<i1>, tensor<i32>
// CHECK-NEXT:    stablehlo.return %3, %4 : tensor<f32>, tensor<i32>
// CHECK-NEXT:  }
func.func @argmax(%arg0: tensor<8x16xf32>, %arg1: tensor<8x16xi32>) -> tensor<8xi32> {
  %cst = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
  %c = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0:2 = "stablehlo.reduce"(%arg0, %arg1, %cst, %c) <{dimensions = array<i64: 1>}> ({
  ^bb0(%a0: tensor<f32>, %a1: tensor<i32>, %b0: tensor<f32>, %b1: tensor<i32>):
    %1 = "stablehlo.compare"(%a0, %b0) <{comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type FLOAT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %2 = "stablehlo.select"(%1, %a0, %b0) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %3 = "stablehlo.select"(%1, %a1, %b1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%2, %3) : (tensor<f32>, tensor<i32>) -> ()
  }) : (tensor<8x16xf32>, tensor<8x16xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>)
  return %0#1 : tensor<8xi32>
}
