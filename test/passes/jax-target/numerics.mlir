// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' -t jax | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' -t jax | filecheck %s --check-prefix=NOFORCE

// The emitted module means what the input means: each op's numeric
// attributes reach JAX unchanged, and nothing the input did not ask for is
// added (no forced HIGHEST precision, no up-cast of bf16 operands).

// A dot_general without precision_config runs at JAX's default precision.
// CHECK: {{v[0-9]+}} = lax.dot_general({{v[0-9]+}}, {{v[0-9]+}}, (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32)
// Per-operand precision, as written.
// CHECK: {{v[0-9]+}} = lax.dot_general({{v[0-9]+}}, {{v[0-9]+}}, (((1,), (0,)), ((), ())), precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST), preferred_element_type=jnp.float32)
// All-DEFAULT is the default: nothing to say.
// CHECK: {{v[0-9]+}} = lax.dot_general({{v[0-9]+}}, {{v[0-9]+}}, (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32)
// bf16 x bf16 -> f32: bf16 operands, an f32 result (what preferred_element_type lowers to).
// CHECK: {{v[0-9]+}} = lax.dot_general({{v[0-9]+}}, {{v[0-9]+}}, (((1,), (0,)), ((), ())), precision=(lax.Precision.HIGH, lax.Precision.HIGH), preferred_element_type=jnp.float32)
// IEEE comparison by default; TOTALORDER compares the floats' bits.
// CHECK: {{v[0-9]+}} = jnp.less({{v[0-9]+}}, {{v[0-9]+}})
// CHECK: {{v[0-9]+}} = jnp.less((lax.bitcast_convert_type({{v[0-9]+}}, jnp.int32) ^ ((lax.bitcast_convert_type({{v[0-9]+}}, jnp.int32) >> 31) & jnp.int32(2147483647))), (lax.bitcast_convert_type({{v[0-9]+}}, jnp.int32) ^ ((lax.bitcast_convert_type({{v[0-9]+}}, jnp.int32) >> 31) & jnp.int32(2147483647))))
// NOFORCE-NOT: precision=lax.Precision.HIGHEST
// NOFORCE-NOT: astype(jnp.float32)
module attributes {sbp.placement = #sbp.placement<cuda, [0, 1, 2, 3]>} {
  func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %x: tensor<8xf32>)
      -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xi1>, tensor<8xi1>) {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %2 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %a16 = stablehlo.convert %a : (tensor<8x16xf32>) -> tensor<8x16xbf16>
    %b16 = stablehlo.convert %b : (tensor<16x4xf32>) -> tensor<16x4xbf16>
    %3 = stablehlo.dot_general %a16, %b16, contracting_dims = [1] x [0], precision = [HIGH, HIGH] : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xf32>
    %4 = stablehlo.compare  LT, %x, %x,  FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %5 = stablehlo.compare  LT, %x, %x,  TOTALORDER : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    return %0, %1, %2, %3, %4, %5 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xi1>, tensor<8xi1>
  }
}
