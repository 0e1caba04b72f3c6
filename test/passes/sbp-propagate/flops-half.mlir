// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="bw=1e9,lat=1e-6,overhead=0,flops=1e9,hbm=1e12" report=-}' 2>&1 | filecheck %s --check-prefix=FULL
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="bw=1e9,lat=1e-6,overhead=0,flops=1e9,hbm=1e12,flops_half=8" report=-}' 2>&1 | filecheck %s --check-prefix=HALF
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="bw=1e9,lat=1e-6,overhead=0,flops=1e9,hbm=1e12,flops_half=8"},sbp-lower-boxing{cost_model="bw=1e9,lat=1e-6,overhead=0"}' 2>&1 | filecheck %s --check-prefix=LOWER
// RUN: not sbpc-opt %s -p 'sbp-propagate{cost_model="flops_half=-8"}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not sbpc-opt %s -p 'sbp-propagate{cost_model="flops_half=8|flops_half=16"}' 2>&1 | filecheck %s --check-prefix=SCENARIO

// 16 rows by a 1024 x 1024 weight on 8 devices, the result wanted split by
// rows.  Splitting the rows needs no collective but leaves each device
// products of 2 rows; splitting the weight's columns leaves 16 x 1024 x 128
// products and costs an all_to_all of the result.  At the full rate both
// do the same flops and the rows win; with `flops_half=8` (Hockney's
// n-half: 2 rows run at 2 / (2 + 8) of the rate, 16 at 16 / 24) the
// columns win, all_to_all included.

// FULL: stablehlo.dot_general  ([S(0)], [B]) -> ([S(0)])
// FULL: total: 4.194 ms (communication 0 s, compute 4.194 ms)

// HALF: stablehlo.dot_general  ([B], [S(1)]) -> ([S(1)])
// HALF: operand 0 (stablehlo.dot_general): [S(1)] -> [S(0)]  7 KiB
// HALF: total: 6.306 ms (communication 14.17 us, compute 6.291 ms)

// LOWER: %[[W:.*]] = sbp.local_slice %w dims [0] from [B] to [S(1)]
// LOWER: %[[Y:.*]] = stablehlo.dot_general %x, %[[W]]
// LOWER-SAME: #sbp.sig<([B], [S(1)]) -> ([S(1)])>
// LOWER: sbp.all_to_all %[[Y]] dims [0] from [S(1)] to [S(0)]

// NEGATIVE: sbpc-opt: error: bad cost_model option: device half extent must be non-negative, got -8.0
// SCENARIO: sbpc-opt: error: bad cost_model option: cost model scenario 2 sets 'flops_half': a scenario changes only links
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3, 4, 5, 6, 7]>} {
  func.func @main(%x: tensor<16x1024xf32> {sbp.nd_sbp = #sbp.nd<[B]>}, %w: tensor<1024x1024xf32> {sbp.nd_sbp = #sbp.nd<[B]>}) -> (tensor<16x1024xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<16x1024xf32>, tensor<1024x1024xf32>) -> tensor<16x1024xf32>
    return %0 : tensor<16x1024xf32>
  }
}
