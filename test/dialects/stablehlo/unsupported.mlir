// RUN: not sbpc-opt %s --split-input-file 2>&1 | filecheck %s

// What JAX emits for jnp.fft, jnp.real/imag and (on CPU) jnp.linalg.cholesky is
// refused at the op, saying why; never "not registered" or a traceback.

// CHECK: unsupported.mlir:[[# @LINE + 3]]:8: error: stablehlo.fft is not supported by sbpc: complex numbers have no SBP rules, reference or JAX lowering
// CHECK-NOT: Traceback
func.func @fft(%x: tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>> {
  %0 = stablehlo.fft %x, type = FFT, length = [8] : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
  return %0 : tensor<4x8xcomplex<f32>>
}

// -----

// CHECK: unsupported.mlir:[[# @LINE + 2]]:8: error: stablehlo.real is not supported by sbpc
func.func @real(%x: tensor<4x8xcomplex<f32>>) -> tensor<4x8xf32> {
  %0 = stablehlo.real %x : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The generic form parses, and the verifier says the same.
// CHECK: unsupported.mlir:[[# @LINE + 2]]:3: error: stablehlo.imag is not supported by sbpc
func.func @imag(%x: tensor<4x8xcomplex<f32>>) -> tensor<4x8xf32> {
  %0 = "stablehlo.imag"(%x) : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
