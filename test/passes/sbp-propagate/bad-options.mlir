// Issue 21, item 6: option values are checked as the pipeline is parsed; a
// bad one is a `sbpc-opt: error:` naming the option, before any work, never
// a different plan.
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=optimal memory_budget=-5}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=optimal memory_budget=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=optimal memory_budget=lots}' 2>&1 | filecheck %s --check-prefix=WORD
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=optimal time_limit=-1}' 2>&1 | filecheck %s --check-prefix=TIME
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=optimal time_limit=0}' 2>&1 | filecheck %s --check-prefix=TIME0
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=nosuch}' 2>&1 | filecheck %s --check-prefix=STRATEGY
// RUN: not sbpc-opt %s -p 'sbp-propagate{cost_model="bw=0"}' 2>&1 | filecheck %s --check-prefix=COST
// RUN: not sbpc-opt %s -p 'sbp-propagate{report_format=yaml}' 2>&1 | filecheck %s --check-prefix=FORMAT
// RUN: not sbpc-opt %s -p 'sbp-propagate{fence_bytes=-1}' 2>&1 | filecheck %s --check-prefix=FENCE
// RUN: sbpc-opt %s -p 'sbp-propagate{fence_bytes=0}' | filecheck %s
// A value of the wrong kind names its option (xDSL's message does not).
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=1}' 2>&1 | filecheck %s --check-prefix=KIND
// Numbers in exponent form are numbers (they reach the pass as text).
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal memory_budget=1e30 time_limit=1e3}' | filecheck %s

// KIND: sbpc-opt: error: sbp-propagate: bad value for option strategy: 1 (Incompatible types
// NEGATIVE: sbpc-opt: error: memory_budget must be a positive number of bytes, not -5
// ZERO: sbpc-opt: error: memory_budget must be a positive number of bytes, not 0
// WORD: sbpc-opt: error: memory_budget must be a positive number of bytes, not 'lots'
// TIME: sbpc-opt: error: time_limit must be a positive number of seconds, not -1
// TIME0: sbpc-opt: error: time_limit must be a positive number of seconds, not 0
// STRATEGY: sbpc-opt: error: unknown strategy 'nosuch', expected one of greedy, bfs, optimal
// COST: sbpc-opt: error: bad cost_model option
// FENCE: sbpc-opt: error: fence_bytes must be 0 or a positive number of bytes, not -1
// FORMAT: sbpc-opt: error: unknown report_format 'yaml', expected one of text, json, html, dot
// CHECK: sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)])>
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @main(%a: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> tensor<4x8xf32> {
    %0 = stablehlo.add %a, %a : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
