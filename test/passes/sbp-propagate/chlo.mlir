// RUN: sbpc-opt %s -p 'sbp-propagate{improve=0}' --verify-diagnostics | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=bfs improve=0},sbp-lower-boxing' --verify-diagnostics | filecheck %s --check-prefix=BOXED

// CHLO ops (as JAX emits them for jnp.var, gelu(approximate=False) ...) are
// elementwise: splits follow the data.  The increasing erf keeps a P(max)
// value partial, the decreasing erfc turns it into P(min); square is neither
// linear nor monotone, so a P(sum) value is reduced before it.  (Greedy and
// bfs as OneFlow and MindSpore derive, improve=0: each op shows its rule.)

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  // CHECK-LABEL: func.func @chlo
  func.func @chlo(%x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}, %y: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(1)]>}) -> (tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>) {
    // CHECK: chlo.square %x {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>} : tensor<8x16xf32> -> tensor<8x16xf32>
    %0 = chlo.square %x : tensor<8x16xf32> -> tensor<8x16xf32>
    // CHECK: chlo.erf %0 {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>}
    %1 = chlo.erf %0 : tensor<8x16xf32> -> tensor<8x16xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    // CHECK: applies stablehlo.maximum across dimensions = [1] {sbp.sig = #sbp.sig<([S(1)], [B]) -> ([P(max)])>}
    %2 = stablehlo.reduce(%y init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    // CHECK: chlo.erf %2 {sbp.sig = #sbp.sig<([P(max)]) -> ([P(max)])>}
    %3 = chlo.erf %2 : tensor<8xf32> -> tensor<8xf32>
    // CHECK: chlo.erfc %3 {sbp.sig = #sbp.sig<([P(max)]) -> ([P(min)])>}
    %4 = chlo.erfc %3 : tensor<8xf32> -> tensor<8xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    // CHECK: applies stablehlo.add across dimensions = [1] {sbp.sig = #sbp.sig<([S(1)], [P(sum)]) -> ([P(sum)])>}
    %5 = stablehlo.reduce(%y init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    // CHECK-NOT: P(sum)]) -> ([P(sum)
    // CHECK: chlo.square %5 {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>}
    %6 = chlo.square %5 : tensor<8xf32> -> tensor<8xf32>
    // no numpy reference for digamma, so no rule: it runs replicated
    // expected-warning @below {{no SBP rule for 'chlo.digamma': it runs replicated (all-B)}}
    %7 = chlo.digamma %x : tensor<8x16xf32> -> tensor<8x16xf32>
    // CHECK: chlo.digamma %x {sbp.sig = #sbp.sig<([B]) -> ([B])>}
    return %1, %3, %4, %6, %7 : tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>
  }
}

// BOXED-LABEL: func.func @chlo
// BOXED:       %[[SUM:.*]] = stablehlo.reduce(%y init: %zero_1) applies stablehlo.add
// BOXED-NEXT:  %[[RS:.*]] = sbp.reduce_scatter %[[SUM]] dims [0] from [P(sum)] to [S(0)]
// BOXED-NEXT:  chlo.square %[[RS]] {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>}
