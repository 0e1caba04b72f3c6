// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=greedy}' | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=bfs}' | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal}' | filecheck %s

// A batch of 6 pinned as S(0) on 4 devices (pieces 2, 2, 1, 1) is kept: the
// elementwise op and the matmul run on the unequal pieces; a reshape across
// the uneven split gets only even candidates, so the planner boxes first.

// CHECK: func.func @main(%x: tensor<6x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}
// CHECK: stablehlo.exponential %x {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>}
// CHECK: stablehlo.dot_general {{.*}}sbp.sig = #sbp.sig<([S(0)], [B]) -> ([S(0)])>
// CHECK: stablehlo.reshape {{.*}}sbp.sig = #sbp.sig<([{{B|P\(sum\)}}])
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  func.func @main(%x: tensor<6x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}, %w: tensor<8x4xf32>) -> tensor<24xf32> {
    %0 = stablehlo.exponential %x : tensor<6x8xf32>
    %1 = stablehlo.dot_general %0, %w, contracting_dims = [1] x [0] : (tensor<6x8xf32>, tensor<8x4xf32>) -> tensor<6x4xf32>
    %2 = stablehlo.reshape %1 : (tensor<6x4xf32>) -> tensor<24xf32>
    return %2 : tensor<24xf32>
  }
}
