// RUN: sbpc-opt %s -p sbp-import-sdy | filecheck %s
// RUN: sbpc-opt %s -p sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing -t jax | filecheck %s --check-prefix=JAX

// Sub-axes listed out of mesh order ("y":(2)2 before "x"): the mesh's
// placement refined where the sub-axes cut y, then reordered so that each
// dimension lists its axes major first: (y:(1)2, y:(2)2, x).  On the
// module's placement y (its factors split different dimensions) is B.

sdy.mesh @m = <["x"=2, "y"=4]>
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %a: tensor<8x4xf32> {sbp.nd_sbp = #sbp.nd<[S(1), S(0), S(0)]>, sbp.placement = #sbp.placement<cpu, {{\[}}{{\[}}[0, 4], [1, 5]], {{\[}}[2, 6], [3, 7]]]>}
// CHECK-NEXT: %a_1 = sbp.cast %a to #sbp.nd<[S(0), B]> on #sbp.placement<cpu, {{\[}}[0, 1, 2, 3], [4, 5, 6, 7]]>
// JAX: PLACEMENT_AXES = (('x', 'y'), ('y:(1)2', 'y:(2)2', 'x'), ('y', 'x'))
// JAX: IN_SPECS = (P(("y:(2)2", "x"), "y:(1)2"),)
// JAX: OUT_SPECS = P(("y", "x"), None)
func.func @main(%a: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"y":(2)2, "x"}, {"y":(1)2}]>})
    -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"y", "x"}, {}]>}) {
  %0 = stablehlo.negate %a : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
