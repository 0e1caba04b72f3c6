// Plain array arguments described by --shapes.

// RUN: sbpc-import %S/inputs/model.py:affine --shapes "f32[16,8]" "f32[8, 4]" --mesh 4 --layout 0=S(0) | filecheck %s

// CHECK:      sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>
// CHECK:      @main(%arg0: tensor<16x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}, %arg1: tensor<8x4xf32>)
// CHECK:      stablehlo.tanh
