// RUN: sbpc-opt %s --verify-diagnostics --split-input-file

// Shape and element type errors are verifier errors reported at the op.

func.func @shapes(%a: tensor<8x16xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{chlo.erf: operand and result shapes differ: tensor<8x16xf32> vs tensor<16x8xf32>}}
  %0 = chlo.erf %a : tensor<8x16xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @element_types(%a: tensor<8xf32>) -> tensor<8xf64> {
  // expected-error @+1 {{chlo.square: operand and result element types differ: tensor<8xf32> vs tensor<8xf64>}}
  %0 = chlo.square %a : tensor<8xf32> -> tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

func.func @float_only(%a: tensor<8xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{chlo.lgamma: expected a tensor of floating-point values, got tensor<8xi32>}}
  %0 = chlo.lgamma %a : tensor<8xi32> -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

func.func @integer_square(%a: tensor<8xi32>) -> tensor<8xi32> {
  // JAX squares integers with stablehlo.multiply.
  // expected-error @+1 {{chlo.square: expected a tensor of floating-point or complex values, got tensor<8xi32>}}
  %0 = chlo.square %a : tensor<8xi32> -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

func.func @erf_complex(%a: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
  // expected-error @+1 {{chlo.erf: expected a tensor of floating-point values, got tensor<8xcomplex<f32>>}}
  %0 = chlo.erf %a : tensor<8xcomplex<f32>> -> tensor<8xcomplex<f32>>
  return %0 : tensor<8xcomplex<f32>>
}

// -----

func.func @mulhi_float(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{chlo.mulhi: expected a tensor of integer values, got tensor<8xf32>}}
  %0 = chlo.mulhi %a, %a : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @no_broadcasting(%a: tensor<8xf32>, %b: tensor<f32>) -> tensor<8xf32> {
  // CHLO would broadcast %b; JAX never emits that and sbpc does not read it.
  // expected-error @+1 {{chlo.next_after: operand and result shapes differ: tensor<f32> vs tensor<8xf32>}}
  %0 = chlo.next_after %a, %b : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @binary_element_types(%a: tensor<8xf32>, %b: tensor<8xf64>) -> tensor<8xf32> {
  // expected-error @+1 {{chlo.zeta: operand and result element types differ: tensor<8xf64> vs tensor<8xf32>}}
  %0 = chlo.zeta %a, %b : tensor<8xf32>, tensor<8xf64> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
