// RUN: sbpc-opt %s -p sbp-propagate,sbp-lower-boxing | filecheck %s

// Seed 001's pipeline example: a matmul on ranks [0, 1], its result moved to
// ranks [2, 3] for the next stage (OneFlow's to_global with another
// placement).  Same hierarchy: the pieces go device to device.

module attributes {sbp.placement = #sbp.placement<cuda, [0, 1]>} {
  // CHECK-LABEL: func.func @stages
  func.func @stages(%x: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
    // CHECK: %[[Y:.*]] = stablehlo.dot_general %x, %w{{.*}}sbp.sig = #sbp.sig<([S(0)], [B]) -> ([S(0)])>
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    // CHECK: %[[T:.*]] = sbp.transfer %[[Y]] from #sbp.placement<cuda, [0, 1]> [S(0)] to #sbp.placement<cuda, [2, 3]> [S(0)]
    // CHECK-NOT: sbp.cast
    %z = sbp.cast %y to #sbp.nd<[S(0)]> on #sbp.placement<cuda, [2, 3]> : tensor<4x8xf32>
    // CHECK: stablehlo.tanh %[[T]]
    %r = stablehlo.tanh %z : tensor<4x8xf32>
    return %r : tensor<4x8xf32>
  }
}
