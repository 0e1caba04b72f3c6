// RUN: sbpc-opt %s -p sbp-import-sdy | filecheck %s
// RUN: sbpc-opt %s -p sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing -t jax | filecheck %s --check-prefix=JAX

// Several meshes: the first the shardings name is the module's; a value on
// another lives on that mesh's placement (its device order, its axes) and
// moves by casts: with the same layout where the meshes have the same
// axes, else through B.  sbp.placement_names keeps each one's axis names.

// CHECK: sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>, sbp.mesh_axes = ["x"], sbp.placement_names = {{\[}}[#sbp.placement<cpu, {{\[}}[0, 2], [1, 3]]>, ["q", "p"]], [#sbp.placement<cpu, [1, 2, 3, 0]>, ["x"]], [#sbp.placement<cpu, {{\[}}[0, 1], [2, 3]]>, ["p", "q"]]]
// CHECK: %arg1_1 = sbp.cast %arg1 to #sbp.nd<[B]> on #sbp.placement<cpu, [0, 1, 2, 3]>
// CHECK-NEXT: %0 = sbp.cast %arg0 to #sbp.nd<[S(0)]> on #sbp.placement<cpu, [1, 2, 3, 0]>
// CHECK-NEXT: %1 = sbp.cast %0 to #sbp.nd<[S(0)]> on #sbp.placement<cpu, [0, 1, 2, 3]>
// JAX: PLACEMENT_AXES = (('x',), ('q', 'p'), ('x',), ('p', 'q'))
// JAX: IN_SPECS = (P("x"), P(("q", "p")))
// JAX: OUT_SPECS = (P("x"), P("p"))
sdy.mesh @mesh_a = <["x"=4]>
sdy.mesh @mesh_b = <["x"=4], device_ids=[1, 2, 3, 0]>
sdy.mesh @mesh_c = <["p"=2, "q"=2]>
func.func @main(%arg0: tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh_a, [{"x"}]>}, %arg1: tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh_c, [{"q", "p"}]>})
    -> (tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh_b, [{"x"}]>}, tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh_c, [{"p"}]>}) {
  %0 = sdy.collective_permute %arg0 out_sharding=<@mesh_b, [{"x"}]> : tensor<8xi32>
  %1 = stablehlo.add %0, %arg1 : tensor<8xi32>
  return %0, %1 : tensor<8xi32>, tensor<8xi32>
}
