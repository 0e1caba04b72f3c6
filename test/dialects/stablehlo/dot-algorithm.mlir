// RUN: sbpc-opt %s | filecheck %s
// RUN: sbpc-opt %s | sbpc-opt | filecheck %s
// RUN: sbpc-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: sbpc-opt %s --print-op-generic | sbpc-opt | filecheck %s

// JAX writes a product's algorithm on bf16 attention, on f32 products run as
// bf16 passes, on fp8 products: read in either form, printed as JAX prints it.

// CHECK-LABEL: func.func @bf16_attention
// CHECK: stablehlo.dot_general %{{.*}}, %{{.*}}, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<4x8x16xbf16>, tensor<4x8x16xbf16>) -> tensor<4x8x8xf32>
// GENERIC: algorithm = #stablehlo.dot_algorithm<lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>
func.func @bf16_attention(%q: tensor<4x8x16xbf16>, %k: tensor<4x8x16xbf16>) -> tensor<4x8x8xf32> {
  %0 = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<4x8x16xbf16>, tensor<4x8x16xbf16>) -> tensor<4x8x8xf32>
  return %0 : tensor<4x8x8xf32>
}

// Fields in another order, no precision config: printed in StableHLO's order.
// CHECK-LABEL: func.func @f32_as_bf16x3
// CHECK: contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> :
func.func @f32_as_bf16x3(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <num_primitive_operations = 3, lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, allow_imprecise_accumulation = false, lhs_component_count = 1, rhs_component_count = 1> : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @fp8
// CHECK: algorithm = <lhs_precision_type = f8E4M3FN, rhs_precision_type = f8E5M2, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = true> : (tensor<8x16xf8E4M3FN>, tensor<16x4xf8E5M2>) -> tensor<8x4xf32>
func.func @fp8(%a: tensor<8x16xf8E4M3FN>, %b: tensor<16x4xf8E5M2>) -> tensor<8x4xf32> {
  %0 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, algorithm = #stablehlo.dot_algorithm<lhs_precision_type = f8E4M3FN, rhs_precision_type = f8E5M2, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = true>}> : (tensor<8x16xf8E4M3FN>, tensor<16x4xf8E5M2>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
