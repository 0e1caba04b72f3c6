// Issue 21, item 3: integers beyond their type's range are located errors at
// the op holding them (not an internal ValueError / struct.error, and not an
// unlocated "<unknown>:0:0"); numbers that fit but make no sense are the
// verifiers' errors.
// RUN: sbpc-opt %s --split-input-file --verify-diagnostics

func.func @dims(%a: tensor<4x8xf32>) -> tensor<8x4x8xf32> {
  // expected-error @below {{integer out of range for its type}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [1, 99999999999999999999] : (tensor<4x8xf32>) -> tensor<8x4x8xf32>
  return %0 : tensor<8x4x8xf32>
}

// -----

// expected-error @below {{Integer value 99999999999999999999 is out of range for type i32}}
func.func @attribute(%a: tensor<4xf32>) -> tensor<4xf32> attributes {x = 99999999999999999999 : i32} {
  return %a : tensor<4xf32>
}

// -----

func.func @dense() -> tensor<2xi32> {
  // expected-error @below {{Integer value 99999999999999999999 is out of range for type i32}}
  %0 = stablehlo.constant dense<[1, 99999999999999999999]> : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @slice(%a: tensor<8x16xf32>) -> tensor<2x8xf32> {
  // expected-error @below {{out of range for type i64}}
  %0 = stablehlo.slice %a [1:99999999999999999999, 0:16:2] : (tensor<8x16xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @slice_fits(%a: tensor<8x16xf32>) -> tensor<2x8xf32> {
  // expected-error @below {{range 1:9223372036854775807 of dimension 0 is out of bounds for size 8}}
  %0 = stablehlo.slice %a [1:9223372036854775807, 0:16:2] : (tensor<8x16xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @pad(%a: tensor<8x16xf32>, %p: tensor<f32>) -> tensor<11x34xf32> {
  // expected-error @below {{integer out of range for its type}}
  %0 = stablehlo.pad %a, %p, low = [1, 99999999999999999999], high = [2, 3], interior = [0, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<11x34xf32>
  return %0 : tensor<11x34xf32>
}

// -----

func.func @dynamic_slice(%a: tensor<8x16xf32>, %i: tensor<i32>) -> tensor<2x4xf32> {
  // expected-error @below {{integer out of range for its type}}
  %0 = stablehlo.dynamic_slice %a, %i, %i, sizes = [2, 99999999999999999999] : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @reduce(%a: tensor<8x16xf32>, %z: tensor<f32>) -> tensor<8xf32> {
  // expected-error @below {{out of range for type i64}}
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [99999999999999999999] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @iota() -> tensor<8xi32> {
  // expected-error @below {{out of range for type i64}}
  %0 = stablehlo.iota dim = 99999999999999999999 : tensor<8xi32>
  return %0 : tensor<8xi32>
}
