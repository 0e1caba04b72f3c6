// RUN: sbpc-opt %s --split-input-file -p 'sbp-propagate{strategy=greedy improve=0},sbp-lower-boxing' | filecheck %s --check-prefix=GREEDY
// RUN: sbpc-opt %s --split-input-file -p 'sbp-propagate{strategy=bfs improve=0},sbp-lower-boxing' | filecheck %s --check-prefix=BFS
// RUN: sbpc-opt %s --split-input-file -p 'sbp-propagate{strategy=optimal},sbp-lower-boxing' | filecheck %s --check-prefix=OPTIMAL

// A scanned layer stack (lax.scan over stacked weights, as JAX emits it).
// (Greedy and bfs as OneFlow and MindSpore derive, improve=0; improved, both
// take the optimal plan.)
// Greedy keeps the stack column-parallel ([S(2)]): the per-iteration
// dynamic_slice keeps the split, the dot is column-parallel, and the
// all_gather that restores the carried activation's [B] runs inside the body.
// The optimal plan instead gathers the stack once, before the loop, and runs
// the loop data-parallel: 3 iterations of gathering 8x16 cost more than one
// gather of the 3x16x16 stack.

// GREEDY-LABEL: func.func public @scan_stack
// GREEDY:      stablehlo.while(%[[W:.*]] = %ws, %{{.*}} = %c, %{{.*}} = %x) {{.*}} attributes {sbp.sig = #sbp.sig<([S(2)], [B], [B]) -> ([S(2)], [B], [B])>}
// GREEDY:      } do {
// GREEDY:        stablehlo.dynamic_slice %[[W]], {{.*}} {sbp.sig = #sbp.sig<([S(2)], [B], [B], [B]) -> ([S(2)])>}
// GREEDY:        stablehlo.dot_general {{.*}} {sbp.sig = #sbp.sig<([B], [S(1)]) -> ([S(1)])>}
// GREEDY:        %[[T:.*]] = stablehlo.tanh
// GREEDY-NEXT:   %[[G:.*]] = sbp.all_gather %[[T]] dims [0] from [S(1)] to [B]
// GREEDY:        stablehlo.return %[[W]], %{{.*}}, %[[G]]
// GREEDY-NEXT: }

// BFS-LABEL: func.func public @scan_stack
// BFS:       stablehlo.dynamic_slice {{.*}} {sbp.sig = #sbp.sig<([S(2)], [B], [B], [B]) -> ([S(2)])>}

// OPTIMAL-LABEL: func.func public @scan_stack
// OPTIMAL:      %[[WS:.*]] = sbp.all_gather %ws dims [0] from [S(2)] to [B]
// OPTIMAL:      stablehlo.while(%{{.*}} = %[[WS]], {{.*}} attributes {sbp.sig = #sbp.sig<([B], [B], [S(0)]) -> ([B], [B], [S(0)])>}
// OPTIMAL-NOT:  sbp.all_gather
// OPTIMAL:      func.return

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  func.func public @scan_stack(%x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[B]>}, %ws: tensor<3x16x16xf32> {sbp.nd_sbp = #sbp.nd<[S(2)]>}) -> tensor<8x16xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %ws, %iterArg_0 = %c, %iterArg_1 = %x) : tensor<3x16x16xf32>, tensor<i32>, tensor<8x16xf32>
    cond {
      %c_2 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg_0, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %z = stablehlo.constant dense<0> : tensor<i32>
      %1 = stablehlo.dynamic_slice %iterArg, %iterArg_0, %z, %z, sizes = [1, 16, 16] : (tensor<3x16x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x16x16xf32>
      %2 = stablehlo.reshape %1 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
      %3 = stablehlo.dot_general %iterArg_1, %2, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
      %4 = stablehlo.tanh %3 : tensor<8x16xf32>
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_0, %c_2 : tensor<i32>
      stablehlo.return %iterArg, %5, %4 : tensor<3x16x16xf32>, tensor<i32>, tensor<8x16xf32>
    }
    return %0#2 : tensor<8x16xf32>
  }
}

// -----

