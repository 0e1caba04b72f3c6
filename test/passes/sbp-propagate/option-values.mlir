// Issue 36, row A: option values are converted once, when the pipeline is
// parsed, and every consumer reads the converted value.  `memory_budget=1e9`
// reaches the pass as text; the HTML and dot reports got that text (an
// internal TypeError in format_bytes) where the solve got the number.
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal memory_budget=1e9 report="-" report_format=html}' 2>&1 >/dev/null | filecheck %s --check-prefix=HTML
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal memory_budget="2.5e4" report="-" report_format=dot}' 2>&1 >/dev/null | filecheck %s --check-prefix=DOT
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal memory_budget=1e9 time_limit=1e1 report="-" report_format=json}' 2>&1 >/dev/null | filecheck %s --check-prefix=JSON
// A value no pass can use is refused as the pipeline is parsed, not at the
// pass (`file:1:1`), as every other option value.
// RUN: not sbpc-opt %s -p 'sbp-propagate{trip_count=-1}' 2>&1 | filecheck %s --check-prefix=TRIPS
// RUN: not sbpc-opt %s -p 'sbp-propagate{cluster=-1}' 2>&1 | filecheck %s --check-prefix=CLUSTER
// RUN: not sbpc-opt %s -p 'sbp-lower-boxing{cost_model="bw=0"}' 2>&1 | filecheck %s --check-prefix=LOWER

// HTML: budget 953.7 MiB
// HTML-NOT: internal error
// DOT: digraph
// DOT-NOT: internal error
// JSON: "strategy": "optimal"
// JSON-NOT: internal error
// TRIPS: sbpc-opt: error: trip_count must be at least 0, not -1
// TRIPS-NOT: option-values.mlir
// CLUSTER: sbpc-opt: error: cluster must be at least 0, not -1
// LOWER: sbpc-opt: error: bad cost_model option: link bandwidth must be positive, got 0.0
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @main(%a: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> tensor<4x8xf32> {
    %0 = stablehlo.exponential %a : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
