// RUN: sbpc-opt %s -p sbp-import-sdy | filecheck %s
// RUN: sbpc-opt %s -p sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing -t jax | filecheck %s --check-prefix=JAX

// Sub-axes: the value lives on the mesh's devices with the axis split into
// its factors (the same ranks in the same order); a whole axis splits by
// all its factors.  On the module's placement an axis whose factors do not
// all do the same is B.  The emitted mesh names the factors as Shardy does.
// Each sharding is split by its own sub-axes: the result's whole "x" is on
// the module's placement.

sdy.mesh @m = <["x"=4, "y"=2]>
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %a: tensor<8x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1), S(1)]>, sbp.placement = #sbp.placement<cpu, {{\[}}{{\[}}[0, 1], [2, 3]], {{\[}}[4, 5], [6, 7]]]>}
// CHECK-SAME: -> (tensor<8x8xf32> {sbp.nd_sbp = #sbp.nd<[S(1), B]>})
// CHECK-NEXT: %a_1 = sbp.cast %a to #sbp.nd<[B, S(1)]> on #sbp.placement<cpu, {{\[}}[0, 1], [2, 3], [4, 5], [6, 7]]>
// CHECK-NEXT: %0 = sbp.cast %a_1 to #sbp.nd<[S(0), B]> : tensor<8x8xf32>
// CHECK-NEXT: func.return %0
// JAX: PLACEMENT_AXES = (('x', 'y'), ('x:(1)2', 'x:(2)2', 'y'))
// JAX: IN_SPECS = (P("x:(1)2", ("x:(2)2", "y")),)
// JAX: OUT_SPECS = P(None, "x")
func.func @main(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x":(1)2}, {"x":(2)2, "y"}]>})
    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"x"}]>}) {
  %0 = sdy.reshard %a <@m, [{"x"}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
