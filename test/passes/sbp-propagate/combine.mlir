// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="lat=1e-4,overhead=0,combine=1" report=-}' 2>&1 >/dev/null | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=greedy cost_model="lat=1e-4,overhead=0,combine=1" report=-}' 2>&1 >/dev/null | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="lat=1e-4,overhead=0" report=-}' 2>&1 >/dev/null | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="lat=1e-4,overhead=0,combine=0" report=-}' 2>&1 >/dev/null | filecheck %s --check-prefix=ALONE
// RUN: not sbpc-opt %s -p 'sbp-propagate{cost_model="combine=2"}' 2>&1 | filecheck %s --check-prefix=BAD

// Three independent contractions over a split dimension leave three partial
// sums that the results want broadcast: three all-reduces that the emitter
// runs as one.  With combine=1 (the default) the plan's communication pays
// one latency (2 x 3 rounds x 100 us) where priced alone (combine=0) it
// pays three.

// CHECK: total: 600.8 us (communication 600.7 us,
// CHECK: stats: {{.*}}combining_plans=1, latency_scale=1.0, collectives=3, combined_collectives=1, uncombined_comm_time=0.0018
// CHECK-NOT: trade:
// ALONE: total: 1.801 ms (communication 1.801 ms,
// ALONE-NOT: combined_collectives
// BAD: sbpc-opt: error: bad cost_model option: 'combine' takes 0 or 1, got 2
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  func.func @main(%x0: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}, %w0: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                  %x1: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}, %w1: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                  %x2: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}, %w2: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>})
      -> (tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[B]>}, tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[B]>}, tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[B]>}) {
    %0 = stablehlo.dot_general %x0, %w0, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %1 = stablehlo.dot_general %x1, %w1, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %2 = stablehlo.dot_general %x2, %w2, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    return %0, %1, %2 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
  }
}
