// RUN: sbpc-opt %s --verify-diagnostics --split-input-file

// The complex ops' types are checked when read.

func.func @fft_length(%x: tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>> {
  // expected-error @+1 {{stablehlo.fft FFT: result shape [4, 8] does not follow from operand shape [4, 8] and fft_length [4]}}
  %0 = stablehlo.fft %x, type = FFT, length = [4] : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
  return %0 : tensor<4x8xcomplex<f32>>
}

// -----

func.func @rfft_of_complex(%x: tensor<4x8xcomplex<f32>>) -> tensor<4x5xcomplex<f32>> {
  // expected-error @+1 {{stablehlo.fft RFFT: operand must be real}}
  %0 = stablehlo.fft %x, type = RFFT, length = [8] : (tensor<4x8xcomplex<f32>>) -> tensor<4x5xcomplex<f32>>
  return %0 : tensor<4x5xcomplex<f32>>
}

// -----

func.func @real_of_real(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{stablehlo.real: operand must be complex and the result its element type: tensor<4xf32> -> tensor<4xf32>}}
  %0 = stablehlo.real %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @complex_parts(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{stablehlo.complex: operands must be f32 tensors of the result's shape: tensor<4xf64> -> tensor<4xcomplex<f32>>}}
  %0 = "stablehlo.complex"(%a, %b) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}
