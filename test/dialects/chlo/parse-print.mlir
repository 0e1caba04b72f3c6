// RUN: sbpc-opt %s | filecheck %s
// RUN: sbpc-opt %s | sbpc-opt | filecheck %s

// The CHLO ops JAX emits, in the pretty syntax jax.jit(f).lower(...).as_text()
// prints them, parse and print back unchanged; printing then parsing again is
// stable.

// CHECK-LABEL: func.func public @chlo
func.func public @chlo(%arg0: tensor<8x16xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<8x16xi32>, %arg3: tensor<4xbf16>, %arg4: tensor<f16>, %arg5: tensor<2xcomplex<f32>>) -> tensor<8x16xf32> {
  // CHECK-NEXT: %0 = chlo.square %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %1 = chlo.erf %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %2 = chlo.erfc %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %3 = chlo.erf_inv %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %4 = chlo.sinh %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %5 = chlo.cosh %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %6 = chlo.asin %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %7 = chlo.acos %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %8 = chlo.atan %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %9 = chlo.asinh %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %10 = chlo.acosh %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %11 = chlo.atanh %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %12 = chlo.lgamma %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %13 = chlo.digamma %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %14 = chlo.bessel_i1e %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %15 = chlo.next_after %arg0, %arg1 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %16 = chlo.polygamma %arg0, %arg1 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %17 = chlo.zeta %arg0, %arg1 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %18 = chlo.mulhi %arg2, %arg2 : tensor<8x16xi32>, tensor<8x16xi32> -> tensor<8x16xi32>
  // CHECK-NEXT: %19 = chlo.erf %arg3 : tensor<4xbf16> -> tensor<4xbf16>
  // CHECK-NEXT: %20 = chlo.square %arg4 : tensor<f16> -> tensor<f16>
  // CHECK-NEXT: %21 = chlo.sinh %arg0 {sbp.note} : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %22 = chlo.cosh %arg5 : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
  %0 = chlo.square %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %1 = chlo.erf %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %2 = chlo.erfc %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %3 = chlo.erf_inv %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %4 = chlo.sinh %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %5 = chlo.cosh %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %6 = chlo.asin %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %7 = chlo.acos %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %8 = chlo.atan %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %9 = chlo.asinh %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %10 = chlo.acosh %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %11 = chlo.atanh %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %12 = chlo.lgamma %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %13 = chlo.digamma %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %14 = chlo.bessel_i1e %arg0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %15 = chlo.next_after %arg0, %arg1 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %16 = chlo.polygamma %arg0, %arg1 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %17 = chlo.zeta %arg0, %arg1 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %18 = chlo.mulhi %arg2, %arg2 : tensor<8x16xi32>, tensor<8x16xi32> -> tensor<8x16xi32>
  %19 = chlo.erf %arg3 : tensor<4xbf16> -> tensor<4xbf16>
  %20 = chlo.square %arg4 : tensor<f16> -> tensor<f16>
  %21 = chlo.sinh %arg0 {sbp.note} : tensor<8x16xf32> -> tensor<8x16xf32>
  %22 = chlo.cosh %arg5 : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
  // CHECK-NEXT: func.return %0 : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
