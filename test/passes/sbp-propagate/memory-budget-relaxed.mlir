// The memory rows over-estimate where an output's allocation lends itself
// to temporaries before the output is written (docs/memory.md): under
// 30,000 bytes they admit no plan of this FFN (their least, 34,816 bytes at
// the partial sum's reduce-scatter), though one fits the model exactly
// (28,672 bytes).  The program is solved again with the rows' budget raised
// (`optimal.RELAXED_BUDGETS`) and the cheapest plan whose exact peak fits is
// kept: 16.14 us, where the plan of least peak took 47.62 us.
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal memory_budget=30000 improve=0 report=-}' -o /dev/null 2>&1 | filecheck %s

// CHECK: %w1: [B, S(1)]
// CHECK: %w2: [B, S(0)]
// CHECK: total: 16.14 us ({{.*}}), 3 layout changes moving 12 KiB, peak memory 28 KiB per device
// CHECK: status=the cheapest plan found to fit (the memory rows, which over-estimate, admitted none under the budget)
module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
  func.func @ffn(%x: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> (tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}) {
    %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0), B], [B, S(1)]) -> ([S(0), S(1)])>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %1 = stablehlo.tanh %0 : tensor<64x64xf32>
    %2 = stablehlo.dot_general %1, %w2, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0), S(1)], [B, S(0)]) -> ([S(0), P(sum)])>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %3 = stablehlo.add %2, %x : tensor<64x64xf32>
    return %3 : tensor<64x64xf32>
  }
}
