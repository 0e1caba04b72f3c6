// RUN: sbpc-opt %s --split-input-file -p sbp-import-sdy | filecheck %s

// Shardy's propagation hints are read for their values: a barrier is its
// operand, a sharding group nothing, a named computation its body inlined
// with its shardings as casts; a sharding rule stays an attribute.

sdy.mesh @mesh = <["a"=2, "b"=2]>
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %arg0: tensor<8x2xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}
// CHECK-NEXT: %arg1 = sbp.cast %arg0 to #sbp.nd<[B, S(0)]> : tensor<8x2xf32>
// CHECK-NEXT: %0 = stablehlo.add %arg1, %arg1 {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=2}>} : tensor<8x2xf32>
// CHECK-NEXT: %1 = sbp.cast %0 to #sbp.nd<[S(0), B]> : tensor<8x2xf32>
// CHECK-NEXT: %2 = stablehlo.negate %1 : tensor<8x2xf32>
// CHECK-NEXT: func.return %2 : tensor<8x2xf32>
func.func @main(%arg0: tensor<8x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}) -> tensor<8x2xf32> {
  %0 = sdy.propagation_barrier %arg0 allowed_direction=BACKWARD : tensor<8x2xf32>
  sdy.sharding_group %0 group_id=3 : tensor<8x2xf32>
  %1 = sdy.named_computation<"foo">(%0) in_shardings=[<@mesh, [{"b"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] (%arg1: tensor<8x2xf32>) {
    %2 = stablehlo.add %arg1, %arg1 {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=2}>} : tensor<8x2xf32>
    sdy.return %2 : tensor<8x2xf32>
  } : (tensor<8x2xf32>) -> tensor<8x2xf32>
  %3 = stablehlo.negate %1 : tensor<8x2xf32>
  return %3 : tensor<8x2xf32>
}

// -----

// No shardings written: the body alone.
sdy.mesh @mesh = <["a"=2]>
// CHECK-LABEL: func.func @plain(
// CHECK-NEXT: %0 = stablehlo.negate %arg0
// CHECK-NEXT: func.return %0, %arg0
func.func @plain(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0:2 = sdy.named_computation<"g">(%arg0) (%arg1: tensor<8xf32>) {
    %1 = stablehlo.negate %arg1 : tensor<8xf32>
    sdy.return %1, %arg1 : tensor<8xf32>, tensor<8xf32>
  } : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  return %0#0, %0#1 : tensor<8xf32>, tensor<8xf32>
}
