// Greedy and bfs do not plan within a memory budget (only optimal does), but
// they never return a plan over the one the user gave: over it, a located
// error naming both sizes; within it, their plan (here every tensor
// replicated, 64 KiB).  Optimal plans the FFN within 30,000 bytes.
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=greedy memory_budget=30000}' -o /dev/null 2>&1 | filecheck %s --check-prefix=OVER
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=bfs memory_budget=70000 report=-}' -o /dev/null 2>&1 | filecheck %s --check-prefix=FITS
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal memory_budget=30000 report=-}' -o /dev/null 2>&1 | filecheck %s --check-prefix=OPTIMAL

// OVER: memory-budget-greedy.mlir:[[# @LINE + 8]]:3: error: the greedy plan needs 64 KiB (65536 bytes) per device, more than the memory_budget of 29.3 KiB (30000 bytes), which only strategy=optimal plans within
// FITS: propagation plan (strategy=bfs)
// FITS: 0 layout changes moving 0 B, peak memory 64 KiB per device
// OPTIMAL: propagation plan (strategy=optimal)
// OPTIMAL: 3 layout changes moving 12 KiB, peak memory 28 KiB per device
// OPTIMAL: status=Optimal, proven=True

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
  func.func @ffn(%x: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> (tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}) {
    %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %1 = stablehlo.tanh %0 : tensor<64x64xf32>
    %2 = stablehlo.dot_general %1, %w2, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %3 = stablehlo.add %2, %x : tensor<64x64xf32>
    return %3 : tensor<64x64xf32>
  }
}
