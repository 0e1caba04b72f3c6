// RUN: sbpc-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Each distinct plain StableHLO op is verified once per verification
// (module_verify.VerifyMemo): an op that repeats a verified one but for its
// result type is still verified, and its error is located on its own line;
// repeated valid ops pass.

// CHECK: func.func @twins
func.func @twins(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.add %a, %b : tensor<4x8xf32>
  %1 = stablehlo.add %a, %b : tensor<4x8xf32>
  %2 = stablehlo.add %0, %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

func.func @broken_twin(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.add %a, %b : tensor<4x8xf32>
  // expected-error @+1 {{stablehlo.add}}
  %1 = "stablehlo.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf32>
}
