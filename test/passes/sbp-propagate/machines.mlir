// RUN: sbpc-opt %s -p 'sbp-propagate{cost_model=h100-sxm report=-}' 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// RUN: sbpc-opt %s -p 'sbp-propagate{cost_model=h100-sxm},sbp-lower-boxing{cost_model=h100-sxm}' | filecheck %s --check-prefix=BOXED
// RUN: sbpc-opt %s -p 'sbp-propagate{cost_model="h100-sxm,net_bw=25e9" report=-}' 2>&1 >/dev/null | filecheck %s --check-prefix=SLOWER-NET
// RUN: not sbpc-opt %s -p 'sbp-propagate{cost_model=h200}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not sbpc-opt %s -p 'sbp-propagate,sbp-lower-boxing{cost_model=h200}' 2>&1 | filecheck %s --check-prefix=UNKNOWN-BOXING
// RUN: not sbpc-opt %s -p 'sbp-propagate{cost_model="h100-sxm,bw=1e9"}' 2>&1 | filecheck %s --check-prefix=PER-DIM

// The h100-sxm preset (docs/machines.md) on 2 nodes of 8 GPUs: hierarchy
// dim 1 (8 devices, one node) is NVLink, 450 GB/s each way and 1 us per
// round; dim 0 crosses nodes on InfiniBand NDR, 50 GB/s and 5 us.  Each
// collective launch costs the level's default overhead (5 us inside a
// node, 10 us across; a local slice none).  A bf16 product runs at 989
// Tflop/s (dense tensor cores), an exact f32 one (precision HIGHEST) at 67,
// an f32 one at DEFAULT precision as tf32 (494.7).
//
// @inner_bf16: 8192 x 1024 x 8192 per device, 2 * 8192 * 8192 * 1024 flops
// at 989e12: 139 us; the partial sum (128 MiB) all-reduced over the node:
// a launch of 5 us + 14 rounds of 1 us + 2 * 7/8 * 128 MiB / 450e9 = 541 us.
// REPORT-LABEL: sbp-propagate @inner_bf16
// REPORT: total: 679.9 us (communication 541 us, compute 139 us)
// @outer_f32: 8192 x 8192 x 4096 per device at 67e12: 8.205 ms.  Its
// partial sum (256 MiB) over the two nodes is cheaper scattered over the
// node first: a local slice, an all-reduce of 32 MiB across nodes, an
// all-gather of 7/8 * 256 MiB over NVLink: 1.21 ms, plus two launches
// (10 + 5 us): 1.225 ms (all-reducing it all across nodes would take 5.37 ms).
// REPORT-LABEL: sbp-propagate @outer_f32
// REPORT: total: 9.43 ms (communication 1.225 ms, compute 8.205 ms)
// @outer_f32_default: the same product at DEFAULT precision, 1.111 ms.
// REPORT-LABEL: sbp-propagate @outer_f32_default
// REPORT: total: 2.336 ms (communication 1.225 ms, compute 1.111 ms)

// BOXED-LABEL: func.func @inner_bf16
// BOXED: sbp.all_reduce %{{.*}} dims [1] from [B, P(sum)] to [B, B]
// BOXED-LABEL: func.func @outer_f32
// BOXED: sbp.local_slice %{{.*}} dims [1] from [P(sum), B] to [P(sum), S(0)]
// BOXED-NEXT: sbp.all_reduce %{{.*}} dims [0] from [P(sum), S(0)] to [B, S(0)]
// BOXED-NEXT: sbp.all_gather %{{.*}} dims [1] from [B, S(0)] to [B, B]

// Half the network: the node's all-reduce keeps its price, the one across
// nodes (32 MiB, 2 rounds of 5 us) goes from 0.68 ms at 50 GB/s to 1.35 ms
// at 25 GB/s, next to the gather's 0.53 ms over NVLink (and the two launches).
// SLOWER-NET-LABEL: sbp-propagate @inner_bf16
// SLOWER-NET: total: 679.9 us (communication 541 us, compute 139 us)
// SLOWER-NET-LABEL: sbp-propagate @outer_f32
// SLOWER-NET: communication 1.896 ms

// UNKNOWN: sbpc-opt: error: bad cost_model option: unknown machine 'h200': expected one of h100-sxm, a100-80gb, tpu-v5p, cpu-sim, or key=value items ('bw=',
// UNKNOWN-BOXING: sbpc-opt: error: bad cost_model option: unknown machine 'h200': expected one of h100-sxm, a100-80gb, tpu-v5p, cpu-sim, or key=value items
// PER-DIM: sbpc-opt: error: bad cost_model option: 'bw' gives each hierarchy dim its link but 'node=' gives them by level: set node_bw, node_lat, net_bw, net_lat (or node=0)
module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]]>} {
  func.func @inner_bf16(%x: tensor<8192x8192xbf16> {sbp.nd_sbp = #sbp.nd<[B, S(1)]>}, %w: tensor<8192x8192xbf16> {sbp.nd_sbp = #sbp.nd<[B, S(0)]>}) -> (tensor<8192x8192xbf16> {sbp.nd_sbp = #sbp.nd<[B, B]>}) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([B, S(1)], [B, S(0)]) -> ([B, P])>} : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
    return %0 : tensor<8192x8192xbf16>
  }
  func.func @outer_f32(%x: tensor<8192x8192xf32> {sbp.nd_sbp = #sbp.nd<[S(1), B]>}, %w: tensor<8192x8192xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}) -> (tensor<8192x8192xf32> {sbp.nd_sbp = #sbp.nd<[B, B]>}) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] {sbp.sig = #sbp.sig<([S(1), B], [S(0), B]) -> ([P, B])>} : (tensor<8192x8192xf32>, tensor<8192x8192xf32>) -> tensor<8192x8192xf32>
    return %0 : tensor<8192x8192xf32>
  }
  func.func @outer_f32_default(%x: tensor<8192x8192xf32> {sbp.nd_sbp = #sbp.nd<[S(1), B]>}, %w: tensor<8192x8192xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}) -> (tensor<8192x8192xf32> {sbp.nd_sbp = #sbp.nd<[B, B]>}) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(1), B], [S(0), B]) -> ([P, B])>} : (tensor<8192x8192xf32>, tensor<8192x8192xf32>) -> tensor<8192x8192xf32>
    return %0 : tensor<8192x8192xf32>
  }
}
