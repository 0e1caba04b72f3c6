// RUN: not sbpc-opt %s -p sbp-export-sdy 2>&1 | filecheck %s

// Found by the fuzzer: an error about the module of a file of bare functions
// (an implicit module) was `<unknown>:0:0`; it is the start of the file.
// CHECK: implicit-module-location.mlir:1:1: error: no placement: add sbp.placement to the module
// CHECK-NOT: <unknown>
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
