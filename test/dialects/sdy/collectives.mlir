// RUN: sbpc-opt %s --split-input-file | filecheck %s
// RUN: sbpc-opt %s --split-input-file | sbpc-opt --split-input-file | filecheck %s
// RUN: sbpc-opt %s --split-input-file --print-op-generic | sbpc-opt --split-input-file | filecheck %s

// sdy.reshard, sdy.constant and Shardy's explicit collectives in the forms
// Shardy's own tests write them (openxla/shardy
// shardy/dialect/sdy/ir/test/collective_parse_print.mlir,
// constant_parse_print.mlir), printed back the same.

sdy.mesh @mesh = <["x"=2, "y"=4]>

// CHECK-LABEL: func.func @chain
func.func @chain(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<16x32xf32> {
  // CHECK-NEXT: %0 = sdy.reshard %arg0 <@mesh, [{}, {"y"}]> : tensor<16x32xf32>
  %0 = sdy.reshard %arg0 <@mesh, [{}, {"y"}]> : tensor<16x32xf32>
  // CHECK-NEXT: %1 = sdy.all_slice [{"x"}, {}] %0 out_sharding=<@mesh, [{"x"}, {"y"}]> : tensor<16x32xf32>
  %1 = sdy.all_slice [{"x"}, {}] %0 out_sharding=<@mesh, [{"x"}, {"y"}]> : tensor<16x32xf32>
  // CHECK-NEXT: %2 = sdy.all_gather [{}, {"y"}] %1 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x32xf32>
  %2 = sdy.all_gather [{}, {"y"}] %1 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x32xf32>
  // CHECK-NEXT: %3 = sdy.all_to_all [{"x"}: 0->1] %2 out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x32xf32>
  %3 = sdy.all_to_all [{"x"}: 0->1] %2 out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x32xf32>
  // CHECK-NEXT: %4 = sdy.collective_permute %3 out_sharding=<@mesh, [{}, {"x", ?}]> : tensor<16x32xf32>
  %4 = sdy.collective_permute %3 out_sharding=<@mesh, [{}, {"x", ?}]> : tensor<16x32xf32>
  // CHECK-NEXT: %5 = sdy.all_reduce max {"y"} %4 out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x32xf32>
  %5 = sdy.all_reduce max {"y"} %4 out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x32xf32>
  // CHECK-NEXT: %6 = sdy.all_reduce {"y"} %5 out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x32xf32>
  %6 = sdy.all_reduce {"y"} %5 out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x32xf32>
  // CHECK-NEXT: %7 = sdy.reduce_scatter [{"y"}, {}] %6 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x32xf32>
  %7 = sdy.reduce_scatter [{"y"}, {}] %6 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x32xf32>
  // CHECK-NEXT: %8 = sdy.reduce_scatter min [{}, {}] %7 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x32xf32>
  %8 = sdy.reduce_scatter min [{}, {}] %7 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x32xf32>
  // CHECK-NEXT: %9 = sdy.sharded_to_unreduced [{"y"}, {}] %8 out_sharding=<@mesh, [{}, {"x"}], unreduced={"y"}> : tensor<16x32xf32>
  %9 = sdy.sharded_to_unreduced [{"y"}, {}] %8 out_sharding=<@mesh, [{}, {"x"}], unreduced={"y"}> : tensor<16x32xf32>
  // CHECK-NEXT: %10 = sdy.replicated_to_unreduced {"y"} %3 out_sharding=<@mesh, [{}, {"x"}], unreduced={"y"}> : tensor<16x32xf32>
  %10 = sdy.replicated_to_unreduced {"y"} %3 out_sharding=<@mesh, [{}, {"x"}], unreduced={"y"}> : tensor<16x32xf32>
  // CHECK-NEXT: %cst = sdy.constant dense<1.000000e+00> : tensor<16x32xf32>
  %cst = sdy.constant dense<1.0> : tensor<16x32xf32>
  // CHECK-NEXT: %11 = sdy.constant {foo} dense<[[1, 2]]> : tensor<1x2xi32>
  %11 = sdy.constant {foo} dense<[[1, 2]]> : tensor<1x2xi32>
  %12 = stablehlo.add %9, %cst : tensor<16x32xf32>
  return %12 : tensor<16x32xf32>
}

// -----

// Sub-axes, several all-to-all parameters, and a reshard with an inline mesh.

sdy.mesh @mesh4 = <["x"=8, "y"=2, "z"=2]>

// CHECK-LABEL: func.func @sub_axes
func.func @sub_axes(%arg0 : tensor<16x8x4x4xf32> {sdy.sharding=#sdy.sharding<@mesh4, [{"y"}, {"z", "x":(1)4}, {}, {}]>}) -> tensor<16x8x4x4xf32> {
  // CHECK-NEXT: sdy.all_to_all [{"y"}: 0->2, {"x":(2)2}: 1->3] %arg0 out_sharding=<@mesh4, [{}, {"z", "x":(1)2}, {"y"}, {"x":(2)2}]>
  %0 = sdy.all_to_all [{"y"}: 0->2, {"x":(2)2}: 1->3] %arg0 out_sharding=<@mesh4, [{}, {"z", "x":(1)2}, {"y"}, {"x":(2)2}]> : tensor<16x8x4x4xf32>
  // CHECK-NEXT: sdy.reshard %0 <mesh<["a"=2]>, [{"a"}, {}, {}, {}]>
  %1 = sdy.reshard %0 <mesh<["a"=2]>, [{"a"}, {}, {}, {}]> : tensor<16x8x4x4xf32>
  return %1 : tensor<16x8x4x4xf32>
}

// -----

// A sharding_per_value entry may be spelled in full (Shardy's executable
// partitioner tests do); it prints stripped.

sdy.mesh @mesh = <["x"=2]>

// CHECK-LABEL: func.func @full_entries
// CHECK-NEXT: %0 = stablehlo.slice %arg0 [0:4, 0:2] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<4x4xi32>) -> tensor<4x2xi32>
func.func @full_entries(%arg0: tensor<4x4xi32>) -> tensor<4x2xi32> {
  %0 = stablehlo.slice %arg0 [0:4, 0:2] {sdy.sharding = #sdy.sharding_per_value<[#sdy.sharding<@mesh, [{"x"}, {}]>]>} : (tensor<4x4xi32>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}
