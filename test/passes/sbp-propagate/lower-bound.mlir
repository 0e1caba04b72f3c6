// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=bfs improve=0 cost_model="combine=0" report=-}' 2>&1 >/dev/null | filecheck %s --check-prefix=RAW
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=bfs improve=0 report=-}' 2>&1 >/dev/null | filecheck %s --check-prefix=RAW
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=bfs report=-}' 2>&1 >/dev/null | filecheck %s --check-prefix=BEST
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="combine=0" report=-}' 2>&1 >/dev/null | filecheck %s --check-prefix=BEST
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal report=-}' 2>&1 >/dev/null | filecheck %s --check-prefix=BEST
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=bfs improve=0 report=- report_format=json}' 2>&1 >/dev/null | filecheck %s --check-prefix=JSON

// Every report says how far its plan is from the best: a lower bound on the
// modeled total of every plan (the optimal strategy's LP relaxation; with
// combining, at least one collective's launch above the latency-free one).
// MindSpore's propagation (bfs, improve=0) of seed 004's FFN leaves the
// second matmul's sum partial and reduce-scatters it into the result (6 KiB),
// 0.5% above the bound; improved (the default), bfs exchanges the first
// matmul's columns for rows instead (1.5 KiB), as the optimal plan does.

// RAW: total: 8.076 us (communication 8.061 us,
// RAW-NEXT: lower bound: 8.033 us (plan is 0.5% above)
// BEST: total: 8.033 us (communication 8.015 us,
// BEST-NEXT: lower bound: 8.033 us (plan is 0% above)
// JSON: "lower_bound": 8.0328
module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
  func.func @ffn(%x: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %b1: tensor<64xf32>,
                 %w2: tensor<64x64xf32>, %b2: tensor<64xf32>) -> tensor<64x64xf32> {
    %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0), B], [B, S(1)]) -> ([S(0), S(1)])>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<64xf32>) -> tensor<64x64xf32>
    %2 = stablehlo.add %0, %1 : tensor<64x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %4 = stablehlo.maximum %2, %3 : tensor<64x64xf32>
    %5 = stablehlo.dot_general %4, %w2, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %6 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<64xf32>) -> tensor<64x64xf32>
    %7 = stablehlo.add %5, %6 : tensor<64x64xf32>
    return %7 : tensor<64x64xf32>
  }
}

