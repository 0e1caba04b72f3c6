// RUN: sbpc-opt %s -p sbp-lower-boxing | filecheck %s

// Uneven splits box like even ones (docs/uneven-splits.md): 6 rows over 4
// devices are pieces of 2, 2, 1, 1; the steps are the boxing table's.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  // CHECK-LABEL: func.func @slice
  // CHECK: sbp.local_slice %a dims [0] from [B] to [S(0)] : tensor<6x8xf32>
  func.func @slice(%a: tensor<6x8xf32> {sbp.nd_sbp = #sbp.nd<[B]>}) -> tensor<6x8xf32> {
    %0 = sbp.cast %a to #sbp.nd<[S(0)]> : tensor<6x8xf32>
    return %0 : tensor<6x8xf32>
  }
  // CHECK-LABEL: func.func @gather
  // CHECK: sbp.all_gather %a dims [0] from [S(1)] to [B] : tensor<6x7xf32>
  func.func @gather(%a: tensor<6x7xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) -> tensor<6x7xf32> {
    %0 = sbp.cast %a to #sbp.nd<[B]> : tensor<6x7xf32>
    return %0 : tensor<6x7xf32>
  }
  // CHECK-LABEL: func.func @all_to_all
  // CHECK: sbp.all_to_all %a dims [0] from [S(0)] to [S(1)] : tensor<6x7xf32>
  func.func @all_to_all(%a: tensor<6x7xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> tensor<6x7xf32> {
    %0 = sbp.cast %a to #sbp.nd<[S(1)]> : tensor<6x7xf32>
    return %0 : tensor<6x7xf32>
  }
  // CHECK-LABEL: func.func @reduce_scatter
  // CHECK: sbp.reduce_scatter %a dims [0] from [P(sum)] to [S(0)] : tensor<6x7xf32>
  func.func @reduce_scatter(%a: tensor<6x7xf32> {sbp.nd_sbp = #sbp.nd<[P]>}) -> tensor<6x7xf32> {
    %0 = sbp.cast %a to #sbp.nd<[S(0)]> : tensor<6x7xf32>
    return %0 : tensor<6x7xf32>
  }
}
