// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p sbp-import-sdy

// What sbpc cannot express in a reshard or collective is a located error.

sdy.mesh @m = <["x"=2, "y"=2]>
func.func @in_manual_body(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@m, [{"x"}, {}]>] out_shardings=[<@m, [{"x"}, {}]>] manual_axes={"x", "y"} (%arg1: tensor<8x32xf32>) {
    // expected-error @+1 {{sdy.all_gather inside a manual body: sbpc runs manual computations manual on every mesh axis, which leaves it no axis}}
    %1 = sdy.all_gather [{}, {}] %arg1 out_sharding=<@m, [{}, {}]> : tensor<8x32xf32>
    sdy.return %1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
