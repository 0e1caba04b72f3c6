// A budget no plan fits: the error names the least peak met and what would
// lower it, as far as the function shows (issue 32, item 4).  The two-layer
// residual tanh stack's training step (sbp-remat/stack.mlir): recomputing its
// layers or cutting them into pipeline stages, and more devices.  Once its
// layers are recomputed (barriers in the step), only more devices; a
// forward program with no repeated layers: memory-budget-infeasible.mlir.
// RUN: not sbpc-opt %S/../sbp-remat/stack.mlir -p 'sbp-propagate{strategy=optimal memory_budget=1000}' 2>&1 | filecheck %s
// RUN: not sbpc-opt %S/../sbp-remat/stack.mlir -p 'sbp-remat{layers=all},sbp-propagate{strategy=optimal memory_budget=1000}' 2>&1 | filecheck %s --check-prefix=REMAT
// The device's memory as the budget (the cost model's mem=): the same clause.
// RUN: not sbpc-opt %S/../sbp-remat/stack.mlir -p 'sbp-propagate{strategy=optimal cost_model=mem=1000}' 2>&1 | filecheck %s --check-prefix=MEM

// CHECK: stack.mlir:[[#]]:3: error: no plan fits the memory budget of 1000 B (1000 bytes) per device; a feasible budget is {{.*}}; what would help: recomputing its 2 repeated layers in the backward pass (sbp-remat, remat= in sbpc.jax); pipeline stages, each holding some of its 2 layers (sbp-pipeline, pipeline= in sbpc.jax); more devices for what is split (the least peak is {{[0-9.]+}}x the budget){{$}}

// REMAT: error: no plan fits the memory budget of 1000 B {{.*}}; what would help: more devices for what is split (the least peak is {{[0-9.]+}}x the budget){{$}}

// MEM: error: the device's memory (1000 B, the cost model's mem=) is the memory budget: no plan fits {{.*}}; what would help: recomputing its 2 repeated layers
