// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' | filecheck %s --check-prefix=IR
// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' -t jax | filecheck %s

// A product's algorithm survives propagation and boxing on the op, and reaches
// JAX as the preset that lowers to it (bf16 attention's BF16_BF16_F32, an f32
// product as three bf16 passes), or field by field where no preset does
// (the emitted module's lowering writes the same #stablehlo.dot_algorithm).

// IR-COUNT-3: algorithm = <lhs_precision_type =
// CHECK: lax.dot_general({{v[0-9]+}}, {{v[0-9]+}}, (((1,), (0,)), ((), ())), precision=lax.DotAlgorithmPreset.BF16_BF16_F32, preferred_element_type=jnp.float32)
// CHECK: lax.dot_general({{v[0-9]+}}, {{v[0-9]+}}, (((1,), (0,)), ((), ())), precision=lax.DotAlgorithmPreset.BF16_BF16_F32_X3, preferred_element_type=jnp.float32)
// CHECK: lax.dot_general({{v[0-9]+}}, {{v[0-9]+}}, (((1,), (0,)), ((), ())), precision=lax.DotAlgorithm(lhs_precision_type=jnp.float32, rhs_precision_type=jnp.float32, accumulation_type=jnp.float32, lhs_component_count=1, rhs_component_count=1, num_primitive_operations=1, allow_imprecise_accumulation=False), preferred_element_type=jnp.float32)
module attributes {sbp.placement = #sbp.placement<cuda, [0, 1, 2, 3]>} {
  func.func @main(%a: tensor<8x16xbf16>, %b: tensor<16x4xbf16>, %c: tensor<8x16xf32>, %d: tensor<16x4xf32>)
      -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xf32>
    %1 = stablehlo.dot_general %c, %d, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    // f32 rounding of bf16 operands: JAX's F32_F32_F32 preset would cast them first.
    %2 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xf32>
    return %0, %1, %2 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  }
}
