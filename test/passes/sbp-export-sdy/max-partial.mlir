// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p sbp-export-sdy | filecheck %s
// RUN: sbpc-opt %s --split-input-file -p sbp-export-sdy,sbp-import-sdy 2>/dev/null | filecheck %s --check-prefix=BACK

// A max-partial is unreduced=max; importing it gives P(max) back.

// CHECK-LABEL: func.func @f
// CHECK-SAME: -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], unreduced=max{"d0"}>})
// CHECK: stablehlo.reduce{{.*}}{sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}], unreduced=max{"d0"}>]>}
// BACK-LABEL: func.func @f
// BACK-SAME: -> (tensor<8xf32> {sbp.nd_sbp = #sbp.nd<[P(max)]>})
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @f(%x: tensor<8x4xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) -> (tensor<8xf32> {sbp.nd_sbp = #sbp.nd<[P(max)]>}) {
    %c = stablehlo.constant {sbp.sig = #sbp.sig<() -> ([B])>} dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%x init: %c) applies stablehlo.maximum across dimensions = [1] {sbp.sig = #sbp.sig<([S(1)], [B]) -> ([P(max)])>} : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}

// -----

// One sharding has one reduction: mixed partial kinds keep the first.

// CHECK-LABEL: func.func @mixed
// CHECK-SAME: {sdy.sharding = #sdy.sharding<@mesh, [{}], unreduced={"d0"}>}
// BACK-LABEL: func.func @mixed
module attributes {sbp.placement = #sbp.placement<cpu, [[0, 1], [2, 3]]>} {
  // expected-warning @+1 {{layout [P(sum), P(max)] mixes partial kinds, which one Shardy sharding cannot say: only the sum axes are written unreduced, the others replicated}}
  func.func @mixed(%x: tensor<8xf32> {sbp.nd_sbp = #sbp.nd<[P(sum), P(max)]>}) -> tensor<8xf32> {
    return %x : tensor<8xf32>
  }
}
