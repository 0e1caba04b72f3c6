// RUN: sbpc-opt %s -p sbp-import-sdy | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing' -t jax | filecheck %s --check-prefix=JAX

// Outside a manual computation, a partition_id nothing reads (Shardy's
// executable stablehlo_scatter_shard_implicit_dim has one) has no effect:
// dropped.  One that is read is refused (test/dialects/stablehlo/
// collectives-invalid.mlir).

// CHECK-LABEL: func.func @main
// CHECK-NOT: partition_id
// CHECK: stablehlo.negate
// JAX: IN_SPECS = (P("x"),)
sdy.mesh @m = <["x"=2]>
func.func @main(%a: tensor<4xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> tensor<4xf32> {
  %pid = stablehlo.partition_id : tensor<ui32>
  %0 = stablehlo.negate %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