// A data-dependent loop (until the sum of squares reaches 1e4): the condition
// reduces a split carried value, so its
// partial sum is all-reduced to [B] inside the condition (every device must
// agree to stop); greedy keeps the carried value [S(0)] from entry to exit.

// GREEDY-LABEL: func.func public @until
// GREEDY:      stablehlo.while({{.*}} attributes {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>}
// GREEDY-NEXT: cond {
// GREEDY:        %[[S:.*]] = stablehlo.reduce{{.*}}sbp.sig = #sbp.sig<([S(0)], {{.*}}) -> ([P(sum)])>
// GREEDY-NEXT:   sbp.all_reduce %[[S]] dims [0] from [P(sum)] to [B]
// GREEDY:      } do {
// GREEDY-NOT:    = sbp.
// GREEDY:      }
// BFS-LABEL: func.func public @until
// BFS:         sbp.all_reduce
// The optimal plan prices that all-reduce per iteration against gathering
// the value once and running the loop replicated (tiny compute): it gathers.
// OPTIMAL-LABEL: func.func public @until
// OPTIMAL:       sbp.all_gather %x dims [0] from [S(0)] to [B]
// OPTIMAL-NOT:   sbp.all_reduce
// OPTIMAL:       = sbp.local_slice

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  func.func public @until(%x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    %0 = stablehlo.while(%iterArg = %x) : tensor<8x16xf32>
    cond {
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %sq = stablehlo.multiply %iterArg, %iterArg : tensor<8x16xf32>
      %1 = stablehlo.reduce(%sq init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<f32>
      %cst_0 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
      %2 = stablehlo.compare LT, %1, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %2 = stablehlo.multiply %iterArg, %1 : tensor<8x16xf32>
      stablehlo.return %2 : tensor<8x16xf32>
    }
    return %0 : tensor<8x16xf32>
  }
}

// -----

// A user constraint in the body gives the carried value another layout: the
// boxing that restores the carried [S(0)] runs at the end of the body.

// GREEDY-LABEL: func.func public @restore
// GREEDY:      } do {
// GREEDY:        %[[N:.*]] = stablehlo.negate {{.*}} {sbp.sig = #sbp.sig<([S(1)]) -> ([S(1)])>}
// GREEDY-NEXT:   %[[R:.*]] = sbp.all_to_all %[[N]] dims [0] from [S(1)] to [S(0)]
// GREEDY:        stablehlo.return %{{.*}}, %[[R]]
// OPTIMAL-LABEL: func.func public @restore
// OPTIMAL:       stablehlo.while({{.*}} attributes {sbp.sig = #sbp.sig<([B], [S(1)]) -> ([B], [S(1)])>}
// OPTIMAL:       } do {
// OPTIMAL-NOT:   = sbp.
// OPTIMAL:       }
// OPTIMAL:       sbp.all_to_all

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  func.func public @restore(%x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%i = %c, %h = %x) : tensor<i32>, tensor<8x16xf32>
    cond {
      %n = stablehlo.constant dense<5> : tensor<i32>
      %1 = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = stablehlo.negate %h {sbp.sig = #sbp.sig<([S(1)]) -> ([S(1)])>} : tensor<8x16xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<8x16xf32>
    }
    return %0#1 : tensor<8x16xf32>
  }
}

// -----

// lax.cond: the index is replicated, both branches deliver the result in one
// layout (the captured split operand keeps its layout in both).

// GREEDY-LABEL: func.func public @cond
// GREEDY:      "stablehlo.case"(%i) ({
// GREEDY:      }) {sbp.sig = #sbp.sig<([B]) -> ([S(0)])>}
// OPTIMAL-LABEL: func.func public @cond
// OPTIMAL:      {sbp.sig = #sbp.sig<([B]) -> ([S(0)])>}

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  func.func public @cond(%i: tensor<i32>, %x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    %0 = "stablehlo.case"(%i) ({
      %1 = stablehlo.negate %x : tensor<8x16xf32>
      stablehlo.return %1 : tensor<8x16xf32>
    }, {
      stablehlo.return %x : tensor<8x16xf32>
    }) : (tensor<i32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
}
