// RUN: sbpc-opt %s | filecheck %s
// RUN: sbpc-opt %s | sbpc-opt | filecheck %s

// The pretty syntax JAX prints (jax.jit(f).lower(...).as_text()) parses and
// prints back unchanged, op by op; printing then parsing again is stable.

// CHECK-LABEL: func.func public @elementwise
func.func public @elementwise(%arg0: tensor<8x16xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<8x16xi32>, %arg3: tensor<f32>) -> tensor<8x16xf32> {
  // CHECK-NEXT: %0 = stablehlo.add %arg0, %arg1 : tensor<8x16xf32>
  // CHECK-NEXT: %1 = stablehlo.subtract %arg0, %arg1 : tensor<8x16xf32>
  // CHECK-NEXT: %2 = stablehlo.multiply %arg0, %arg1 : tensor<8x16xf32>
  // CHECK-NEXT: %3 = stablehlo.divide %arg0, %arg1 : tensor<8x16xf32>
  // CHECK-NEXT: %4 = stablehlo.remainder %arg0, %arg1 : tensor<8x16xf32>
  // CHECK-NEXT: %5 = stablehlo.maximum %arg0, %arg1 : tensor<8x16xf32>
  // CHECK-NEXT: %6 = stablehlo.minimum %arg0, %arg1 : tensor<8x16xf32>
  // CHECK-NEXT: %7 = stablehlo.power %arg0, %arg1 : tensor<8x16xf32>
  // CHECK-NEXT: %8 = stablehlo.and %arg2, %arg2 : tensor<8x16xi32>
  // CHECK-NEXT: %9 = stablehlo.or %arg2, %arg2 : tensor<8x16xi32>
  // CHECK-NEXT: %10 = stablehlo.xor %arg2, %arg2 : tensor<8x16xi32>
  // CHECK-NEXT: %11 = stablehlo.not %arg2 : tensor<8x16xi32>
  %0 = stablehlo.add %arg0, %arg1 : tensor<8x16xf32>
  %1 = stablehlo.subtract %arg0, %arg1 : tensor<8x16xf32>
  %2 = stablehlo.multiply %arg0, %arg1 : tensor<8x16xf32>
  %3 = stablehlo.divide %arg0, %arg1 : tensor<8x16xf32>
  %4 = stablehlo.remainder %arg0, %arg1 : tensor<8x16xf32>
  %5 = stablehlo.maximum %arg0, %arg1 : tensor<8x16xf32>
  %6 = stablehlo.minimum %arg0, %arg1 : tensor<8x16xf32>
  %7 = stablehlo.power %arg0, %arg1 : tensor<8x16xf32>
  %8 = stablehlo.and %arg2, %arg2 : tensor<8x16xi32>
  %9 = stablehlo.or %arg2, %arg2 : tensor<8x16xi32>
  %10 = stablehlo.xor %arg2, %arg2 : tensor<8x16xi32>
  %11 = stablehlo.not %arg2 : tensor<8x16xi32>
  // CHECK-NEXT: %12 = stablehlo.negate %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %13 = stablehlo.abs %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %14 = stablehlo.sign %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %15 = stablehlo.floor %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %16 = stablehlo.ceil %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %17 = stablehlo.exponential %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %18 = stablehlo.exponential_minus_one %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %19 = stablehlo.log %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %20 = stablehlo.log_plus_one %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %21 = stablehlo.tanh %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %22 = stablehlo.logistic %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %23 = stablehlo.sqrt %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %24 = stablehlo.rsqrt %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %25 = stablehlo.cbrt %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %26 = stablehlo.sine %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %27 = stablehlo.cosine %arg0 : tensor<8x16xf32>
  %12 = stablehlo.negate %arg0 : tensor<8x16xf32>
  %13 = stablehlo.abs %arg0 : tensor<8x16xf32>
  %14 = stablehlo.sign %arg0 : tensor<8x16xf32>
  %15 = stablehlo.floor %arg0 : tensor<8x16xf32>
  %16 = stablehlo.ceil %arg0 : tensor<8x16xf32>
  %17 = stablehlo.exponential %arg0 : tensor<8x16xf32>
  %18 = stablehlo.exponential_minus_one %arg0 : tensor<8x16xf32>
  %19 = stablehlo.log %arg0 : tensor<8x16xf32>
  %20 = stablehlo.log_plus_one %arg0 : tensor<8x16xf32>
  %21 = stablehlo.tanh %arg0 : tensor<8x16xf32>
  %22 = stablehlo.logistic %arg0 : tensor<8x16xf32>
  %23 = stablehlo.sqrt %arg0 : tensor<8x16xf32>
  %24 = stablehlo.rsqrt %arg0 : tensor<8x16xf32>
  %25 = stablehlo.cbrt %arg0 : tensor<8x16xf32>
  %26 = stablehlo.sine %arg0 : tensor<8x16xf32>
  %27 = stablehlo.cosine %arg0 : tensor<8x16xf32>
  // Types that differ print as a function type; equal ones as one type.
  // CHECK-NEXT: %28 = stablehlo.is_finite %arg0 : (tensor<8x16xf32>) -> tensor<8x16xi1>
  // CHECK-NEXT: %29 = stablehlo.convert %arg0 : (tensor<8x16xf32>) -> tensor<8x16xi32>
  // CHECK-NEXT: %30 = stablehlo.convert %arg3 : tensor<f32>
  // CHECK-NEXT: %31 = stablehlo.clamp %arg3, %arg0, %arg3 : (tensor<f32>, tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  // CHECK-NEXT: %32 = stablehlo.clamp %arg0, %arg1, %arg0 : tensor<8x16xf32>
  %28 = stablehlo.is_finite %arg0 : (tensor<8x16xf32>) -> tensor<8x16xi1>
  %29 = stablehlo.convert %arg0 : (tensor<8x16xf32>) -> tensor<8x16xi32>
  %30 = stablehlo.convert %arg3 : tensor<f32>
  %31 = stablehlo.clamp %arg3, %arg0, %arg3 : (tensor<f32>, tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  %32 = stablehlo.clamp %arg0, %arg1, %arg0 : tensor<8x16xf32>
  // CHECK-NEXT: %33 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  // CHECK-NEXT: %34 = stablehlo.compare LT, %arg2, %arg2, SIGNED : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
  // CHECK-NEXT: %35 = stablehlo.compare EQ, %arg0, %arg1 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  // CHECK-NEXT: %36 = stablehlo.select %33, %arg0, %arg1 : tensor<8x16xi1>, tensor<8x16xf32>
  %33 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  %34 = stablehlo.compare LT, %arg2, %arg2, SIGNED : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
  %35 = stablehlo.compare EQ, %arg0, %arg1 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  %36 = stablehlo.select %33, %arg0, %arg1 : tensor<8x16xi1>, tensor<8x16xf32>
  // Discardable attributes (later: sbp.sig) sit where MLIR's attr-dict goes.
  // CHECK-NEXT: %37 = stablehlo.add %arg0, %36 {sbp.note = "kept"} : tensor<8x16xf32>
  // CHECK-NEXT: %38 = stablehlo.compare NE, %arg0, %37, TOTALORDER {sbp.note = 1 : i64} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  %37 = stablehlo.add %arg0, %36 {sbp.note = "kept"} : tensor<8x16xf32>
  %38 = stablehlo.compare NE, %arg0, %37, TOTALORDER {sbp.note = 1 : i64} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  // CHECK-NEXT: func.return %37 : tensor<8x16xf32>
  return %37 : tensor<8x16xf32>
}

// CHECK-LABEL: func.func public @constants
func.func public @constants() -> tensor<4xf32> {
  // Floats print as MLIR prints them: -inf in hex, 1e-5 in APFloat's form.
  // CHECK-NEXT: %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  // CHECK-NEXT: %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
  // CHECK-NEXT: %cst_2 = stablehlo.constant dense<[1.000000e+00, 0.797884583, -0.000000e+00, 0x7FC00000]> : tensor<4xf32>
  // CHECK-NEXT: %c = stablehlo.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
  // CHECK-NEXT: %c_1 = stablehlo.constant dense<true> : tensor<i1>
  // CHECK-NEXT: %c_2 = stablehlo.constant {sbp.note} dense<0> : tensor<8xi64>
  // CHECK-NEXT: %0 = stablehlo.iota dim = 0 : tensor<8xi32>
  // CHECK-NEXT: %1 = stablehlo.iota dim = 1 : tensor<8x8xi32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %cst_0 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
  %cst_1 = stablehlo.constant dense<[1.0, 0.797884583, -0.0, 0x7FC00000]> : tensor<4xf32>
  %c = stablehlo.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
  %c_0 = stablehlo.constant dense<true> : tensor<i1>
  %c_1 = stablehlo.constant {sbp.note} dense<0> : tensor<8xi64>
  %0 = stablehlo.iota dim = 0 : tensor<8xi32>
  %1 = stablehlo.iota dim = 1 : tensor<8x8xi32>
  return %cst_1 : tensor<4xf32>
}

// CHECK-LABEL: func.func public @shapes
func.func public @shapes(%arg0: tensor<8x16xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>) -> tensor<8x16xf32> {
  // CHECK-NEXT: %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
  // CHECK-NEXT: %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2] : (tensor<8x16xf32>) -> tensor<8x4x16xf32>
  // CHECK-NEXT: %2 = stablehlo.reshape %arg0 : (tensor<8x16xf32>) -> tensor<2x4x16xf32>
  // CHECK-NEXT: %3 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
  // CHECK-NEXT: %4 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  // CHECK-NEXT: %5 = stablehlo.slice %arg0 [1:3, 0:16:2] : (tensor<8x16xf32>) -> tensor<2x8xf32>
  // CHECK-NEXT: %6 = stablehlo.slice %arg1 [] : (tensor<f32>) -> tensor<f32>
  // CHECK-NEXT: %7 = stablehlo.dynamic_slice %arg0, %arg2, %arg2, sizes = [2, 4] : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %8 = stablehlo.dynamic_update_slice %arg0, %7, %arg2, %arg2 : (tensor<8x16xf32>, tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x16xf32>
  // CHECK-NEXT: %9 = stablehlo.pad %arg0, %arg1, low = [1, 0], high = [2, 3], interior = [0, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<11x34xf32>
  // CHECK-NEXT: %10 = stablehlo.reverse %arg0, dims = [0] : tensor<8x16xf32>
  %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
  %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2] : (tensor<8x16xf32>) -> tensor<8x4x16xf32>
  %2 = stablehlo.reshape %arg0 : (tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %3 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %4 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  %5 = stablehlo.slice %arg0 [1:3, 0:16:2] : (tensor<8x16xf32>) -> tensor<2x8xf32>
  %6 = stablehlo.slice %arg1 [] : (tensor<f32>) -> tensor<f32>
  %7 = stablehlo.dynamic_slice %arg0, %arg2, %arg2, sizes = [2, 4] : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
  %8 = stablehlo.dynamic_update_slice %arg0, %7, %arg2, %arg2 : (tensor<8x16xf32>, tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x16xf32>
  %9 = stablehlo.pad %arg0, %arg1, low = [1, 0], high = [2, 3], interior = [0, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<11x34xf32>
  %10 = stablehlo.reverse %arg0, dims = [0] : tensor<8x16xf32>
  return %10 : tensor<8x16xf32>
}

// CHECK-LABEL: func.func public @contractions
func.func public @contractions(%arg0: tensor<8x16xf32>, %arg1: tensor<16x4xf32>, %arg2: tensor<2x4x16xf32>, %arg3: tensor<2x16x8xf32>) -> tensor<8x4xf32> {
  // CHECK-NEXT: %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  // CHECK-NEXT: %1 = stablehlo.dot_general %arg2, %arg3, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGHEST, HIGH] : (tensor<2x4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>
  // CHECK-NEXT: %2 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [] x [] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x16x16x4xf32>
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %1 = stablehlo.dot_general %arg2, %arg3, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGHEST, HIGH] : (tensor<2x4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>
  %2 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [] x [] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x16x16x4xf32>
  return %0 : tensor<8x4xf32>
}

// CHECK-LABEL: func.func public @reductions
func.func public @reductions(%arg0: tensor<8x16xf32>, %arg1: tensor<8x16xi32>) -> (tensor<8xf32>, tensor<8xi32>) {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  // A body that is one commutative binary op prints in the short form.
  // CHECK:      %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  // CHECK-NEXT: %1 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<f32>
  // Anything else prints its body after `reducer`, as argmax does.
  // CHECK-NEXT: %2, %3 = stablehlo.reduce(%arg0 init: %cst), (%arg1 init: %c) across dimensions = [1] : (tensor<8x16xf32>, tensor<8x16xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>)
  // CHECK-NEXT:  reducer(%arg2: tensor<f32>, %arg4: tensor<f32>) (%arg3: tensor<i32>, %arg5: tensor<i32>)  {
  // CHECK-NEXT:   %4 = stablehlo.compare GT, %arg2, %arg4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
  // CHECK-NEXT:   %5 = stablehlo.select %4, %arg2, %arg4 : tensor<i1>, tensor<f32>
  // CHECK-NEXT:   %6 = stablehlo.select %4, %arg3, %arg5 : tensor<i1>, tensor<i32>
  // CHECK-NEXT:   stablehlo.return %5, %6 : tensor<f32>, tensor<i32>
  // CHECK-NEXT: }
  %2:2 = stablehlo.reduce(%arg0 init: %cst), (%arg1 init: %c) across dimensions = [1] : (tensor<8x16xf32>, tensor<8x16xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>)
   reducer(%arg2: tensor<f32>, %arg4: tensor<f32>) (%arg3: tensor<i32>, %arg5: tensor<i32>)  {
    %4 = stablehlo.compare GT, %arg2, %arg4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %5 = stablehlo.select %4, %arg2, %arg4 : tensor<i1>, tensor<f32>
    %6 = stablehlo.select %4, %arg3, %arg5 : tensor<i1>, tensor<i32>
    stablehlo.return %5, %6 : tensor<f32>, tensor<i32>
  }
  // A non-commutative body is never short.
  // CHECK-NEXT: %7 = stablehlo.reduce(%arg0 init: %cst) across dimensions = [1] {sbp.note} : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  // CHECK-NEXT:  reducer(%a: tensor<f32>, %b: tensor<f32>)  {
  // CHECK-NEXT:   %8 = stablehlo.subtract %a, %b : tensor<f32>
  // CHECK-NEXT:   stablehlo.return %8 : tensor<f32>
  // CHECK-NEXT: }
  %3 = stablehlo.reduce(%arg0 init: %cst) across dimensions = [1] {sbp.note} : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %4 = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %4 : tensor<f32>
  }
  return %0, %2#1 : tensor<8xf32>, tensor<8xi32>
}
