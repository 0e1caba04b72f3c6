// RUN: not sbpc-opt %s --split-input-file 2>&1 | filecheck %s

// What JAX emits for jnp.linalg.cholesky and solve_triangular (off CPU) is
// refused at the op, saying why; never "not registered" or a traceback.

// CHECK: unsupported.mlir:[[# @LINE + 3]]:8: error: stablehlo.cholesky is not supported by sbpc: no SBP rules, reference or JAX lowering for matrix factorisations
// CHECK-NOT: Traceback
func.func @cholesky(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.cholesky %x, lower = true : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// The generic form parses, and the verifier says the same.
// CHECK: unsupported.mlir:[[# @LINE + 2]]:3: error: stablehlo.triangular_solve is not supported by sbpc
func.func @triangular_solve(%a: tensor<4x4xf32>, %b: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
