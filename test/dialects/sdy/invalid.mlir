// RUN: sbpc-opt %s --verify-diagnostics --split-input-file

// Malformed sdy attributes and ops are located verifier errors.

// expected-error @+1 {{sdy.mesh: duplicate axis names}}
sdy.mesh @m = <["x"=2, "x"=4]>

// -----

// expected-error @+1 {{sdy.mesh: 4 device_ids for a mesh of 2 devices}}
sdy.mesh @m = <["x"=2], device_ids=[0, 1, 2, 3]>

// -----

// expected-error @+1 {{sdy.mesh: device_ids must be a permutation of 0..N-1}}
sdy.mesh @m = <["x"=2], device_ids=[1, 1]>

// -----

sdy.mesh @m = <["x"=2]>
func.func @rank(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.sharding_constraint: sharding has 1 dimensions for a rank-2 tensor}}
  %0 = sdy.sharding_constraint %x <@m, [{"x"}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2]>
func.func @local_shape(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.manual_computation: body argument #0 is tensor<8x8xf32>, its global tensor<8x8xf32> under #sdy.sharding<@m, [{"x"}, {}]> gives tensor<4x8xf32> per device}}
  %0 = sdy.manual_computation(%x) in_shardings=[<@m, [{"x"}, {}]>] out_shardings=[<@m, [{}, {}]>] manual_axes={"x"} (%a: tensor<8x8xf32>) {
    sdy.return %a : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @bad_dim(%x: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"} q]>}) -> tensor<8xf32> {
  // expected-error @-1 {{expected a priority p<N> after a dimension sharding, got 'q'}}
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{argument #0: unknown mesh @nope}}
func.func @unknown_mesh(%x: tensor<8xf32> {sdy.sharding = #sdy.sharding<@nope, [{}]>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

sdy.mesh @m = <["x"=4]>
// expected-error @+1 {{result #0: sub-axis "x":(2)4 does not divide axis "x" of size 4}}
func.func @bad_sub_axis(%x: tensor<8xf32>) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x":(2)4}]>}) {
  return %x : tensor<8xf32>
}

// -----

sdy.mesh @m = <["x"=4]>
func.func @per_value_count(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sdy.sharding: 2 shardings for 1 results}}
  %0 = stablehlo.negate %x {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}]>, <@m, [{}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

sdy.mesh @m = <["x"=4]>
func.func @constraint_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sdy.sharding_constraint: unknown axis name "y"}}
  %0 = sdy.sharding_constraint %x <@m, [{"y"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}
