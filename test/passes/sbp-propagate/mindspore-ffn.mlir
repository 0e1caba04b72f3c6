// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=bfs improve=0}' | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=bfs improve=0},sbp-lower-boxing' | filecheck %s --check-prefix=BOX

// MindSpore's sharding propagation example (seed 004), as MindSpore derives
// it (improve=0: without the local improvement after it): 8 devices as [2, 4],
// the first matmul configured with strategy ((2, 1), (1, 4)), i.e. x split
// in 2 by rows, w1 in 4 by columns.  BFS carries it to the bias add
// ((2, 4), (4)), relu ((2, 4)) and the second matmul ((2, 4), (4, 1)); the
// second matmul's output is partial and needs a reduction.

// The weights arrive in the layouts the configured matmul and BFS chose.
// CHECK: func.func @ffn(%x: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}, %w1: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[B, S(1)]>}, %b1: tensor<64xf32> {sbp.nd_sbp = #sbp.nd<[B, S(0)]>}, %w2: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[B, S(0)]>}
module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
  func.func @ffn(%x: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %b1: tensor<64xf32>,
                 %w2: tensor<64x64xf32>, %b2: tensor<64xf32>) -> tensor<64x64xf32> {
    // CHECK: stablehlo.dot_general %x, %w1
    // CHECK-SAME: sbp.sig = #sbp.sig<([S(0), B], [B, S(1)]) -> ([S(0), S(1)])>
    %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0), B], [B, S(1)]) -> ([S(0), S(1)])>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    // The bias is split like the matmul's columns: ((2, 4), (4)).
    // CHECK: stablehlo.broadcast_in_dim %b1, dims = [1] {sbp.sig = #sbp.sig<([B, S(0)]) -> ([S(0), S(1)])>}
    %1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<64xf32>) -> tensor<64x64xf32>
    // CHECK: stablehlo.add {{.*}} {sbp.sig = #sbp.sig<([S(0), S(1)], [S(0), S(1)]) -> ([S(0), S(1)])>}
    %2 = stablehlo.add %0, %1 : tensor<64x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    // relu: ((2, 4))
    // CHECK: stablehlo.maximum {{.*}} {sbp.sig = #sbp.sig<([S(0), S(1)], [S(0), S(1)]) -> ([S(0), S(1)])>}
    %4 = stablehlo.maximum %2, %3 : tensor<64x64xf32>
    // Second matmul: ((2, 4), (4, 1)): w2 split by rows, the result partial.
    // CHECK: stablehlo.dot_general {{.*}} {sbp.sig = #sbp.sig<([S(0), S(1)], [B, S(0)]) -> ([S(0), P(sum)])>}
    %5 = stablehlo.dot_general %4, %w2, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %6 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<64xf32>) -> tensor<64x64xf32>
    %7 = stablehlo.add %5, %6 : tensor<64x64xf32>
    return %7 : tensor<64x64xf32>
  }
}

// After boxing, the partial output of the second matmul (plus its bias, added
// while partial: one reduction serves both) is reduced over the 4 devices of
// hierarchy dim 1, MindSpore's AllReduce over group 0-1-2-3; sbpc scatters it
// instead, as the result may be split.
// BOX: stablehlo.dot_general {{.*}} -> ([S(0), P(sum)])>}
// BOX: %[[SUM:.*]] = stablehlo.add {{.*}} -> ([S(0), P(sum)])>}
// BOX-NEXT: sbp.reduce_scatter %[[SUM]] dims [1] from [S(0), P(sum)] to [S(0), S(0)]
