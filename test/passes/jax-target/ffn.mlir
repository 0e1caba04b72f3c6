// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=bfs improve=0},sbp-lower-boxing' -t jax | filecheck %s
// (improve=0: bfs's own plan, the one whose emission this test reads.)

// The emitted module keeps DESIGN.md's contract: the mesh of the placement,
// PartitionSpecs of the argument and result layouts, one shard_map body
// where each op runs on its local piece and collectives map onto JAX's.

// CHECK: MESH_SHAPE = (2, 4)
// CHECK: MESH_AXES = ("d0", "d1")
// CHECK: IN_SPECS = (P("d0", None), P(None, "d1"), P("d1"), P("d1", None), P("d1"))
// CHECK: OUT_SPECS = P(("d0", "d1"), None)
// CHECK-DAG: def make_mesh(
// CHECK-DAG: lax.dot_general(
// CHECK-DAG: lax.psum_scatter({{.*}}"d1"{{.*}}tiled=True)
// CHECK-DAG: def build(
// CHECK-DAG: jax.shard_map(
// CHECK-DAG: def reference(
// CHECK: if __name__ == "__main__":
module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
  func.func @main(%x: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %b1: tensor<64xf32>,
                  %w2: tensor<64x64xf32>, %b2: tensor<64xf32>) -> tensor<64x64xf32> {
    %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0), B], [B, S(1)]) -> ([S(0), S(1)])>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<64xf32>) -> tensor<64x64xf32>
    %2 = stablehlo.add %0, %1 : tensor<64x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %4 = stablehlo.maximum %2, %3 : tensor<64x64xf32>
    %5 = stablehlo.dot_general %4, %w2, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %6 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<64xf32>) -> tensor<64x64xf32>
    %7 = stablehlo.add %5, %6 : tensor<64x64xf32>
    return %7 : tensor<64x64xf32>
  }
}
