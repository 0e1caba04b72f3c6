// RUN: sbpc-opt %s -p sbp-import-sdy | filecheck %s

// Meshes no sharding names are left alone (Shardy's test files declare the
// meshes of several functions at once): the module is laid out on the one
// its shardings name.

sdy.mesh @mesh_2 = <["x"=2]>
sdy.mesh @mesh_2_4 = <["x"=2, "y"=4]>
// CHECK: sbp.placement = #sbp.placement<cpu, {{\[}}[0, 1, 2, 3], [4, 5, 6, 7]]>, sbp.mesh_axes = ["x", "y"]
// CHECK-LABEL: func.func @f(
// CHECK-SAME: sbp.nd_sbp = #sbp.nd<[B, S(0)]>
func.func @f(%arg0: tensor<8x8xi32> {sdy.sharding = #sdy.sharding<@mesh_2_4, [{"y"}, {}]>}) -> tensor<8x8xi32> {
  return %arg0 : tensor<8x8xi32>
}
