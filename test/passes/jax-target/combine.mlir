// RUN: sbpc-opt %s -p sbp-lower-boxing -t jax | filecheck %s
// RUN: sbpc-opt %s -p sbp-lower-boxing -t 'jax{combine-bytes=0}' | filecheck %s --check-prefix=APART
// RUN: sbpc-opt %s -p sbp-lower-boxing -t 'jax{combine-bytes=1024}' | filecheck %s --check-prefix=SMALL
// RUN: not sbpc-opt %s -p sbp-lower-boxing -t 'jax{combine-bytes=-1}' 2>&1 | filecheck %s --check-prefix=NEG
// RUN: not sbpc-opt %s -p sbp-lower-boxing -t 'jax{combine-bits=1}' 2>&1 | filecheck %s --check-prefix=UNKNOWN

// Three weight gradients, each a P(sum) partial of a data-parallel step,
// reduce-scattered to S(0) (ZeRO): they do not depend on each other, so the
// module reduces them in one collective on their pieces concatenated.  The
// gathers of the updated shards depend on the reductions: one more combined
// collective, never merged with them.

// CHECK:      # combined (3): {{.*}} dims [0] [P(sum)] -> [S(0)]
// CHECK-NEXT: # combined (3): {{.*}} dims [0] [P(sum)] -> [S(0)]
// CHECK-NEXT: # combined (3): {{.*}} dims [0] [P(sum)] -> [S(0)]
// CHECK-NEXT: v{{[0-9]+}}, v{{[0-9]+}}, v{{[0-9]+}} = _psum_scatter_many((v{{[0-9]+}}, v{{[0-9]+}}, v{{[0-9]+}}), "d0", (0, 0, 0), 8)
// CHECK:      = _all_gather_many((v{{[0-9]+}}, v{{[0-9]+}}, v{{[0-9]+}}), "d0", (0, 0, 0), 8)
// CHECK:      def _all_gather_many(

// APART-COUNT-3: lax.psum_scatter(
// APART-NOT: _many

// Each gradient's pieces are 1 KiB per device before the reduce-scatter:
// at most one per combined collective, so none is combined.
// SMALL-NOT: _many(

// NEG: sbpc-opt: error: jax target: combine-bytes must be >= 0, not -1
// UNKNOWN: sbpc-opt: error: {{.*}}combine_bits{{.*}}not found
module attributes {sbp.placement = #sbp.placement<cuda, [0, 1, 2, 3, 4, 5, 6, 7]>} {
  func.func @main(%g1: tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[P]>},
                  %g2: tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[P]>},
                  %g3: tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[P]>})
      -> (tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[B]>},
          tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[B]>},
          tensor<16x16xf32> {sbp.nd_sbp = #sbp.nd<[B]>}) {
    %0 = stablehlo.multiply %g1, %g1 {sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)])>} : tensor<16x16xf32>
    %1 = stablehlo.multiply %g2, %g2 {sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)])>} : tensor<16x16xf32>
    %2 = stablehlo.multiply %g3, %g3 {sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)])>} : tensor<16x16xf32>
    return %0, %1, %2 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
  }
}
