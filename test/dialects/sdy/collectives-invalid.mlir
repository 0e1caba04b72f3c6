// RUN: sbpc-opt %s --verify-diagnostics --split-input-file

// Malformed reshards and collectives are located verifier (or parse) errors.

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @reshard_rank(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sdy.reshard: sharding has 2 dimensions for a rank-1 tensor}}
  %0 = sdy.reshard %x <@m, [{}, {"y"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @reshard_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sdy.reshard: unknown axis name "z"}}
  %0 = sdy.reshard %x <@m, [{"z"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

sdy.mesh @m = <["a"=2]>
func.func @reshard_in_manual(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@m, [{"a"}, {}]>] out_shardings=[<@m, [{"a"}, {}]>] manual_axes={"a"} (%arg1: tensor<8x32xf32>) {
    // expected-error @+1 {{sdy.reshard: operates on axis "a" which is already bound by a parent sdy.manual_computation op}}
    %1 = sdy.reshard %arg1 <@m, [{"a"}, {}]> : tensor<8x32xf32>
    sdy.return %1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @gather_rank(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.all_gather: result sharding has rank 2 but collective axes has rank 1}}
  %0 = sdy.all_gather [{"x"}] %x out_sharding=<@m, [{}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @gather_not_suffix(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x", "y"}, {}]>}) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.all_gather: can't apply gathering axis "x" to operand sharding on dimension 0}}
  %0 = sdy.all_gather [{"x"}, {}] %x out_sharding=<@m, [{"y"}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @slice_mismatch(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.all_slice: result sharding doesn't match expected sharding ["x", "y"] on dimension 0}}
  %0 = sdy.all_slice [{"y"}, {}] %x out_sharding=<@m, [{"y", "x"}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @duplicate(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.all_slice: duplicate axis ref: "x"}}
  %0 = sdy.all_slice [{"x"}, {"x"}] %x out_sharding=<@m, [{"x"}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @unknown_axis(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.all_reduce: unknown axis name "w"}}
  %0 = sdy.all_reduce {"w"} %x out_sharding=<@m, [{}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @a2a_empty(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.all_to_all: parameter list is empty}}
  %0 = sdy.all_to_all [] %x out_sharding=<@m, [{"x"}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @a2a_overlap(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {"y"}]>}) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.all_to_all: overlapping source/target dimensions in all-to-all params: 1}}
  %0 = sdy.all_to_all [{"x"}: 0->1, {"y"}: 1->0] %x out_sharding=<@m, [{"y"}, {"x"}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @a2a_not_suffix(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.all_to_all: can't apply all-to-all axis "y" to operand sharding on dimension 0}}
  %0 = sdy.all_to_all [{"y"}: 0->1] %x out_sharding=<@m, [{"x"}, {"y"}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=4]>
func.func @permute_pieces(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.collective_permute: dimension 0 is split into 2 pieces by the operand's sharding and 4 by the result's}}
  %0 = sdy.collective_permute %x out_sharding=<@m, [{"y"}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
sdy.mesh @n = <["a"=4]>
func.func @other_mesh(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.all_gather: result mesh does not match operand mesh}}
  %0 = sdy.all_gather [{}, {}] %x out_sharding=<@n, [{}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @reduce_overlaps_dims(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"y"}, {}]>}) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.all_reduce: reduction axis "y" overlaps with operand dimension sharding or replicated axes}}
  %0 = sdy.all_reduce {"y"} %x out_sharding=<@m, [{"y"}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @reduce_into_unreduced(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.all_reduce: reduction axis "x" overlaps with result unreduced axes}}
  %0 = sdy.all_reduce {"x"} %x out_sharding=<@m, [{}, {}], unreduced={"x"}> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @bad_reduction(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{expected a reduction (sum, max, min) or the axes, got 'prod'}}
  %0 = sdy.all_reduce prod {"x"} %x out_sharding=<@m, [{}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @types(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{attribute tensor<8x8xf32> expected from variable 'T', but got tensor<8x4xf32>}}
  %0 = "sdy.reshard"(%x) <{sharding = #sdy.sharding<@m, [{}, {}]>}> : (tensor<8x8xf32>) -> tensor<8x4xf32>
  return %x : tensor<8x8xf32>
}

// -----

func.func @constant_type() -> tensor<2xf32> {
  // expected-error @+1 {{sdy.constant: value type tensor<2xi32> differs from result type tensor<2xf32>}}
  %0 = "sdy.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @gather_unsharded(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{sdy.all_gather: collective on operand without sharding}}
  %0 = sdy.all_gather [{}, {}] %x out_sharding=<@m, [{}, {}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @slice_unsharded_is_replicated(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = stablehlo.tanh %x : tensor<8x8xf32>
  %1 = sdy.all_slice [{"x"}, {}] %0 out_sharding=<@m, [{"x"}, {}]> : tensor<8x8xf32>
  // expected-error @+1 {{sdy.all_to_all: collective on operand without sharding}}
  %2 = sdy.all_to_all [{"x"}: 0->1] %0 out_sharding=<@m, [{}, {"x"}]> : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
