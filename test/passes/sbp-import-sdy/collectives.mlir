// RUN: sbpc-opt %s --split-input-file -p sbp-import-sdy | filecheck %s
// RUN: sbpc-opt %s --split-input-file -p 'sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing' -t jax | filecheck %s --check-prefix=JAX

// sdy.reshard and Shardy's explicit collectives are layout casts in the
// global view: each becomes sbp.cast to the layout its sharding (a
// collective's out_sharding) names; sdy.constant is stablehlo.constant.

// CHECK-LABEL: func.func @reshards
// CHECK-NEXT: %0 = sbp.cast %arg0 to #sbp.nd<[B, S(1), B]> : tensor<16x32xf32>
// CHECK-NEXT: %1 = sbp.cast %0 to #sbp.nd<[S(0), S(1), B]> : tensor<16x32xf32>
// CHECK-NEXT: %2 = sbp.cast %1 to #sbp.nd<[S(0), B, B]> : tensor<16x32xf32>
// CHECK-NEXT: %3 = sbp.cast %2 to #sbp.nd<[S(1), B, B]> : tensor<16x32xf32>
// CHECK-NEXT: %4 = sbp.cast %3 to #sbp.nd<[B, B, S(1)]> : tensor<16x32xf32>
// CHECK-NEXT: %cst = stablehlo.constant dense<1.000000e+00> : tensor<16x32xf32>
// CHECK-NEXT: %5 = stablehlo.add %4, %cst : tensor<16x32xf32>
// CHECK-NOT: sdy.{{reshard|all_|collective|constant}}
// JAX: MESH_AXES = ("x", "y", "z")
// JAX: IN_SPECS = (P("x", "y"),)
// JAX: OUT_SPECS = P(None, "z")
sdy.mesh @mesh = <["x"=2, "y"=2, "z"=2]>
func.func @reshards(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"z"}]>}) {
  %0 = sdy.reshard %arg0 <@mesh, [{}, {"y"}]> : tensor<16x32xf32>
  %1 = sdy.all_slice [{"x"}, {}] %0 out_sharding=<@mesh, [{"x"}, {"y"}]> : tensor<16x32xf32>
  %2 = sdy.all_gather [{}, {"y"}] %1 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x32xf32>
  %3 = sdy.all_to_all [{"x"}: 0->1] %2 out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x32xf32>
  %4 = sdy.collective_permute %3 out_sharding=<@mesh, [{}, {"z"}]> : tensor<16x32xf32>
  %cst = sdy.constant dense<1.0> : tensor<16x32xf32>
  %5 = stablehlo.add %4, %cst : tensor<16x32xf32>
  return %5 : tensor<16x32xf32>
}

// -----

// Reductions: a dot contracting a split dimension is unreduced (P(sum)) on
// that axis; all_reduce and reduce_scatter cast to their out_sharding, the
// *_to_unreduced ops to their unreduced axes (P).

// CHECK-LABEL: func.func @reductions
// CHECK-NEXT: %0 = stablehlo.dot_general
// CHECK-NEXT: %1 = sbp.cast %0 to #sbp.nd<[P(sum), B]> : tensor<16x8xf32>
// CHECK-NEXT: %2 = sbp.cast %1 to #sbp.nd<[B, B]> : tensor<16x8xf32>
// CHECK-NEXT: %3 = sbp.cast %1 to #sbp.nd<[S(1), B]> : tensor<16x8xf32>
// CHECK-NEXT: %4 = sbp.cast %2 to #sbp.nd<[P(sum), B]> : tensor<16x8xf32>
// CHECK-NEXT: %5 = sbp.cast %3 to #sbp.nd<[P(sum), B]> : tensor<16x8xf32>
// CHECK-NEXT: %6 = sbp.cast %2 to #sbp.nd<[B, B]> : tensor<16x8xf32>
// JAX: IN_SPECS = (P(None, "x"), P("x", None))
// JAX: lax.psum_scatter(
sdy.mesh @mesh = <["x"=2, "y"=4]>
func.func @reductions(%a: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}, %b: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}], unreduced={"x"}>]>} : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
  %1 = sdy.all_reduce {"x"} %0 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  %2 = sdy.reduce_scatter [{}, {"x"}] %0 out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x8xf32>
  %3 = sdy.replicated_to_unreduced {"x"} %1 out_sharding=<@mesh, [{}, {}], unreduced={"x"}> : tensor<16x8xf32>
  %4 = sdy.sharded_to_unreduced [{}, {"x"}] %2 out_sharding=<@mesh, [{}, {}], unreduced={"x"}> : tensor<16x8xf32>
  %5 = sdy.all_reduce max {"x"} %1 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %1, %3, %4, %5 : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// Summing copies: an operand replicated over the reduced axes (written so,
// or with no sharding) holds the whole value on each device, so the sum is
// that many times the value, as Shardy's partitioner computes it.

// CHECK-LABEL: func.func @replicated_sum
// CHECK-NEXT: %c = stablehlo.constant dense<8> : tensor<i32>
// CHECK-NEXT: %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
// CHECK-NEXT: %1 = stablehlo.multiply %arg0, %0 : tensor<4x4xi32>
// CHECK-NEXT: %2 = sbp.cast %1 to #sbp.nd<[B, B]> : tensor<4x4xi32>
// CHECK-NEXT: %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: %4 = stablehlo.multiply %arg1, %3 : tensor<4xf32>
// CHECK-NEXT: %5 = sbp.cast %4 to #sbp.nd<[S(0), B]> : tensor<4xf32>
// CHECK-NEXT: %6 = sbp.cast %arg1 to #sbp.nd<[B, B]> : tensor<4xf32>
sdy.mesh @mesh = <["x"=2, "y"=4]>
func.func @replicated_sum(%arg0: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xf32>) -> (tensor<4x4xi32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = sdy.all_reduce {"x", "y"} %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<4x4xi32>
  %1 = sdy.reduce_scatter [{"x"}] %arg1 out_sharding=<@mesh, [{"x"}]> : tensor<4xf32>
  %2 = sdy.all_reduce max {"x"} %arg1 out_sharding=<@mesh, [{}]> : tensor<4xf32>
  return %0, %1, %2 : tensor<4x4xi32>, tensor<4xf32>, tensor<4xf32>
}
