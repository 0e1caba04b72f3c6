// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' -t jax | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' -t jax -o %t.py
// RUN: env XLA_FLAGS=--xla_force_host_platform_device_count=8 %python %t.py | filecheck %s --check-prefix=EXEC

// Uneven splits (docs/uneven-splits.md): 6 rows over 8 devices (pieces of
// 1, 1, 1, 1, 1, 1, 0, 0) and a vocabulary of 50 over 8 (7, 7, 6, ...).  The module takes
// logical arrays with natural specs, pads them (ARG_PADS), masks the padding
// before the sum over rows and the max over the vocabulary, and drops the
// padding rows of its result (OUT_PADS).  The P(max) -> S(1) step re-splits the
// uneven vocabulary: take the padding rows (the padded global dim), reduce, cut.

// CHECK: IN_SPECS = (P("d0", None), P(None, "d0"))
// CHECK: OUT_SPECS = (P(None), P("d0"))
// CHECK: ARG_PADS = (((0, (0, 1, 2, 3, 4, 5, 5, 5)),), ((1, (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, {{.*}}, 48, 49, 49)),))
// CHECK: OUT_PADS = ((), ((0, (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, {{.*}}, 53, 54)),))
// CHECK: PUT_SPECS = (P(), P())
// CHECK: def _stage0(
// CHECK: # uneven split: padding holds the fold's identity
// CHECK-NEXT: = jnp.where((lax.broadcasted_iota(jnp.int32, (1, 5), 0) < jnp.asarray([1, 1, 1, 1, 1, 1, 0, 0], jnp.int32)[lax.axis_index("d0")]), v0, v{{[0-9]+}})
// CHECK: # uneven split: padding holds the fold's identity
// CHECK-NEXT: = jnp.where((lax.broadcasted_iota(jnp.int32, (4, 7), 1) < jnp.asarray([7, 7, 6, 6, 6, 6, 6, 6], jnp.int32)[lax.axis_index("d0")]), v1, v{{[0-9]+}})
// CHECK: lax.dynamic_slice_in_dim(lax.pmax(jnp.take({{.*}}, 7, 1)
// EXEC: max error 0 over 2 result(s): ok
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3, 4, 5, 6, 7]>} {
  func.func @main(%x: tensor<6x5xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                  %logits: tensor<4x50xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>})
      -> (tensor<5xf32> {sbp.nd_sbp = #sbp.nd<[B]>}, tensor<50xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] {sbp.sig = #sbp.sig<([S(0)], [P]) -> ([P])>} : (tensor<6x5xf32>, tensor<f32>) -> tensor<5xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %m = stablehlo.reduce(%logits init: %ninf) applies stablehlo.maximum across dimensions = [1] {sbp.sig = #sbp.sig<([S(1)], [B]) -> ([P(max)])>} : (tensor<4x50xf32>, tensor<f32>) -> tensor<4xf32>
    %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x50xf32>
    %d = stablehlo.subtract %logits, %mb : tensor<4x50xf32>
    %c = stablehlo.reduce(%d init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4x50xf32>, tensor<f32>) -> tensor<50xf32>
    return %s, %c : tensor<5xf32>, tensor<50xf32>
  }
}
