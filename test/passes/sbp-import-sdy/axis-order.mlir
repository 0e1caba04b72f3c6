// RUN: sbpc-opt %s --split-input-file -p sbp-import-sdy | filecheck %s
// RUN: sbpc-opt %s --split-input-file -p sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing -t jax | filecheck %s --check-prefix=JAX

// A dimension split by mesh axes in another order than the mesh's (JAX's
// P(("y", "x")) on a mesh ("x", "y")): the value lives on the mesh's devices
// with the axes reordered (the rank array transposed) and moves to the
// module's placement by a cast; the emitted specs are the user's.

sdy.mesh @m = <["x"=2, "y"=4]>
// CHECK-LABEL: func.func @minor_first(
// CHECK-SAME: %a: tensor<8x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(0)]>, sbp.placement = #sbp.placement<cpu, {{\[}}[0, 4], [1, 5], [2, 6], [3, 7]]>}
// CHECK-SAME: %b: tensor<8x8xf32> {sbp.nd_sbp = #sbp.nd<[B, S(1)]>}
// CHECK-SAME: -> (tensor<8x8xf32> {sbp.nd_sbp = #sbp.nd<[S(1), S(1)]>}, tensor<8x8xf32> {sbp.nd_sbp = #sbp.nd<[S(1), S(0)]>})
// CHECK-NEXT: %a_1 = sbp.cast %a to #sbp.nd<[S(0), S(0)]> on #sbp.placement<cpu, {{\[}}[0, 1, 2, 3], [4, 5, 6, 7]]>
// CHECK-NEXT: %0 = stablehlo.add %a_1, %b
// CHECK-NEXT: %1 = sbp.cast %0 to #sbp.nd<[S(1), S(1)]> on #sbp.placement<cpu, {{\[}}[0, 4], [1, 5], [2, 6], [3, 7]]>
// CHECK-NEXT: func.return %1, %0
// JAX: PLACEMENT_AXES = (('x', 'y'), ('y', 'x'))
// JAX: IN_SPECS = (P(("y", "x"), None), P(None, "y"))
// JAX: OUT_SPECS = (P(None, ("y", "x")), P("y", "x"))
func.func @minor_first(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"y", "x"}, {}]>},
                       %b: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"y"}]>})
    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"y", "x"}]>},
        tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"y"}, {"x"}]>}) {
  %0 = stablehlo.add %a, %b : tensor<8x8xf32>
  return %0, %0 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A constraint or a collective in that order: cast there and back.
sdy.mesh @m = <["x"=2, "y"=2]>
// CHECK-LABEL: func.func @constraint(
// CHECK: %1 = sbp.cast %0 to #sbp.nd<[S(0), S(0)]> on #sbp.placement<cpu, {{\[}}[0, 2], [1, 3]]>
// CHECK-NEXT: %2 = sbp.cast %1 to #sbp.nd<[S(0), S(0)]> on #sbp.placement<cpu, {{\[}}[0, 1], [2, 3]]>
// CHECK-NEXT: %3 = sbp.cast %2 to #sbp.nd<[S(1), S(0)]> : tensor<16x8xf32>
// JAX: IN_SPECS = (P(("x", "y"), None),)
// JAX: OUT_SPECS = P("y", "x")
func.func @constraint(%a: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = stablehlo.negate %a : tensor<16x8xf32>
  %1 = sdy.sharding_constraint %0 <@m, [{"y", "x"}, {}]> : tensor<16x8xf32>
  %2 = sdy.all_to_all [{"x"}: 0->1] %1 out_sharding=<@m, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %2 : tensor<16x8xf32>
}
