// RUN: sbpc-opt %s --split-input-file -p 'sbp-propagate{strategy=greedy}' | filecheck %s

// Seed 003: t1 S(0) + t2 S(1) -> t3 S(0).  Both candidates keep one input;
// OneFlow's order ties, copy costs tie, candidate order picks S(0).
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  // CHECK-LABEL: func.func @add
  func.func @add(%t1: tensor<2x4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                 %t2: tensor<2x4xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) -> tensor<2x4xf32> {
    // CHECK: stablehlo.add %t1, %t2 {sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)])>}
    %t3 = stablehlo.add %t1, %t2 : tensor<2x4xf32>
    return %t3 : tensor<2x4xf32>
  }
}

// -----

// Seed 002: on a 2x2 mesh, x (B, S(0)) times w (S(1), B) gives y (S(1), S(0)).
module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  // CHECK-LABEL: func.func @matmul_2d
  func.func @matmul_2d(%x: tensor<8x8xf32> {sbp.nd_sbp = #sbp.nd<[B, S(0)]>},
                       %w: tensor<8x8xf32> {sbp.nd_sbp = #sbp.nd<[S(1), B]>}) -> tensor<8x8xf32> {
    // CHECK: stablehlo.dot_general %x, %w{{.*}}sbp.sig = #sbp.sig<([B, S(0)], [S(1), B]) -> ([S(1), S(0)])>
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    return %y : tensor<8x8xf32>
  }
}

// -----

// Seed 000: the matmul signatures OneFlow registers, each chosen when the
// inputs arrive in its layouts (order value: matching inputs win).
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  // CHECK-LABEL: func.func @five
  func.func @five(%a0: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}, %b0: tensor<8x6xf32> {sbp.nd_sbp = #sbp.nd<[B]>},
                  %a1: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[B]>}, %b1: tensor<8x6xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>},
                  %a2: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}, %b2: tensor<8x6xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                  %a3: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[P(sum)]>}, %b3: tensor<8x6xf32> {sbp.nd_sbp = #sbp.nd<[B]>},
                  %a4: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[B]>}, %b4: tensor<8x6xf32> {sbp.nd_sbp = #sbp.nd<[P(sum)]>})
      -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
    // CHECK: sbp.sig = #sbp.sig<([S(0)], [B]) -> ([S(0)])>
    %0 = stablehlo.dot_general %a0, %b0, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
    // CHECK: sbp.sig = #sbp.sig<([B], [S(1)]) -> ([S(1)])>
    %1 = stablehlo.dot_general %a1, %b1, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
    // CHECK: sbp.sig = #sbp.sig<([S(1)], [S(0)]) -> ([P(sum)])>
    %2 = stablehlo.dot_general %a2, %b2, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
    // CHECK: sbp.sig = #sbp.sig<([P(sum)], [B]) -> ([P(sum)])>
    %3 = stablehlo.dot_general %a3, %b3, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
    // CHECK: sbp.sig = #sbp.sig<([B], [P(sum)]) -> ([P(sum)])>
    %4 = stablehlo.dot_general %a4, %b4, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
    return %0, %1, %2, %3, %4 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
  }
}

// -----

// A single-device placement: OneFlow uses S(0) everywhere; here every layout
// is the same data, and nothing moves.
module attributes {sbp.placement = #sbp.placement<cpu, [0]>} {
  // CHECK-LABEL: func.func @single
  func.func @single(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // CHECK: stablehlo.exponential %a {sbp.sig = #sbp.sig<([{{.*}}]) -> ([{{.*}}])>}
    %0 = stablehlo.exponential %a : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
