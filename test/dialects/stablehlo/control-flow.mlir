// RUN: sbpc-opt %s --split-input-file | filecheck %s
// RUN: sbpc-opt %s --split-input-file | sbpc-opt --split-input-file | filecheck %s
// RUN: sbpc-opt %s --split-input-file --print-op-generic | sbpc-opt --split-input-file | filecheck %s

// Control flow as jax 0.10.2 prints it: lax.fori_loop (while with a counter),
// the threefry bits of jax.random (shift, bitcast_convert), lax.cond (case),
// jax.checkpoint (optimization_barrier), rng_bit_generator and custom_call.

// CHECK-LABEL: func.func public @fori
func.func public @fori(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  // CHECK: %0, %1 = stablehlo.while(%[[I:iterArg]] = %c, %[[X:iterArg_[0-9]+]] = %arg0) : tensor<i32>, tensor<8x16xf32>
  // CHECK-NEXT: cond {
  // CHECK-NEXT:   %[[N:.*]] = stablehlo.constant dense<3> : tensor<i32>
  // CHECK-NEXT:   %2 = stablehlo.compare LT, %[[I]], %[[N]], SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  // CHECK-NEXT:   stablehlo.return %2 : tensor<i1>
  // CHECK-NEXT: } do {
  // CHECK-NEXT:   %{{.*}} = stablehlo.multiply %[[X]], %[[X]] : tensor<8x16xf32>
  // CHECK:        stablehlo.return %{{.*}}, %{{.*}} : tensor<i32>, tensor<8x16xf32>
  // CHECK-NEXT: }
  %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<8x16xf32>
  cond {
    %c_1 = stablehlo.constant dense<3> : tensor<i32>
    %1 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1 = stablehlo.multiply %iterArg_0, %iterArg_0 : tensor<8x16xf32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>
    stablehlo.return %2, %1 : tensor<i32>, tensor<8x16xf32>
  }
  return %0#1 : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func.func public @bits
func.func public @bits(%arg0: tensor<8x16xui32>) -> tensor<8x16xf32> {
  %c = stablehlo.constant dense<9> : tensor<ui32>
  %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<8x16xui32>
  // CHECK: stablehlo.shift_right_logical %arg0, %0 : tensor<8x16xui32>
  %1 = stablehlo.shift_right_logical %arg0, %0 : tensor<8x16xui32>
  // CHECK-NEXT: stablehlo.shift_left %1, %0 : tensor<8x16xui32>
  %2 = stablehlo.shift_left %1, %0 : tensor<8x16xui32>
  // CHECK-NEXT: stablehlo.bitcast_convert %2 : (tensor<8x16xui32>) -> tensor<8x16xf32>
  %3 = stablehlo.bitcast_convert %2 : (tensor<8x16xui32>) -> tensor<8x16xf32>
  return %3 : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func.func public @cond
func.func public @cond(%arg0: tensor<i32>, %arg1: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // CHECK: %0 = "stablehlo.case"(%arg0) ({
  // CHECK-NEXT:   %1 = stablehlo.negate %arg1 : tensor<8x16xf32>
  // CHECK-NEXT:   stablehlo.return %1 : tensor<8x16xf32>
  // CHECK-NEXT: }, {
  // CHECK-NEXT:   stablehlo.return %arg1 : tensor<8x16xf32>
  // CHECK-NEXT: }) : (tensor<i32>) -> tensor<8x16xf32>
  %0 = "stablehlo.case"(%arg0) ({
    %1 = stablehlo.negate %arg1 : tensor<8x16xf32>
    stablehlo.return %1 : tensor<8x16xf32>
  }, {
    stablehlo.return %arg1 : tensor<8x16xf32>
  }) : (tensor<i32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func.func public @if
func.func public @if(%arg0: tensor<i1>, %arg1: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // CHECK: %0 = "stablehlo.if"(%arg0) ({
  %0 = "stablehlo.if"(%arg0) ({
    %1 = stablehlo.negate %arg1 : tensor<8x16xf32>
    stablehlo.return %1 : tensor<8x16xf32>
  }, {
    stablehlo.return %arg1 : tensor<8x16xf32>
  }) : (tensor<i1>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func.func public @remat
func.func public @remat(%arg0: tensor<8x16xf32>, %arg1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  // CHECK: %0, %1 = stablehlo.optimization_barrier %arg1, %arg0 : tensor<16x16xf32>, tensor<8x16xf32>
  %0:2 = stablehlo.optimization_barrier %arg1, %arg0 : tensor<16x16xf32>, tensor<8x16xf32>
  return %0#1 : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func.func public @rng
func.func public @rng(%arg0: tensor<2xui64>) -> tensor<4x4xui32> {
  // CHECK: %output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x4xui32>)
  %output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x4xui32>)
  return %output : tensor<4x4xui32>
}

// -----

// CHECK-LABEL: func.func public @call
func.func public @call(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: %0 = stablehlo.custom_call @my_kernel(%arg0) {api_version = 2 : i32, backend_config = ""} : (tensor<8xf32>) -> tensor<8xf32>
  %0 = stablehlo.custom_call @my_kernel(%arg0) {api_version = 2 : i32, backend_config = ""} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
