// Issue 36, row E: `time_limit` bounds every HiGHS solve of the pass
// together, the smallest-budget search included.  A JAX training step whose
// batch is 0 (its memory rows hold explicit zeros, on which HiGHS's presolve
// ran for minutes past its own time limit) ran past 300 s with
// `time_limit=0.5`; it now answers in seconds (`timeout` turns a hang into a
// failure here).
// RUN: not timeout 60 sbpc-opt %S/inputs/train_step_batch0.mlir -p 'sbp-import-sdy,sbp-inline,sbp-propagate{strategy=optimal memory_budget=1000 time_limit=0.5}' 2>&1 | filecheck %s --check-prefix=SMALLEST
// A budget some plan meets: a plan, within the limit.
// RUN: timeout 60 sbpc-opt %S/inputs/train_step_batch0.mlir -p 'sbp-import-sdy,sbp-inline,sbp-propagate{strategy=optimal memory_budget=5000 time_limit=0.5 report="-"},sbp-lower-boxing' -t jax 2>&1 | filecheck %s --check-prefix=PLAN

// SMALLEST: train_step_batch0.mlir:6:3: error: no plan fits the memory budget of 1000 B (1000 bytes) per device; {{(the smallest feasible|a feasible)}} budget is {{.*}} ({{[0-9]+}} bytes)
// PLAN: propagation plan (strategy=optimal)
// PLAN: peak memory {{.*}} per device
// PLAN: def _stage0(
