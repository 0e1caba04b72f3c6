// RUN: sbpc-opt %s | filecheck %s
// RUN: sbpc-opt %s | sbpc-opt | filecheck %s

// chlo.top_k as jax 0.10.2 prints lax.top_k, and its generic form.

// CHECK-LABEL: func.func public @main
func.func public @main(%arg0: tensor<4x8xf32>) -> (tensor<4x3xf32>, tensor<4x3xi32>) {
  // CHECK-NEXT: %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<4x8xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)
  %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<4x8xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)
  // CHECK-NEXT: %0, %1 = chlo.top_k(%arg0, k = 2) : tensor<4x8xf32> -> (tensor<4x2xf32>, tensor<4x2xi32>)
  %0:2 = "chlo.top_k"(%arg0) <{k = 2 : i64}> : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
  return %values, %indices : tensor<4x3xf32>, tensor<4x3xi32>
}
