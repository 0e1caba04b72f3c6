// RUN: sbpc-opt %s -p 'sbp-propagate{cost_model="bw=1e9,lat=1e-4,overhead=0" report=-},sbp-lower-boxing{cost_model="bw=1e9,lat=1e-4,overhead=0"}' 2>&1 | filecheck %s --check-prefix=ROUNDS
// RUN: sbpc-opt %s -p 'sbp-propagate{cost_model="bw=1e9,lat=1e-4,overhead=1e-3" report=-},sbp-lower-boxing{cost_model="bw=1e9,lat=1e-4,overhead=1e-3"}' 2>&1 | filecheck %s --check-prefix=LAUNCH
// RUN: not sbpc-opt %s -p 'sbp-propagate{cost_model="overhead=-3e-4"}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not sbpc-opt %s -p 'sbp-propagate{cost_model="overhead=soon"}' 2>&1 | filecheck %s --check-prefix=WORD
// RUN: not sbpc-opt %s -p 'sbp-propagate{cost_model="bw=1:2,overhead=1:2:3"}' 2>&1 | filecheck %s --check-prefix=LENGTH
// RUN: not sbpc-opt %s -p 'sbp-lower-boxing{cost_model="overhead=-1"}' 2>&1 | filecheck %s --check-prefix=LOWER

// (S(0), S(0)) -> (B, B) on a 2x4 mesh: two all-gathers (3 + 1 ring rounds)
// or one over all 8 devices (7 rounds).  Priced per round, the two win
// (400 us against 700 us, `overhead=0`); with a fixed 1 ms per launch, one
// launch wins (1.714 ms against 2.414 ms).

// ROUNDS: [S(0), S(0)] -> [B, B]  14 KiB  414.3 us
// ROUNDS: sbp.all_gather %{{.*}} dims [1] from [S(0), S(0)] to [S(0), B]
// ROUNDS-NEXT: sbp.all_gather %{{.*}} dims [0] from [S(0), B] to [B, B]
// LAUNCH: [S(0), S(0)] -> [B, B]  14 KiB  1.714 ms
// LAUNCH: sbp.all_gather %{{.*}} dims [0, 1] from [S(0), S(0)] to [B, B]
// LAUNCH-NOT: sbp.all_gather

// NEGATIVE: sbpc-opt: error: bad cost_model option: link overhead must be non-negative, got -0.0003
// WORD: sbpc-opt: error: bad cost_model option: expected numbers separated by ':' for 'overhead', got 'soon'
// LENGTH: sbpc-opt: error: bad cost_model option: 'bw' lists 2 values but 'overhead' lists 3
// LOWER: sbpc-opt: error: bad cost_model option: link overhead must be non-negative, got -1.0
module attributes {sbp.placement = #sbp.placement<cpu, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
  func.func @main(%x: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(0)]>}) -> (tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[B, B]>}) {
    %0 = stablehlo.negate %x : tensor<64x64xf32>
    return %0 : tensor<64x64xf32>
  }
}
