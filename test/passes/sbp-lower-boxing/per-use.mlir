// RUN: sbpc-opt %s -p sbp-lower-boxing | filecheck %s

// FSDP's per-use gather: %w is stored split (S(0) over both devices) and
// marked sbp.gather_per_use, so each product reading it whole gets a gather
// of its own, built just before it, from the shard fenced together with the
// product's other operand by an optimization_barrier (which the product then
// reads): XLA can neither run the second gather at the start nor merge the
// two (CSE).  %v is not marked: one gather, right at the start, serves both
// readers.  A reader with no computed operand and nothing computed before
// it (the first op) gets a plain gather just before it.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  // CHECK-LABEL: func.func @step
  // CHECK-SAME: %w: tensor<16x16xf32> {sbp.gather_per_use, sbp.nd_sbp = #sbp.nd<[S(0)]>}
  func.func @step(%x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                  %w: tensor<16x16xf32> {sbp.gather_per_use, sbp.nd_sbp = #sbp.nd<[S(0)]>},
                  %v: tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> tensor<8x16xf32> {
    // CHECK-NEXT: %[[V:.*]] = sbp.all_gather %v dims [0] from [S(0)] to [B]
    // CHECK-NOT: sbp.all_gather
    // CHECK: %[[A:.*]] = stablehlo.tanh %x
    // CHECK-NEXT: %[[S1:.*]], %[[A1:.*]] = stablehlo.optimization_barrier %w, %[[A]]
    // CHECK-SAME: sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)], [S(0)])>
    // CHECK-NEXT: %[[W1:.*]] = sbp.all_gather %[[S1]] dims [0] from [S(0)] to [B]
    // CHECK-NEXT: stablehlo.dot_general %[[A1]], %[[W1]]
    %a = stablehlo.tanh %x {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>} : tensor<8x16xf32>
    %h = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0)], [B]) -> ([S(0)])>} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %t = stablehlo.tanh %h {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>} : tensor<8x16xf32>
    // CHECK: stablehlo.dot_general %{{.*}}, %[[V]]
    %u = stablehlo.dot_general %t, %v, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0)], [B]) -> ([S(0)])>} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    // CHECK: %[[E:.*]] = stablehlo.exponential
    // CHECK-NEXT: %[[S2:.*]], %[[E2:.*]] = stablehlo.optimization_barrier %w, %[[E]]
    // CHECK-NEXT: %[[W2:.*]] = sbp.all_gather %[[S2]] dims [0] from [S(0)] to [B]
    // CHECK-NEXT: stablehlo.dot_general %[[E2]], %[[W2]]
    // CHECK-NOT: sbp.all_gather
    %e = stablehlo.exponential %u {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>} : tensor<8x16xf32>
    %g = stablehlo.dot_general %e, %w, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0)], [B]) -> ([S(0)])>} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    // CHECK: stablehlo.dot_general %{{.*}}, %[[V]]
    %r = stablehlo.dot_general %g, %v, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0)], [B]) -> ([S(0)])>} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    return %r : tensor<8x16xf32>
  }

  // CHECK-LABEL: func.func @first
  func.func @first(%x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                   %w: tensor<16x16xf32> {sbp.gather_per_use, sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> tensor<8x16xf32> {
    // CHECK-NEXT: %[[W:.*]] = sbp.all_gather %w dims [0] from [S(0)] to [B]
    // CHECK-NEXT: stablehlo.dot_general %x, %[[W]]
    %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0)], [B]) -> ([S(0)])>} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    return %h : tensor<8x16xf32>
  }
}
