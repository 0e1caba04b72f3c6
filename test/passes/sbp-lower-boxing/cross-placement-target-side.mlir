// RUN: sbpc-opt %s -p sbp-propagate,sbp-lower-boxing | filecheck %s

// A value moved to another placement and gathered there: the pieces travel
// (half the bytes of a whole copy) and the all_gather after the transfer
// runs on the target placement, where the transferred value lives.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  // CHECK-LABEL: func.func @stages
  func.func @stages(%x: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> tensor<4x8xf32> {
    %y = stablehlo.tanh %x : tensor<4x8xf32>
    // CHECK: %[[T:.*]] = sbp.transfer %{{.*}} from #sbp.placement<cpu, [0, 1]> [S(0)] to #sbp.placement<cpu, [2, 3]> [S(0)]
    // CHECK-NEXT: sbp.all_gather %[[T]] dims [0] from [S(0)] to [B] on #sbp.placement<cpu, [2, 3]>
    %z = sbp.cast %y to #sbp.nd<[B]> on #sbp.placement<cpu, [2, 3]> : tensor<4x8xf32>
    %r = stablehlo.exponential %z : tensor<4x8xf32>
    return %r : tensor<4x8xf32>
  }
}
