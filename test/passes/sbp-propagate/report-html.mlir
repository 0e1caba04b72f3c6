// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="overhead=0" memory_budget=30000 report=%t.html report_format=html}' -o /dev/null
// RUN: filecheck %s --input-file=%t.html --check-prefix=HTML
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="overhead=0" report=- report_format=dot}' 2>&1 >/dev/null | filecheck %s --check-prefix=DOT
// RUN: not sbpc-opt %s -p 'sbp-propagate{report=- report_format=png}' 2>&1 | filecheck %s --check-prefix=BAD
// With --timing the page also shows the wall time per phase so far; without, no timing section.
// RUN: sbpc-opt %s -p 'sbp-inline,sbp-propagate{report=%t.timed.html report_format=html}' --timing -o /dev/null 2>/dev/null
// RUN: filecheck %s --input-file=%t.timed.html --check-prefix=TIMED
// RUN: not grep -q 'class="timing"' %t.html
// TIMED: <section class="timing"><h2>Timing</h2><pre>
// TIMED: Execution time so far
// TIMED: {{[0-9.]+}} ({{ *[0-9.]+}}%)  sbp-inline
// TIMED-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  sbp-propagate
// TIMED-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    build graph

// The plan as a picture (the path unquoted, as mlir-opt users write it): a Megatron FFN on 2x4 devices whose second matmul
// leaves a partial sum; the result is wanted as [S(0), B] (no launch cost,
// `overhead=0`: with one, a single all-reduce beats the two steps drawn here).

// HTML: <!DOCTYPE html>
// HTML: <input id="search"
// One node per argument, op and result, coloured by layout; ids as in the dot.
// HTML-DAG: <g id="f0&#45;arg0" class="node arg">
// HTML-DAG: <g id="f0&#45;arg1" class="node arg">
// HTML-DAG: <g id="f0&#45;arg2" class="node arg">
// HTML-DAG: <g id="f0&#45;op3" class="node op">
// HTML-DAG: <g id="f0&#45;op4" class="node op">
// HTML-DAG: <g id="f0&#45;op5" class="node op">
// HTML-DAG: <g id="f0&#45;op6" class="node op">
// HTML-DAG: <g id="f0&#45;result7" class="node result">
// The partial sum is reduce-scattered over hierarchy dim 1, then gathered.
// HTML-DAG: >reduce_scatter(sum) d1</text>
// HTML-DAG: >all_gather d1</text>
// HTML: <h3>Memory per device over time</h3>
// The plan fits the budget: both weights stored as their matmuls read them
// ([B, S(1)], [B, S(0)]: 28 KiB; memory-budget-relaxed.mlir says how the
// budgeted program finds it).
// HTML: peak 28 KiB at step 3
// HTML: budget 29.3 KiB
// HTML: <h3>Most expensive layout changes</h3>
// HTML: <td>[S(0), P(sum)] &rarr; [S(0), S(0)]</td><td>reduce_scatter(sum) d1</td><td class="num">6 KiB</td>

// DOT: digraph "@ffn on cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]" {
// DOT: arg0 [label="%x\n[S(0), B] given" class=arg
// DOT: op3 [label="stablehlo.dot_general\n[S(0), S(1)]" class=op {{.*}} penwidth=2.5 shape=box
// DOT: op5 [label="stablehlo.dot_general\n[S(0), P(sum)]" class=op
// DOT: result7 [label="result #0\n[S(0), B]" class=result
// DOT: arg0 -> op3 [class=use
// DOT: op5 -> op6 [label="reduce_scatter(sum) d1\n6 KiB" class=boxing
// DOT: op6 -> result7 [label="all_gather d1\n6 KiB" class=boxing
// DOT: }

// BAD: sbpc-opt: error: unknown report_format 'png', expected one of text, json, html, dot
module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
  func.func @ffn(%x: tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> (tensor<64x64xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}) {
    %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0), B], [B, S(1)]) -> ([S(0), S(1)])>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %1 = stablehlo.tanh %0 : tensor<64x64xf32>
    %2 = stablehlo.dot_general %1, %w2, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0), S(1)], [B, S(0)]) -> ([S(0), P(sum)])>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %3 = stablehlo.add %2, %x : tensor<64x64xf32>
    return %3 : tensor<64x64xf32>
  }
}
