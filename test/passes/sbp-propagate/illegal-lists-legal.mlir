// RUN: not sbpc-opt %s -p sbp-propagate 2>&1 | filecheck %s

// An illegal user signature is an error that lists the legal ones: here the
// five matmul signatures of seed 000 and the all-B one.

// CHECK: illegal-lists-legal.mlir:[[# @LINE + 10]]:{{[0-9]+}}: error: sbp.sig ([S(0)], [S(0)]) -> ([S(0)]) is not a legal signature of 'stablehlo.dot_general'; legal signatures:
// CHECK-DAG: ([S(0)], [B]) -> ([S(0)])
// CHECK-DAG: ([B], [S(1)]) -> ([S(1)])
// CHECK-DAG: ([S(1)], [S(0)]) -> ([P(sum)])
// CHECK-DAG: ([P(sum)], [B]) -> ([P(sum)])
// CHECK-DAG: ([B], [P(sum)]) -> ([P(sum)])
// CHECK-DAG: ([B], [B]) -> ([B])
// CHECK-NOT: Traceback
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @illegal(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<4x6xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)])>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
    return %0 : tensor<4x6xf32>
  }
}
