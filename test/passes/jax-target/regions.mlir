// RUN: sbpc-opt %s -p 'sbp-propagate{improve=0},sbp-lower-boxing' -t jax | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{improve=0},sbp-lower-boxing' -t jax -o %t.py
// RUN: env XLA_FLAGS=--xla_force_host_platform_device_count=8 %python %t.py | filecheck %s --check-prefix=EXEC
// (improve=0: greedy's own plan, the one whose emission this test reads.)

// Regions inside the shard_map: a loop becomes lax.while_loop over the local
// pieces of its carried values, with the boxing the body needs inside the
// body; a case becomes lax.switch (out-of-range index: the last branch, as
// StableHLO says); a barrier one lax.optimization_barrier call over all its
// operands, unpacked, so they are fenced together.  The module checks
// itself against its reference on 8 simulated devices.

// CHECK:      def _stage0(
// CHECK:        # stablehlo.while {{.*}}: while, carried [B], [S(1)]
// CHECK-NEXT:   def _cond_1(carry):
// CHECK-NEXT:     (v{{[0-9]+}}, v{{[0-9]+}}) = carry
// CHECK:          return v{{[0-9]+}}
// CHECK-NEXT:   def _body_1(carry):
// CHECK:          # stablehlo.negate {{.*}}: ([S(0)]) -> ([S(0)])
// CHECK:          lax.all_to_all(
// CHECK:          return (v{{[0-9]+}}, v{{[0-9]+}})
// CHECK-NEXT:   (v{{[0-9]+}}, v{{[0-9]+}}) = lax.while_loop(_cond_1, _body_1, (v{{[0-9]+}}, v{{[0-9]+}}))
// CHECK:        # stablehlo.case {{.*}}: case, results [S(1)]
// CHECK-NEXT:   def _branch_2_0():
// CHECK:        def _branch_2_1():
// CHECK:        (v{{[0-9]+}},) = lax.switch(jnp.where((v0 < 0) | (v0 > 1), 1, v0), [_branch_2_0, _branch_2_1])
// CHECK:        v[[B0:[0-9]+]], v[[B1:[0-9]+]], = lax.optimization_barrier((v{{[0-9]+}}, v{{[0-9]+}},))
// CHECK-NOT:    lax.optimization_barrier
// CHECK:        jnp.tanh(v[[B0]])
// CHECK:      def _reference(
// CHECK:        lax.while_loop(

// EXEC: max error 0 over 1 result(s): ok

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  func.func public @main(%i: tensor<i32> {sbp.nd_sbp = #sbp.nd<[B]>}, %x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%n = %c, %h = %x) : tensor<i32>, tensor<8x16xf32>
    cond {
      %k = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare LT, %n, %k, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = stablehlo.negate %h {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>} : tensor<8x16xf32>
      %2 = stablehlo.sine %1 : tensor<8x16xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %3 = stablehlo.add %n, %one : tensor<i32>
      stablehlo.return %3, %2 : tensor<i32>, tensor<8x16xf32>
    }
    %4 = "stablehlo.case"(%i) ({
      %5 = stablehlo.cosine %0#1 : tensor<8x16xf32>
      stablehlo.return %5 : tensor<8x16xf32>
    }, {
      stablehlo.return %0#1 : tensor<8x16xf32>
    }) : (tensor<i32>) -> tensor<8x16xf32>
    %6:2 = stablehlo.optimization_barrier %4, %x : tensor<8x16xf32>, tensor<8x16xf32>
    %7 = stablehlo.tanh %6#0 : tensor<8x16xf32>
    %8 = stablehlo.add %7, %6#1 : tensor<8x16xf32>
    return %8 : tensor<8x16xf32>
  }
}
