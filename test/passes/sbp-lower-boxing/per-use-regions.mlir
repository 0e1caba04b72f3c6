// RUN: sbpc-opt %s -p sbp-lower-boxing | filecheck %s
// The emitted programs (gathers inside the branch and the loop body, behind
// their barriers) compute what the unsharded functions compute:
// RUN: sbpc-opt %s -p sbp-lower-boxing -t 'jax{function=branch}' -o %t.branch.py
// RUN: env XLA_FLAGS=--xla_force_host_platform_device_count=8 %python %t.branch.py | filecheck %s --check-prefix=EXEC
// RUN: sbpc-opt %s -p sbp-lower-boxing -t 'jax{function=loop}' -o %t.loop.py
// RUN: env XLA_FLAGS=--xla_force_host_platform_device_count=8 %python %t.loop.py | filecheck %s --check-prefix=EXEC
// EXEC: max error 0 over 1 result(s): ok

// FSDP's per-use gather of an argument read inside a region: the gather is
// made just before its reader there, as in the function's body (the memory
// model counts the copy from just before its reader to its last read,
// wherever the reader is), not once at the function's start.  In a case
// branch the barrier fences it with the reader's computed operand; in a
// while body with the loop's carried value, so that XLA cannot hoist it out
// of the loop (it runs each iteration).

// CHECK-LABEL: func.func @branch
// CHECK-NOT: sbp.all_gather
// CHECK: "stablehlo.case"
// CHECK-NEXT: %[[E:.*]] = stablehlo.exponential
// CHECK-NEXT: %[[S:.*]], %[[E1:.*]] = stablehlo.optimization_barrier %w, %[[E]]
// CHECK-NEXT: %[[W:.*]] = sbp.all_gather %[[S]] dims [0] from [S(0)] to [B]
// CHECK-NEXT: stablehlo.dot_general %[[E1]], %[[W]]
// CHECK-NOT: sbp.all_gather
// CHECK: func.return

// CHECK-LABEL: func.func @loop
// CHECK-NOT: sbp.all_gather
// CHECK: stablehlo.while(%it = %c, %h = %x)
// CHECK: do {
// CHECK: %[[LS:.*]], %[[H:.*]] = stablehlo.optimization_barrier %w, %h
// CHECK-NEXT: %[[LW:.*]] = sbp.all_gather %[[LS]] dims [0] from [S(0)] to [B]
// CHECK-NEXT: stablehlo.dot_general %[[H]], %[[LW]]
// CHECK-NOT: sbp.all_gather
// CHECK: func.return

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @branch(%x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}, %w: tensor<16x16xf32> {sbp.gather_per_use, sbp.nd_sbp = #sbp.nd<[S(0)]>}, %i: tensor<i32> {sbp.nd_sbp = #sbp.nd<[B]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    %a = stablehlo.tanh %x {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>} : tensor<8x16xf32>
    %r = "stablehlo.case"(%i) ({
      %e = stablehlo.exponential %a {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>} : tensor<8x16xf32>
      %h = stablehlo.dot_general %e, %w, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0)], [B]) -> ([S(0)])>} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
      stablehlo.return %h : tensor<8x16xf32>
    }, {
      stablehlo.return %a : tensor<8x16xf32>
    }) {sbp.sig = #sbp.sig<([B]) -> ([S(0)])>} : (tensor<i32>) -> tensor<8x16xf32>
    func.return %r : tensor<8x16xf32>
  }

  func.func @loop(%x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}, %w: tensor<16x16xf32> {sbp.gather_per_use, sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    %c = stablehlo.constant {sbp.sig = #sbp.sig<() -> ([B])>} dense<0> : tensor<i32>
    %n = stablehlo.constant {sbp.sig = #sbp.sig<() -> ([B])>} dense<3> : tensor<i32>
    %r, %r_1 = stablehlo.while(%it = %c, %h = %x) : tensor<i32>, tensor<8x16xf32> attributes {sbp.sig = #sbp.sig<([B], [S(0)]) -> ([B], [S(0)])>}
    cond {
      %p = stablehlo.compare LT, %it, %n, SIGNED {sbp.sig = #sbp.sig<([B], [B]) -> ([B])>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant {sbp.sig = #sbp.sig<() -> ([B])>} dense<1> : tensor<i32>
      %next = stablehlo.add %it, %one {sbp.sig = #sbp.sig<([B], [B]) -> ([B])>} : tensor<i32>
      %y = stablehlo.dot_general %h, %w, contracting_dims = [1] x [0] {sbp.sig = #sbp.sig<([S(0)], [B]) -> ([S(0)])>} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
      stablehlo.return %next, %y : tensor<i32>, tensor<8x16xf32>
    }
    func.return %r_1 : tensor<8x16xf32>
  }
}
