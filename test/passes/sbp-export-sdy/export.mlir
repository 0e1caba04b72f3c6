// RUN: sbpc-opt %s --split-input-file -p sbp-propagate,sbp-export-sdy | filecheck %s
// RUN: sbpc-opt %s --split-input-file -p sbp-propagate,sbp-export-sdy | sbpc-opt --split-input-file | filecheck %s
// RUN: sbpc-opt %s --split-input-file -p sbp-propagate,sbp-lower-boxing,sbp-export-sdy | sbpc-opt --split-input-file | filecheck %s --check-prefix=BOXED

// A plan as Shardy shardings: the placement becomes an sdy.mesh (axes d0, d1
// without sbp.mesh_axes), layouts become shardings on arguments, results and
// every op's results; P(sum) is unreduced; where the plan moves data (the
// unreduced product returned reduced) an sdy.reshard; sbp annotations are
// removed.  A boxed module has its sbp collectives there instead.

// CHECK-LABEL: module {
// CHECK-NEXT: sdy.mesh @mesh = <["d0"=2, "d1"=4]>
// CHECK-NEXT: func.func @ffn(%x: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d0"}, {"d1"}]>}, %w: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d1"}, {}]>}) -> (tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d0"}, {}]>})
// CHECK-NEXT: %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"d0"}, {}], unreduced={"d1"}>]>}
// CHECK-NEXT: %1 = sdy.reshard %0 <@mesh, [{"d0"}, {}]> : tensor<64x64xf32>
// CHECK-NEXT: return %1
// CHECK-NOT: sbp.
// BOXED-LABEL: module attributes {sbp.placement
// BOXED: sbp.all_reduce %0 dims [1] from [S(0), P(sum)] to [S(0), B] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"d0"}, {}]>]>}
// BOXED-NOT: sdy.reshard
module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
  func.func @ffn(%x: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>}, %w: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[B, S(0)]>})
      -> (tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0), S(1)], [B, S(0)]) -> ([S(0), P(sum)])>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    return %0 : tensor<64x64xf32>
  }
}

// -----

// Device ids out of order are kept; the user's axis names (sbp.mesh_axes) are used.

// CHECK-LABEL: module {
// CHECK-NEXT: sdy.mesh @mesh = <["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>
// CHECK-NEXT: func.func @f(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"b"}, {"a"}]>})
module attributes {sbp.placement = #sbp.placement<cpu, [[3, 2], [1, 0]]>, sbp.mesh_axes = ["a", "b"]} {
  func.func @f(%x: tensor<8x8xf32> {sbp.nd_sbp = #sbp.nd<[S(1), S(0)]>}) -> tensor<8x8xf32> {
    %0 = stablehlo.tanh %x : tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}
