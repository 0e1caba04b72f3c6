// RUN: sbpc-opt %s -p sbp-propagate --verify-diagnostics | filecheck %s

// Greedy propagation through each op family from a row-split input on 4
// devices: the split follows the data wherever the op allows it.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  // CHECK-LABEL: func.func @families
  func.func @families(%x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                      %w: tensor<16x4xf32>, %v: tensor<16xf32>) -> (tensor<8x4xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<4x2x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
    // elementwise unary and binary
    // CHECK: stablehlo.tanh %x {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>}
    %0 = stablehlo.tanh %x : tensor<8x16xf32>
    // CHECK: stablehlo.multiply %0, %x {sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)])>}
    %1 = stablehlo.multiply %0, %x : tensor<8x16xf32>
    // a replicated vector broadcast into the split layout the add wants: each
    // device materialises only its rows (less local work than all of them)
    // CHECK: stablehlo.broadcast_in_dim %v, dims = [1] {sbp.sig = #sbp.sig<([B]) -> ([S(0)])>}
    %2 = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
    // CHECK: stablehlo.add %1, %2 {sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)])>}
    %3 = stablehlo.add %1, %2 : tensor<8x16xf32>
    // matmul with a replicated weight: data parallel
    // CHECK: stablehlo.dot_general %3, %w{{.*}}sbp.sig = #sbp.sig<([S(0)], [B]) -> ([S(0)])>
    %4 = stablehlo.dot_general %3, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    // reduction over the unsplit dim keeps the split
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    // CHECK: stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [1] {sbp.sig = #sbp.sig<([S(0)], [B]) -> ([S(0)])>}
    %5 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    // transpose moves the split to the other dim
    // CHECK: stablehlo.transpose %3, dims = [1, 0] {sbp.sig = #sbp.sig<([S(0)]) -> ([S(1)])>}
    %6 = stablehlo.transpose %3, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
    // reshape splitting the leading dim keeps the split on the new leading dim
    // CHECK: stablehlo.reshape %3 {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>}
    %7 = stablehlo.reshape %3 : (tensor<8x16xf32>) -> tensor<4x2x16xf32>
    // iota and compare: each device makes its rows of the mask (a split iota
    // is offset per device), so select needs no slicing
    // CHECK: stablehlo.iota dim = 1 {sbp.sig = #sbp.sig<() -> ([S(0)])>}
    %8 = stablehlo.iota dim = 1 : tensor<8x16xi32>
    %c = stablehlo.constant dense<3> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    // CHECK: stablehlo.compare LT, %8, %9{{.*}}sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)])>
    %10 = stablehlo.compare LT, %8, %9, SIGNED : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
    // CHECK: stablehlo.select %10, %3, %x {sbp.sig = #sbp.sig<([S(0)], [S(0)], [S(0)]) -> ([S(0)])>}
    %11 = stablehlo.select %10, %3, %x : tensor<8x16xi1>, tensor<8x16xf32>
    // an op without an SBP rule runs replicated, with a warning
    // expected-warning @below {{no SBP rule for 'stablehlo.tan': it runs replicated (all-B)}}
    %12 = stablehlo.tan %x : tensor<8x16xf32>
    // CHECK: stablehlo.tan %x {sbp.sig = #sbp.sig<([B]) -> ([B])>}
    // an equal op shares the first one's candidates but warns on its own
    // expected-warning @below {{no SBP rule for 'stablehlo.tan': it runs replicated (all-B)}}
    %13 = stablehlo.tan %x : tensor<8x16xf32>
    // CHECK: stablehlo.tan %x {sbp.sig = #sbp.sig<([B]) -> ([B])>}
    return %4, %5, %6, %7, %11, %12 : tensor<8x4xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<4x2x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  }
}
