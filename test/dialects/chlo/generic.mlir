// RUN: sbpc-opt %s | filecheck %s
// RUN: sbpc-opt %s | sbpc-opt | filecheck %s

// The generic form (JAX's get_asm(print_generic_op_form=True)) parses and
// prints in the pretty form.

// CHECK-LABEL: func.func public @main
"func.func"() <{function_type = (tensor<8x16xf32>, tensor<8x16xi32>) -> tensor<8x16xf32>, sym_name = "main", sym_visibility = "public"}> ({
^bb0(%arg0: tensor<8x16xf32>, %arg1: tensor<8x16xi32>):
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
  // CHECK-NEXT: %15 = chlo.next_after %arg0, %14 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %16 = chlo.polygamma %arg0, %15 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %17 = chlo.zeta %arg0, %16 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %18 = chlo.mulhi %arg1, %arg1 : tensor<8x16xi32>, tensor<8x16xi32> -> tensor<8x16xi32>
  // CHECK-NEXT: func.return %17 : tensor<8x16xf32>
  %0 = "chlo.square"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = "chlo.erf"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %2 = "chlo.erfc"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %3 = "chlo.erf_inv"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %4 = "chlo.sinh"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %5 = "chlo.cosh"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %6 = "chlo.asin"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %7 = "chlo.acos"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %8 = "chlo.atan"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %9 = "chlo.asinh"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %10 = "chlo.acosh"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %11 = "chlo.atanh"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %12 = "chlo.lgamma"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %13 = "chlo.digamma"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %14 = "chlo.bessel_i1e"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %15 = "chlo.next_after"(%arg0, %14) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %16 = "chlo.polygamma"(%arg0, %15) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %17 = "chlo.zeta"(%arg0, %16) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %18 = "chlo.mulhi"(%arg1, %arg1) : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi32>
  "func.return"(%17) : (tensor<8x16xf32>) -> ()
}) : () -> ()
