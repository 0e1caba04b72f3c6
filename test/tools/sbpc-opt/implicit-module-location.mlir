// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=zzz}' 2>&1 | filecheck %s
// RUN: not sbpc-opt %s -p 'sbp-lower-boxing{cost_model="zzz"}' 2>&1 | filecheck %s --check-prefix=BOXING

// Found by the fuzzer: an error about the module of a file of bare functions
// (an implicit module) was `<unknown>:0:0`; it is the start of the file.
// CHECK: implicit-module-location.mlir:1:1: error: unknown strategy 'zzz'
// CHECK-NOT: <unknown>
// BOXING: implicit-module-location.mlir:1:1: error: bad cost_model option
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
