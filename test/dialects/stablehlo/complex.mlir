// RUN: sbpc-opt %s | filecheck %s
// RUN: sbpc-opt %s --print-op-generic | sbpc-opt | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-inline,sbp-propagate,sbp-lower-boxing' -t jax | filecheck %s --check-prefix=JAX

// Complex numbers as JAX prints them (jnp.fft.*, lax.complex, jnp.real/imag,
// complex elementwise ops), printed back the same, and their JAX forms.

// CHECK:      %0 = stablehlo.complex %a, %b : tensor<4x8xcomplex<f32>>
// CHECK-NEXT: %1 = stablehlo.fft %0, type = FFT, length = [8] : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
// CHECK-NEXT: %2 = stablehlo.multiply %1, %0 : tensor<4x8xcomplex<f32>>
// CHECK-NEXT: %3 = stablehlo.exponential %2 : tensor<4x8xcomplex<f32>>
// CHECK-NEXT: %4 = stablehlo.fft %3, type = IFFT, length = [4, 8] : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
// CHECK-NEXT: %5 = stablehlo.fft %a, type = RFFT, length = [8] : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
// CHECK-NEXT: %6 = stablehlo.fft %5, type = IRFFT, length = [8] : (tensor<4x5xcomplex<f32>>) -> tensor<4x8xf32>
// CHECK-NEXT: %7 = stablehlo.real %4 : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xf32>
// CHECK-NEXT: %8 = stablehlo.imag %4 : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xf32>
// CHECK-NEXT: %9 = stablehlo.abs %4 : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xf32>
// JAX: lax.complex(
// JAX: lax.fft({{.*}}, lax.FftType.FFT, (8,))
// JAX: lax.fft({{.*}}, lax.FftType.IFFT, (4, 8))
// JAX: lax.fft({{.*}}, lax.FftType.RFFT, (8,))
// JAX: lax.fft({{.*}}, lax.FftType.IRFFT, (8,))
// JAX: jnp.real(
// JAX: jnp.imag(
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
func.func @main(%a: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = stablehlo.complex %a, %b : tensor<4x8xcomplex<f32>>
  %1 = stablehlo.fft %0, type = FFT, length = [8] : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
  %2 = stablehlo.multiply %1, %0 : tensor<4x8xcomplex<f32>>
  %3 = stablehlo.exponential %2 : tensor<4x8xcomplex<f32>>
  %4 = stablehlo.fft %3, type = IFFT, length = [4, 8] : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
  %5 = stablehlo.fft %a, type = RFFT, length = [8] : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
  %6 = stablehlo.fft %5, type = IRFFT, length = [8] : (tensor<4x5xcomplex<f32>>) -> tensor<4x8xf32>
  %7 = stablehlo.real %4 : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xf32>
  %8 = stablehlo.imag %4 : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xf32>
  %9 = stablehlo.abs %4 : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xf32>
  return %6, %7, %8, %9 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
}
