// RUN: sbpc-opt %s --split-input-file -p sbp-lower-boxing | filecheck %s

// DESIGN.md's boxing table on one hierarchy dimension: each layout change a
// function result asks for becomes one collective (or local op).

module attributes {sbp.placement = #sbp.placement<cuda, [0, 1, 2, 3]>} {
  // CHECK-LABEL: func.func @s_to_b
  // CHECK: %[[R:.*]] = sbp.all_gather %a dims [0] from [S(0)] to [B] : tensor<8x16xf32>
  // CHECK: func.return %[[R]]
  func.func @s_to_b(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[B]>}) {
    return %a : tensor<8x16xf32>
  }
  // CHECK-LABEL: func.func @s_to_s
  // CHECK: sbp.all_to_all %a dims [0] from [S(0)] to [S(1)]
  func.func @s_to_s(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) {
    return %a : tensor<8x16xf32>
  }
  // CHECK-LABEL: func.func @p_to_b
  // CHECK: sbp.all_reduce %a dims [0] from [P(sum)] to [B]
  func.func @p_to_b(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[P]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[B]>}) {
    return %a : tensor<8x16xf32>
  }
  // CHECK-LABEL: func.func @pmax_to_b
  // CHECK: sbp.all_reduce %a dims [0] from [P(max)] to [B]
  func.func @pmax_to_b(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[P(max)]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[B]>}) {
    return %a : tensor<8x16xf32>
  }
  // CHECK-LABEL: func.func @p_to_s
  // CHECK: sbp.reduce_scatter %a dims [0] from [P(sum)] to [S(1)]
  func.func @p_to_s(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[P]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) {
    return %a : tensor<8x16xf32>
  }
  // CHECK-LABEL: func.func @b_to_s
  // CHECK: sbp.local_slice %a dims [0] from [B] to [S(0)]
  func.func @b_to_s(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[B]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    return %a : tensor<8x16xf32>
  }
  // CHECK-LABEL: func.func @b_to_p
  // CHECK: sbp.local_to_partial %a dims [0] from [B] to [P(sum)]
  func.func @b_to_p(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[B]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[P]>}) {
    return %a : tensor<8x16xf32>
  }
  // CHECK-LABEL: func.func @s_to_p
  // CHECK: sbp.local_to_partial %a dims [0] from [S(1)] to [P(sum)]
  func.func @s_to_p(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[P]>}) {
    return %a : tensor<8x16xf32>
  }
  // CHECK-LABEL: func.func @same
  // CHECK-NEXT: func.return %a
  func.func @same(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    return %a : tensor<8x16xf32>
  }
  // A partial result without a wanted layout is finished before it is returned.
  // CHECK-LABEL: func.func @finish_partial
  // CHECK-SAME: -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[B]>})
  // CHECK: sbp.all_reduce %a dims [0] from [P(sum)] to [B]
  func.func @finish_partial(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[P]>}) -> tensor<8x16xf32> {
    return %a : tensor<8x16xf32>
  }
}
