// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal},sbp-lower-boxing' --timing 2>&1 >/dev/null | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing' -t jax --timing 2>&1 >/dev/null | filecheck %s --check-prefix=JAX
// RUN: sbpc-opt %s -p sbp-propagate | filecheck %s --check-prefix=QUIET
// RUN: not sbpc-opt %s.missing-placement --timing 2>&1 | filecheck %s --check-prefix=MISSING

// The mlir-opt -mlir-timing table, on stderr: phases in order, sub-phases
// of a pass indented under it, and the total last.  The default search's
// refinements (local improvement at lower latency scales) follow the
// strategy's plan, then the wait for what is left of its proof.
// CHECK: ... Execution time report ...
// CHECK: Total Execution Time: {{[0-9.]+}} seconds
// CHECK: ----Wall Time----  ----Name----
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  parse
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  verify
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  sbp-propagate
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    build graph
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    strategy optimal
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)      pairwise problem
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)      shrink
// CHECK: {{[0-9.]+}} ({{ *[0-9.]+}}%)    price plan
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    combining: price
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    improve: pairwise problem
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    improve: shrink
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    improve: blocks
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    settle proof
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    write back
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  sbp-lower-boxing
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  print
// CHECK-NEXT: {{[0-9.]+}} (100.0%)  Total

// JAX: {{[0-9.]+}} ({{ *[0-9.]+}}%)  sbp-lower-boxing
// JAX: {{[0-9.]+}} ({{ *[0-9.]+}}%)  emit (jax)
// JAX-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    read program
// JAX-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    write source
// JAX-NEXT: {{[0-9.]+}} (100.0%)  Total

// Without --timing nothing is timed or printed.
// QUIET-NOT: Execution time report
// QUIET: sbp.sig

// An input that cannot be opened fails before anything is timed.
// MISSING: sbpc-opt: error: cannot open input file
// MISSING-NOT: Execution time report

builtin.module attributes {sbp.placement = #sbp.placement<cpu, [[0, 1], [2, 3]]>} {
  func.func @main(%x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    %z = stablehlo.tanh %y : tensor<8x8xf32>
    func.return %z : tensor<8x8xf32>
  }
}
