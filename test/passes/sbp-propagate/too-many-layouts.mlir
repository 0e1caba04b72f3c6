// RUN: not sbpc-opt %s -p 'sbp-propagate' 2>&1 | filecheck %s
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=greedy}' 2>&1 | filecheck %s

// A tensor's layouts on a placement number (rank + 4) ^ mesh dims: a rank-4
// tensor on five mesh axes (as Shardy's sub-axes can make) has 32,768, too
// many to price every pair of; refused at the function, not run out of memory.
// CHECK: too-many-layouts.mlir:[[# @LINE + 2]]:3: error: a rank-4 tensor on the 5-dim mesh {{\[2, 2, 2, 2, 2\]}} has 32768 layouts, more than sbpc plans (8192); use fewer mesh axes (each sub-axis counts as one)
module attributes {sbp.placement = #sbp.placement<cpu, [[[[[0, 1], [2, 3]], [[4, 5], [6, 7]]], [[[8, 9], [10, 11]], [[12, 13], [14, 15]]]], [[[[16, 17], [18, 19]], [[20, 21], [22, 23]]], [[[24, 25], [26, 27]], [[28, 29], [30, 31]]]]]>} {
  func.func @f(%x: tensor<4x4x4x4xf32>) -> tensor<4x4x4x4xf32> {
    %0 = stablehlo.add %x, %x : tensor<4x4x4x4xf32>
    return %0 : tensor<4x4x4x4xf32>
  }
}
