// RUN: sbpc-opt %s --split-input-file --verify-diagnostics
// RUN: not sbpc-opt %s 2>&1 | filecheck %s

// An op sbpc does not read is sbpc's own located error, at the op's name:
// what is not supported and where docs/ops.md lists what is; never xDSL's
// bare "Operation ... is not registered".
// CHECK: unknown-ops.mlir:[[# @LINE + 7]]:8: error: 'stablehlo.foo' is not supported: sbpc reads the stablehlo ops listed in docs/ops.md, and this is not one of them
// CHECK-NEXT: {{^}}  %0 = stablehlo.foo %a : tensor<4xf32>
// CHECK-NEXT: {{^}}       ^
// CHECK-NOT: not registered

func.func @known_dialect(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.foo' is not supported: sbpc reads the stablehlo ops listed in docs/ops.md, and this is not one of them}}
  %0 = stablehlo.foo %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_dialect(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mydialect.op' is not supported: sbpc does not read the 'mydialect' dialect (it reads builtin, func, arith, linalg, tensor, stablehlo, chlo, sdy, sbp; docs/ops.md lists their ops)}}
  %0 = mydialect.op %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @generic_form(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mydialect.op' is not supported: sbpc does not read the 'mydialect' dialect}}
  %0 = "mydialect.op"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sdy_op_not_read(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'sdy.data_flow_edge' is not supported: sbpc reads the sdy ops listed in docs/ops.md}}
  %0 = sdy.data_flow_edge %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
