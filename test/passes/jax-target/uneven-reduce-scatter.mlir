// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' -t jax | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' -t jax -o %t.py
// RUN: env XLA_FLAGS=--xla_force_host_platform_device_count=8 %python %t.py | filecheck %s --check-prefix=EXEC

// A partial sum reduced onto an uneven split (50 columns over 4: pieces of
// 13, 13, 12, 12) of a dim it holds whole: the piece is laid out as the
// padded global dim (52 columns, the short pieces' last column repeated) and
// reduce-scattered as an even step -- the bytes the cost model prices, not an
// all-reduce and a cut.  On the other mesh dim the rows stay split.

// CHECK:     def _stage0(
// CHECK:     lax.psum_scatter(jnp.take(v{{[0-9]+}}, jnp.asarray([0, 1, {{.*}}, 36, 37, 37, 38, {{.*}}, 48, 49, 49], jnp.int32), axis=1), "d1", scatter_dimension=1, tiled=True)
// CHECK-NOT: lax.psum(
// CHECK:     def _reference(
// EXEC: max error {{.*}} over 1 result(s): ok
module attributes {sbp.placement = #sbp.placement<cpu, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
  func.func @main(%a: tensor<6x10xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>},
                  %b: tensor<10x50xf32> {sbp.nd_sbp = #sbp.nd<[B, S(0)]>})
      -> (tensor<6x50xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>}) {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0), S(1)], [B, S(0)]) -> ([S(0), P])>} : (tensor<6x10xf32>, tensor<10x50xf32>) -> tensor<6x50xf32>
    return %0 : tensor<6x50xf32>
  }
}
