// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p sbp-propagate
// RUN: not sbpc-opt %s --split-input-file -p 'sbp-propagate{trip_count=-2}' 2>&1 | filecheck %s --check-prefix=TRIPS

// A custom call cannot be distributed: the diagnostic names the target.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @kernel(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @below {{cannot distribute stablehlo.custom_call @my_fused_kernel: sbpc does not know what the call computes (no SBP rule, no local op)}}
    %0 = stablehlo.custom_call @my_fused_kernel(%a) {backend_config = ""} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}

// -----

// Inside a loop body too.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @in_loop(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = stablehlo.while(%x = %a) : tensor<4x8xf32>
    cond {
      %t = stablehlo.constant dense<false> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      // expected-error @below {{cannot distribute stablehlo.custom_call @cu_kernel}}
      %1 = stablehlo.custom_call @cu_kernel(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      stablehlo.return %1 : tensor<4x8xf32>
    }
    return %0 : tensor<4x8xf32>
  }
}

// TRIPS: sbpc-opt: error: trip_count must be at least 0, not -2
