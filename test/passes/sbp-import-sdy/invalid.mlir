// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p sbp-import-sdy

// What an nd_sbp cannot say is a located error, never a silent drop.

sdy.mesh @m = <["x"=6]>
// expected-error @+1 {{the sub-axes of 'x' do not nest}}
func.func @sub_axes_not_nested(%a: tensor<6x6xf32> {sdy.sharding = #sdy.sharding<@m, [{"x":(1)2}, {"x":(1)3}]>}) -> tensor<6x6xf32> {
  return %a : tensor<6x6xf32>
}

// -----

sdy.mesh @m = <["x"=2]>
// expected-error @+1 {{argument #0: unknown axis name "z"}}
func.func @unknown(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"z"}]>}) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}

// -----

sdy.mesh @m = <["x"=2]>
// expected-error @+1 {{argument #0: axis "x" is used more than once}}
func.func @twice(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {"x"}]>}) -> tensor<8x8xf32> {
  return %a : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2]>
// expected-error @+1 {{a second mesh @n: sbpc lays out a module on one mesh}}
sdy.mesh @n = <["y"=4]>

// -----

sdy.mesh @m = <["x"=2, "y"=4]>
func.func @partly_manual(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{manual_axes={x} does not cover the mesh (x, y): sbpc runs manual computations manual on every mesh axis}}
  %0 = sdy.manual_computation(%a) in_shardings=[<@m, [{"x"}]>] out_shardings=[<@m, [{"x"}]>] manual_axes={"x"} (%b: tensor<4xf32>) {
    sdy.return %b : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @odd_groups(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.manual_computation(%a) in_shardings=[<@m, [{"x"}]>] out_shardings=[<@m, [{"x"}]>] manual_axes={"x", "y"} (%b: tensor<4xf32>) {
    // expected-error @+1 {{replica_groups [(0, 3), (1, 2)] are not the groups of mesh axes}}
    %1 = "stablehlo.all_reduce"(%b) <{replica_groups = dense<[[0, 3], [1, 2]]> : tensor<2x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    sdy.return %1 : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

sdy.mesh @m = <["x"=2]>
// expected-error @+1 {{argument #0 has a GSPMD mhlo.sharding = "{devices=[2]0,1}", which sbpc does not read}}
func.func @gspmd(%a: tensor<8xf32> {mhlo.sharding = "{devices=[2]0,1}"}) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}

// -----

func.func @no_mesh(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'sdy.sharding_constraint' but no sdy.mesh}}
  %0 = sdy.sharding_constraint %a <mesh<["x"=2]>, [{"x"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

sdy.mesh @m = <["x"=4]>
func.func @partly_unreduced_axis(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{#sdy.sharding<@m, [{"x":(1)2}], unreduced={"x":(2)2}>: mesh axis 'x' is unreduced on some of its sub-axes only}}
  %0 = sdy.manual_computation(%a) in_shardings=[<@m, [{"x"}]>] out_shardings=[<@m, [{"x":(1)2}], unreduced={"x":(2)2}>] manual_axes={"x"} (%b: tensor<2xf32>) {
    %1 = stablehlo.concatenate %b, %b, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
    sdy.return %1 : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
