// RUN: sbpc-opt %s --split-input-file -p sbp-import-sdy | filecheck %s

// A manual computation whose shardings split by sub-axes or by mesh axes
// out of mesh order: its operands and results are rearranged in the global
// view (reshape, transpose, reshape) so that one dimension is split by the
// mesh's axes in mesh order, each device's piece unchanged; the body is
// untouched.  Factors the layout does not split by are broadcast copies on
// the way in and sliced away on the way out.

sdy.mesh @m = <["x"=2, "y"=4]>
// CHECK-LABEL: func.func @reordered(
// CHECK-NEXT: %0 = stablehlo.reshape %a : (tensor<16xf32>) -> tensor<4x2x2xf32>
// CHECK-NEXT: %1 = stablehlo.transpose %0, dims = [1, 0, 2] : (tensor<4x2x2xf32>) -> tensor<2x4x2xf32>
// CHECK-NEXT: %2 = stablehlo.reshape %1 : (tensor<2x4x2xf32>) -> tensor<16xf32>
// CHECK-NEXT: %3 = sdy.manual_computation(%2) in_shardings=[<@m, [{"x", "y"}]>] out_shardings=[<@m, [{"x", "y"}]>] manual_axes={"x", "y"} (%l: tensor<2xf32>) {
// CHECK: } {sbp.sig = #sbp.sig<([S(0), S(0)]) -> ([S(0), S(0)])>} : (tensor<16xf32>) -> tensor<16xf32>
// CHECK-NEXT: %4 = stablehlo.reshape %3 : (tensor<16xf32>) -> tensor<2x4x2xf32>
// CHECK-NEXT: %5 = stablehlo.transpose %4, dims = [1, 0, 2] : (tensor<2x4x2xf32>) -> tensor<4x2x2xf32>
// CHECK-NEXT: %6 = stablehlo.reshape %5 : (tensor<4x2x2xf32>) -> tensor<16xf32>
// CHECK-NEXT: func.return %6
func.func @reordered(%a: tensor<16xf32>) -> tensor<16xf32> {
  %0 = sdy.manual_computation(%a) in_shardings=[<@m, [{"y", "x"}]>] out_shardings=[<@m, [{"y", "x"}]>] manual_axes={"x", "y"} (%l: tensor<2xf32>) {
    %1 = stablehlo.negate %l : tensor<2xf32>
    sdy.return %1 : tensor<2xf32>
  } : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

sdy.mesh @m = <["x"=4, "y"=2]>
// CHECK-LABEL: func.func @sub_axes(
// CHECK-NEXT: %0 = stablehlo.reshape %a : (tensor<8x8xf32>) -> tensor<2x4x2x2x2xf32>
// CHECK-NEXT: %1 = stablehlo.transpose %0, dims = [0, 2, 3, 1, 4] : (tensor<2x4x2x2x2xf32>) -> tensor<2x2x2x4x2xf32>
// CHECK-NEXT: %2 = stablehlo.reshape %1 : (tensor<2x2x2x4x2xf32>) -> tensor<32x2xf32>
// CHECK-NEXT: %3 = sdy.manual_computation(%2) in_shardings=[<@m, [{"x", "y"}, {}]>] out_shardings=[<@m, [{"x"}]>] manual_axes={"x", "y"} (%l: tensor<4x2xf32>) {
// CHECK: } {sbp.sig = #sbp.sig<([S(0), S(0)]) -> ([S(0), B])>} : (tensor<32x2xf32>) -> tensor<16xf32>
// CHECK-NEXT: %4 = stablehlo.reshape %3 : (tensor<16xf32>) -> tensor<2x2x4xf32>
// CHECK-NEXT: %5 = stablehlo.slice %4 [0:2, 0:1, 0:4] : (tensor<2x2x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %6 = stablehlo.reshape %5 : (tensor<2x1x4xf32>) -> tensor<8xf32>
// CHECK-NEXT: func.return %6
func.func @sub_axes(%a: tensor<8x8xf32>) -> tensor<8xf32> {
  %0 = sdy.manual_computation(%a) in_shardings=[<@m, [{"x":(1)2}, {"x":(2)2, "y"}]>] out_shardings=[<@m, [{"x":(1)2}]>] manual_axes={"x", "y"} (%l: tensor<4x2xf32>) {
    %c = stablehlo.constant dense<1.0> : tensor<4xf32>
    sdy.return %c : tensor<4xf32>
  } : (tensor<8x8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
