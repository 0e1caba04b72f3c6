// RUN: sbpc-opt %s -p 'sbp-propagate{fence_bytes=1024}' | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{fence_bytes=0}' | filecheck %s --check-prefix=NONE
// RUN: sbpc-opt %s -p 'sbp-propagate{fence_bytes=1024 report=-}' 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// RUN: sbpc-opt %s -p sbp-propagate | filecheck %s --check-prefix=NONE
// RUN: sbpc-opt %s -p 'sbp-propagate{fence_bytes=1024},sbp-lower-boxing' -t 'jax{function=attention_backward}' -o %t.py
// RUN: env XLA_FLAGS=--xla_force_host_platform_device_count=8 %python %t.py | filecheck %s --check-prefix=EXEC
// RUN: sbpc-opt %s -p 'sbp-propagate{fence_bytes=1024},sbp-lower-boxing' -t 'jax{function=shared_fusion}' -o %t.shared.py
// RUN: env XLA_FLAGS=--xla_force_host_platform_device_count=8 %python %t.shared.py | filecheck %s --check-prefix=EXEC

// Order fences: the memory model runs ops in program order, XLA's scheduler
// need not.  Here the probabilities %p (1 KiB per device, the batch split
// over both devices) are last read by the product %dv, and the model frees
// them there, before %ds is allocated; nothing makes XLA run %dv first
// (Llama-3-70B's attention backward on XLA:GPU ran it after, 8 GiB over
// the plan).  With buffers of 1024 bytes fenced, %ds's fusion (the add
// XLA fuses into it, and the multiply) reads its buffers through a barrier
// with %dv's result, so %dv runs before it.  The cost model knows no device
// memory: no fences unless asked.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  // CHECK-LABEL: func.func @attention_backward
  // NONE-NOT: optimization_barrier
  func.func @attention_backward(%s: tensor<2x16x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                                %v: tensor<2x16x4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                                %do: tensor<2x16x4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>})
      -> (tensor<2x16x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
          tensor<2x16x4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
          tensor<2x16x4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    // CHECK: %[[DP:.*]] = stablehlo.dot_general %do, %v
    // CHECK-NEXT: %[[DV:.*]] = stablehlo.dot_general %p, %do
    // CHECK-NEXT: %[[DV1:.*]], %[[DP1:.*]], %[[S1:.*]] = stablehlo.optimization_barrier %[[DV]], %[[DP]], %s
    // CHECK-SAME: sbp.sig = #sbp.sig<([S(0)], [S(0)], [S(0)]) -> ([S(0)], [S(0)], [S(0)])>
    // CHECK-NEXT: %[[T:.*]] = stablehlo.add %[[DP1]], %[[DP1]]
    // CHECK-NEXT: %[[DS:.*]] = stablehlo.multiply %[[T]], %[[S1]]
    // CHECK-NEXT: func.return %[[DS]], %[[DV]], %o
    %p = stablehlo.exponential %s : tensor<2x16x16xf32>
    %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x16x16xf32>, tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
    %dp = stablehlo.dot_general %do, %v, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x16x4xf32>, tensor<2x16x4xf32>) -> tensor<2x16x16xf32>
    %dv = stablehlo.dot_general %p, %do, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x16x16xf32>, tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
    %t = stablehlo.add %dp, %dp : tensor<2x16x16xf32>
    %ds = stablehlo.multiply %t, %s : tensor<2x16x16xf32>
    return %ds, %dv, %o : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<2x16x4xf32>
  }

  // An op XLA recomputes inside the fusion (%u: duplicated, stored only for
  // the reduction %n) stays where it is for the ops outside the group; the
  // group gets its own copy, reading the barrier's.  %n frees %u's buffer
  // and %dv frees %p: both run first.
  // CHECK-LABEL: func.func @shared_fusion
  // CHECK: %[[U:.*]] = stablehlo.negate %dp
  // CHECK: stablehlo.reduce(%[[U]] init: %{{.*}})
  // CHECK: %[[DV:.*]] = stablehlo.dot_general %p, %do
  // CHECK-NEXT: %{{.*}}, %{{.*}}, %[[DP1:.*]], %[[S1:.*]] = stablehlo.optimization_barrier %n, %[[DV]], %dp, %s
  // CHECK-NEXT: %[[U1:.*]] = stablehlo.negate %[[DP1]]
  // CHECK-NEXT: stablehlo.multiply %[[U1]], %[[S1]]
  func.func @shared_fusion(%s: tensor<2x16x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                           %v: tensor<2x16x4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                           %do: tensor<2x16x4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>})
      -> (tensor<2x16x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
          tensor<2x16x4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
          tensor<2x16x4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
          tensor<2x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    %p = stablehlo.exponential %s : tensor<2x16x16xf32>
    %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x16x16xf32>, tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
    %dp = stablehlo.dot_general %do, %v, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x16x4xf32>, tensor<2x16x4xf32>) -> tensor<2x16x16xf32>
    %u = stablehlo.negate %dp : tensor<2x16x16xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %n = stablehlo.reduce(%u init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16xf32>
    %dv = stablehlo.dot_general %p, %do, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x16x16xf32>, tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
    %ds = stablehlo.multiply %u, %s : tensor<2x16x16xf32>
    return %ds, %dv, %o, %n : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<2x16x4xf32>, tensor<2x16xf32>
  }

  // Where the allocation reads the reader's result, it runs after it
  // anyway: no fence.
  // CHECK-LABEL: func.func @ordered_by_its_operands
  // CHECK-NOT: optimization_barrier
  // CHECK: func.return
  func.func @ordered_by_its_operands(%s: tensor<2x16x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                                     %v: tensor<2x16x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>})
      -> (tensor<2x16x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    %p = stablehlo.exponential %s : tensor<2x16x16xf32>
    %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x16x16xf32>, tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
    %q = stablehlo.dot_general %p, %o, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x16x16xf32>, tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
    %r = stablehlo.multiply %q, %s : tensor<2x16x16xf32>
    return %r : tensor<2x16x16xf32>
  }
}

// The report counts the fences written per function.
// REPORT-LABEL: // sbp-propagate @attention_backward
// REPORT: stats: {{.*}}order_fences=1
// REPORT-LABEL: // sbp-propagate @shared_fusion
// REPORT: stats: {{.*}}order_fences=1
// REPORT-LABEL: // sbp-propagate @ordered_by_its_operands
// REPORT-NOT: order_fences

// EXEC: ok
