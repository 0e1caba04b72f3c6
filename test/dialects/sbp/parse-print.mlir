// RUN: sbpc-opt %s | filecheck %s
// RUN: sbpc-opt %s | sbpc-opt | filecheck %s
// RUN: sbpc-opt %s --print-op-generic | sbpc-opt | filecheck %s
// RUN: sbpc-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Every attribute and op of the sbp dialect prints what it parses; `P` alone
// is P(sum); the generic form parses back to the same IR.

// GENERIC: "sbp.cast"(%{{.*}}) <{nd_sbp = #sbp.nd<[S(0)]>, placement = #sbp.placement<cuda, [8, 9]>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
// GENERIC: "sbp.all_gather"(%{{.*}}) <{dims = array<i64: 1>, from_sbp = #sbp.nd<[S(0), S(1)]>, to_sbp = #sbp.nd<[S(0), B]>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
// GENERIC: "sbp.transfer"(%{{.*}}) <{from_placement = #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>, from_sbp = #sbp.nd<[B, B]>, to_placement = #sbp.placement<cuda, [8, 9]>, to_sbp = #sbp.nd<[S(0)]>}>

// CHECK:      builtin.module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {

  // CHECK-LABEL: func.func @attrs(
  // CHECK-SAME:    %a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>},
  // CHECK-SAME:    %b: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[P(sum), P(max)]>},
  // CHECK-SAME:    %c: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>, sbp.placement = #sbp.placement<cpu, [8, 9]>})
  // CHECK-SAME:    -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>}, tensor<8x16xf32>)
  func.func @attrs(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>},
                   %b: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[P, P(max)]>},
                   %c: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd< [ S(1) ] >,
                                         sbp.placement = #sbp.placement<cpu, [8, 9]>})
      -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>}, tensor<8x16xf32>) {
    // CHECK-NEXT: %0 = arith.addf %a, %a {sbp.sig = #sbp.sig<([S(0), B], [S(0), B]) -> ([S(0), B])>} : tensor<8x16xf32>
    %0 = arith.addf %a, %a {sbp.sig = #sbp.sig<([S(0), B], [S(0), B]) -> ([S(0), B])>} : tensor<8x16xf32>
    // CHECK-NEXT: %1 = arith.maximumf %b, %b {sbp.sig = #sbp.sig<([P(sum), P(max)], [P(sum), P(max)]) -> ([P(sum), P(max)])>} : tensor<8x16xf32>
    %1 = arith.maximumf %b, %b {sbp.sig = #sbp.sig<([P, P(max)], [P, P(max)]) -> ([P, P(max)])>} : tensor<8x16xf32>
    // CHECK-NEXT: %2 = arith.mulf %c, %c {sbp.sig = #sbp.sig<([S(1)], [S(1)]) -> ([P(min)])>} : tensor<8x16xf32>
    %2 = arith.mulf %c, %c {sbp.sig = #sbp.sig<([S(1)], [S(1)]) -> ([P(min)])>} : tensor<8x16xf32>
    // CHECK-NEXT: %3 = sbp.local_slice %0 dims [1] from [S(0), B] to [S(0), S(1)] : tensor<8x16xf32>
    %3 = sbp.local_slice %0 dims [1] from [S(0), B] to [S(0), S(1)] : tensor<8x16xf32>
    // CHECK-NEXT: func.return %3, %0 : tensor<8x16xf32>, tensor<8x16xf32>
    func.return %3, %0 : tensor<8x16xf32>, tensor<8x16xf32>
  }

  // CHECK-LABEL: func.func @cast(
  func.func @cast(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    // CHECK-NEXT: %0 = sbp.cast %x to #sbp.nd<[B, S(1)]> : tensor<8x16xf32>
    %0 = sbp.cast %x to #sbp.nd<[B, S(1)]> : tensor<8x16xf32>
    // CHECK-NEXT: %1 = sbp.cast %0 to #sbp.nd<[P(sum), B]> {note = "kept"} : tensor<8x16xf32>
    %1 = sbp.cast %0 to #sbp.nd<[P, B]> {note = "kept"} : tensor<8x16xf32>
    // CHECK-NEXT: %2 = sbp.cast %1 to #sbp.nd<[S(0)]> on #sbp.placement<cuda, [8, 9]> : tensor<8x16xf32>
    %2 = sbp.cast %1 to #sbp.nd<[S(0)]> on #sbp.placement<cuda, [8, 9]> : tensor<8x16xf32>
    // CHECK-NEXT: %3 = sbp.cast %2 to #sbp.nd<[B, B]> on #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<8x16xf32>
    %3 = sbp.cast %2 to #sbp.nd<[B, B]> on #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<8x16xf32>
    func.return %3 : tensor<8x16xf32>
  }

  // CHECK-LABEL: func.func @collectives(
  func.func @collectives(%x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>}) {
    // CHECK-NEXT: %0 = sbp.all_gather %x dims [1] from [S(0), S(1)] to [S(0), B] : tensor<8x16xf32>
    %0 = sbp.all_gather %x dims [1] from [S(0), S(1)] to [S(0), B] : tensor<8x16xf32>
    // CHECK-NEXT: %1 = sbp.all_to_all %0 dims [0] from [S(0), B] to [S(1), B] : tensor<8x16xf32>
    %1 = sbp.all_to_all %0 dims [0] from [S(0), B] to [S(1), B] : tensor<8x16xf32>
    // CHECK-NEXT: %2 = sbp.local_to_partial %1 dims [0] from [S(1), B] to [P(sum), B] : tensor<8x16xf32>
    %2 = sbp.local_to_partial %1 dims [0] from [S(1), B] to [P, B] : tensor<8x16xf32>
    // CHECK-NEXT: %3 = sbp.reduce_scatter %2 dims [0] from [P(sum), B] to [S(0), B] : tensor<8x16xf32>
    %3 = sbp.reduce_scatter %2 dims [0] from [P(sum), B] to [S(0), B] : tensor<8x16xf32>
    // CHECK-NEXT: %4 = sbp.local_slice %3 dims [1] from [S(0), B] to [S(0), S(0)] : tensor<8x16xf32>
    %4 = sbp.local_slice %3 dims [1] from [S(0), B] to [S(0), S(0)] : tensor<8x16xf32>
    // CHECK-NEXT: %5 = sbp.all_gather %4 dims [0, 1] from [S(0), S(0)] to [B, B] : tensor<8x16xf32>
    %5 = sbp.all_gather %4 dims [0, 1] from [S(0), S(0)] to [B, B] : tensor<8x16xf32>
    // CHECK-NEXT: %6 = sbp.local_to_partial %5 dims [0, 1] from [B, B] to [P(max), P(max)] : tensor<8x16xf32>
    %6 = sbp.local_to_partial %5 dims [0, 1] from [B, B] to [P(max), P(max)] : tensor<8x16xf32>
    // CHECK-NEXT: %7 = sbp.all_reduce %6 dims [0, 1] from [P(max), P(max)] to [B, B] : tensor<8x16xf32>
    %7 = sbp.all_reduce %6 dims [0, 1] from [P(max), P(max)] to [B, B] : tensor<8x16xf32>
    // CHECK-NEXT: %8 = sbp.transfer %7 from #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]> [B, B] to #sbp.placement<cuda, [8, 9]> [S(0)] : tensor<8x16xf32>
    %8 = sbp.transfer %7 from #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]> [B, B] to #sbp.placement<cuda, [8, 9]> [S(0)] : tensor<8x16xf32>
    // CHECK-NEXT: %9 = sbp.all_gather %8 dims [0] from [S(0)] to [B] on #sbp.placement<cuda, [8, 9]> {tag} : tensor<8x16xf32>
    %9 = sbp.all_gather %8 dims [0] from [S(0)] to [B] on #sbp.placement<cuda, [8, 9]> {tag} : tensor<8x16xf32>
    func.return
  }
}
