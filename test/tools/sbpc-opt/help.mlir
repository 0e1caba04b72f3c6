// Issue 38, item 3: `--help` speaks of sbpc: its passes with one line each
// and the `mlir` and `jax` targets, not xDSL's hundred passes and ten
// targets. `--help-all` lists those, and they still run.
// RUN: sbpc-opt --help | filecheck %s
// RUN: sbpc-opt --help | filecheck %s --check-prefix=NOXDSL
// RUN: sbpc-opt --help-all | filecheck %s --check-prefix=ALL
// RUN: sbpc-opt %s -p canonicalize,cse | filecheck %s --check-prefix=RUNS

// CHECK: usage: sbpc-opt [options] [input_file]
// CHECK: sbpc passes (-p):
// CHECK-NEXT: sbp-import-sdy {{ +}}Translate Shardy's mesh
// CHECK: sbp-propagate {{ +}}Choose one SBP signature for every tensor op
// CHECK: sbp-lower-boxing {{ +}}Insert the cheapest collectives
// CHECK: targets (-t):
// CHECK-NEXT: mlir {{ +}}the module as MLIR text
// CHECK-NEXT: jax {{ +}}a standalone JAX shard_map module

// NOXDSL-NOT: riscv
// NOXDSL-NOT: canonicalize
// NOXDSL-NOT: wgsl
// NOXDSL-NOT: --shrink

// ALL: --shrink
// ALL: sbpc passes (-p):
// ALL: xDSL's passes (also runnable here):
// ALL: canonicalize
// ALL: xDSL's targets:
// ALL-NEXT: riscv-asm

// RUNS: stablehlo.add
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
