// RUN: sbpc-opt %s | filecheck %s
// RUN: sbpc-opt %s | sbpc-opt | filecheck %s

// The module and function syntax JAX wraps around the ops parses with xDSL's
// builtin and func dialects: module attributes, public and private functions,
// result attributes, calls with several results, and constants such as -inf
// that MLIR writes as hex bit patterns (xDSL alone would read
// dense<0xFF800000> as the number 4286578688; the dialect fixes that).

// CHECK:      builtin.module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
// CHECK-NEXT:   func.func public @main(%arg0: tensor<8x16xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8x16xf32> {jax.result_info = "result[1]"}) {
// CHECK-NEXT:     %0, %1 = func.call @row_max(%arg0) : (tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8x16xf32>)
// CHECK-NEXT:     func.return %0, %1 : tensor<8xf32>, tensor<8x16xf32>
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func private @row_max(%arg0: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8x16xf32>) {
// CHECK-NEXT:     %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK-NEXT:     %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK-NEXT:     %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
// CHECK-NEXT:     func.return %0, %1 : tensor<8xf32>, tensor<8x16xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8x16xf32> {jax.result_info = "result[1]"}) {
    %0:2 = call @row_max(%arg0) : (tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8x16xf32>)
    return %0#0, %0#1 : tensor<8xf32>, tensor<8x16xf32>
  }
  func.func private @row_max(%arg0: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8x16xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
    return %0, %1 : tensor<8xf32>, tensor<8x16xf32>
  }
}
