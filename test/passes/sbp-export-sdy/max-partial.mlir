// RUN: sbpc-opt %s --verify-diagnostics -p sbp-export-sdy | filecheck %s

// Shardy has no max-partial: the axis is written replicated, with a warning.

// CHECK: stablehlo.reduce{{.*}}{sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}]>]>}
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  // expected-warning @+1 {{layout [P(max)] has a max/min partial}}
  func.func @f(%x: tensor<8x4xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) -> (tensor<8xf32> {sbp.nd_sbp = #sbp.nd<[P(max)]>}) {
    %c = stablehlo.constant {sbp.sig = #sbp.sig<() -> ([B])>} dense<0xFF800000> : tensor<f32>
    // expected-warning @+1 {{layout [P(max)] has a max/min partial, which Shardy cannot say: written replicated on that axis}}
    %0 = stablehlo.reduce(%x init: %c) applies stablehlo.maximum across dimensions = [1] {sbp.sig = #sbp.sig<([S(1)], [B]) -> ([P(max)])>} : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
