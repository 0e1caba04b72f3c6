// Issue 36, row D: every cost-model number is checked for a range whose
// arithmetic stays finite (`lat=1e308`, `bw=1e-308`, `flops=1e-308` were
// internal OverflowErrors deep in the search; `overhead=1e308` exited 0 with
// numpy RuntimeWarnings on stderr).  Each key, at both ends, for every strategy
// it reached; a scenario's values too.  No warning leaks.
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="lat=1e308"}' 2>&1 | filecheck %s --check-prefix=K0
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=greedy cost_model="lat=1e-300"}' 2>&1 | filecheck %s --check-prefix=K1
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=greedy cost_model="bw=1e-308"}' 2>&1 | filecheck %s --check-prefix=K2
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="bw=1e300"}' 2>&1 | filecheck %s --check-prefix=K3
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=greedy cost_model="flops=1e-308"}' 2>&1 | filecheck %s --check-prefix=K4
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="hbm=1e-308"}' 2>&1 | filecheck %s --check-prefix=K5
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="overhead=1e308"}' 2>&1 | filecheck %s --check-prefix=K6
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=bfs cost_model="transfer_bw=1e-308"}' 2>&1 | filecheck %s --check-prefix=K7
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=greedy cost_model="transfer_lat=1e308"}' 2>&1 | filecheck %s --check-prefix=K8
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="flops_half=1e300"}' 2>&1 | filecheck %s --check-prefix=K9
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=greedy cost_model="bw=1e9:1e-9"}' 2>&1 | filecheck %s --check-prefix=K10
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="bw=1e9|bw=1e-300"}' 2>&1 | filecheck %s --check-prefix=K11
// The machines' keys too: per-dtype rates, the device's memory, links by level.
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=greedy cost_model="flops_bf16=1e-308"}' 2>&1 | filecheck %s --check-prefix=K12
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="h100-sxm,mem=1e300"}' 2>&1 | filecheck %s --check-prefix=K13
// RUN: not sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="h100-sxm,net_lat=1e308"}' 2>&1 | filecheck %s --check-prefix=K14
// The ends of the ranges are numbers a machine may have: they plan, with no warning.
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="bw=1e-3,lat=1e6,overhead=1e6,flops=1e-3,hbm=1e-3,transfer_lat=1e6,flops_half=1e12"},sbp-lower-boxing' 2>&1 | filecheck %s --check-prefix=ENDS
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=greedy cost_model="bw=1e21,lat=1e-15,overhead=1e-15,flops=1e21,hbm=1e21"},sbp-lower-boxing' 2>&1 | filecheck %s --check-prefix=ENDS

// K0: sbpc-opt: error: bad cost_model option: 'lat' must be 0 or between 1e-15 and 1e+06 s, got 1e+308
// K0-NOT: Warning
// K1: sbpc-opt: error: bad cost_model option: 'lat' must be 0 or between 1e-15 and 1e+06 s, got 1e-300
// K1-NOT: Warning
// K2: sbpc-opt: error: bad cost_model option: 'bw' must be between 0.001 and 1e+21 bytes/s, got 1e-308
// K2-NOT: Warning
// K3: sbpc-opt: error: bad cost_model option: 'bw' must be between 0.001 and 1e+21 bytes/s, got 1e+300
// K3-NOT: Warning
// K4: sbpc-opt: error: bad cost_model option: 'flops' must be between 0.001 and 1e+21 flop/s, got 1e-308
// K4-NOT: Warning
// K5: sbpc-opt: error: bad cost_model option: 'hbm' must be between 0.001 and 1e+21 bytes/s, got 1e-308
// K5-NOT: Warning
// K6: sbpc-opt: error: bad cost_model option: 'overhead' must be 0 or between 1e-15 and 1e+06 s, got 1e+308
// K6-NOT: Warning
// K7: sbpc-opt: error: bad cost_model option: 'transfer_bw' must be between 0.001 and 1e+21 bytes/s, got 1e-308
// K7-NOT: Warning
// K8: sbpc-opt: error: bad cost_model option: 'transfer_lat' must be 0 or between 1e-15 and 1e+06 s, got 1e+308
// K8-NOT: Warning
// K9: sbpc-opt: error: bad cost_model option: 'flops_half' must be between 0 and 1e+12 elements, got 1e+300
// K9-NOT: Warning
// K10: sbpc-opt: error: bad cost_model option: 'bw' must be between 0.001 and 1e+21 bytes/s, got 1e-09
// K10-NOT: Warning
// K11: sbpc-opt: error: bad cost_model option: 'bw' must be between 0.001 and 1e+21 bytes/s, got 1e-300
// K11-NOT: Warning
// K12: sbpc-opt: error: bad cost_model option: 'flops_bf16' must be between 0.001 and 1e+21 flop/s, got 1e-308
// K13: sbpc-opt: error: bad cost_model option: 'mem' must be between 1 and 1e+18 bytes, got 1e+300
// K14: sbpc-opt: error: bad cost_model option: 'net_lat' must be 0 or between 1e-15 and 1e+06 s, got 1e+308
// ENDS-NOT: Warning
// ENDS: stablehlo.exponential
// ENDS-NOT: Warning
module attributes {sbp.placement = #sbp.placement<cpu, [[0, 1], [2, 3]]>} {
  func.func @main(%a: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}) -> (tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[B, S(1)]>}) {
    %0 = stablehlo.exponential %a : tensor<4x8xf32>
    %1 = stablehlo.dot_general %0, %0, contracting_dims = [1] x [1] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
    %2 = stablehlo.dot_general %1, %0, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %2 : tensor<4x8xf32>
  }
}
