// RUN: sbpc-opt %s -p sbp-lower-boxing | filecheck %s

// N-D changes are sequences of per-dimension steps in an order that keeps
// every step a plain collective: (S(0), S(0)) -> (B, B) gathers the inner
// split first (dim 1), then the outer (dim 0).

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
  // CHECK-LABEL: func.func @gather_2d
  // CHECK:      %[[A:.*]] = sbp.all_gather %a dims [1] from [S(0), S(0)] to [S(0), B]
  // CHECK-NEXT: %[[B:.*]] = sbp.all_gather %[[A]] dims [0] from [S(0), B] to [B, B]
  // CHECK-NEXT: func.return %[[B]]
  func.func @gather_2d(%a: tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(0)]>}) -> (tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[B, B]>}) {
    return %a : tensor<16x16xf32>
  }
  // A partial over both dims, wanted replicated: one reduction per dim.
  // CHECK-LABEL: func.func @reduce_2d
  // CHECK-COUNT-2: sbp.{{all_reduce|reduce_scatter|all_gather}}
  func.func @reduce_2d(%a: tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[P, P]>}) -> (tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[B, B]>}) {
    return %a : tensor<16x16xf32>
  }
  // One boxed value serves every consumer that wants the same layout.
  // CHECK-LABEL: func.func @shared
  // CHECK:     %[[G:.*]] = sbp.all_gather %a dims [0] from [S(0), B] to [B, B]
  // CHECK-NOT: sbp.all_gather
  // CHECK:     stablehlo.exponential %[[G]]
  // CHECK:     stablehlo.tanh %[[G]]
  func.func @shared(%a: tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}) -> (tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[B, B]>}, tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[B, B]>}) {
    %0 = stablehlo.exponential %a {sbp.sig = #sbp.sig<([B, B]) -> ([B, B])>} : tensor<16x16xf32>
    %1 = stablehlo.tanh %a {sbp.sig = #sbp.sig<([B, B]) -> ([B, B])>} : tensor<16x16xf32>
    return %0, %1 : tensor<16x16xf32>, tensor<16x16xf32>
  }
  // sbp.cast is lowered like any other layout change and disappears.
  // CHECK-LABEL: func.func @cast
  // CHECK-NOT: sbp.cast
  // CHECK: sbp.local_slice %a dims [1] from [S(0), B] to [S(0), S(1)]
  func.func @cast(%a: tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}) -> (tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>}) {
    %0 = sbp.cast %a to #sbp.nd<[S(0), S(1)]> : tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }
}
