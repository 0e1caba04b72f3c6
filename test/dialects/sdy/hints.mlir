// RUN: sbpc-opt %s | filecheck %s
// RUN: sbpc-opt %s | sbpc-opt | filecheck %s
// RUN: sbpc-opt %s --print-op-generic | sbpc-opt | filecheck %s

// Shardy's propagation hints print as Shardy prints them.

sdy.mesh @mesh = <["a"=2, "b"=2]>

// CHECK-LABEL: func.func @hints
func.func @hints(%arg0: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // CHECK-NEXT: %0 = sdy.propagation_barrier %arg0 allowed_direction=BACKWARD {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a", ?}, {}]>]>} : tensor<8x2xf32>
  %0 = sdy.propagation_barrier %arg0 allowed_direction=BACKWARD {sdy.sharding=#sdy.sharding_per_value<[<@mesh, [{"a",?}, {}]>]>} : tensor<8x2xf32>
  // CHECK-NEXT: sdy.sharding_group %0 group_id=21 : tensor<8x2xf32>
  sdy.sharding_group %0 group_id=21 : tensor<8x2xf32>
  // CHECK-NEXT: sdy.sharding_group %0 group_id=3 type=OS : tensor<8x2xf32>
  sdy.sharding_group %0 group_id=3 type=OS : tensor<8x2xf32>
  // CHECK-NEXT: %1 = sdy.named_computation<"foo">(%0) in_shardings=[<@mesh, [{"b"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] (%arg1: tensor<8x2xf32>) {
  // CHECK-NEXT:   %2 = stablehlo.add %arg1, %arg1 {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=2}>} : tensor<8x2xf32>
  // CHECK-NEXT:   sdy.return %2 : tensor<8x2xf32>
  // CHECK-NEXT: } : (tensor<8x2xf32>) -> tensor<8x2xf32>
  %1 = sdy.named_computation<"foo">(%0) in_shardings=[<@mesh, [{"b"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] (%arg1: tensor<8x2xf32>) {
    %2 = stablehlo.add %arg1, %arg1 {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=2}>} : tensor<8x2xf32>
    sdy.return %2 : tensor<8x2xf32>
  } : (tensor<8x2xf32>) -> tensor<8x2xf32>
  // CHECK-NEXT: %3 = stablehlo.reshape %1 {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([ij]) {i=8, j=2} reduction={j} need_replication={i} blocked_propagation={j}, custom>} : (tensor<8x2xf32>) -> tensor<16xf32>
  %3 = stablehlo.reshape %1 {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([ij]) {i=8, j=2} reduction={j} need_replication={i} blocked_propagation={j}, custom>} : (tensor<8x2xf32>) -> tensor<16xf32>
  // CHECK: sdy.op_sharding_rule<([], [])->([])>
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  %4 = stablehlo.add %c, %c {sdy.sharding_rule = #sdy.op_sharding_rule<([], [])->([])>} : tensor<f32>
  return %1 : tensor<8x2xf32>
}
