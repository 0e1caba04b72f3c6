// Issue 21, item 7: a rank is a device number; one beyond 2**20 - 1 is a
// typo, not a cluster (the emitted program would start that many devices and
// abort XLA at import).
// RUN: sbpc-opt %s --split-input-file --verify-diagnostics
// RUN: not sbpc-opt %s --split-input-file -p sbp-propagate,sbp-lower-boxing -t jax 2>&1 | filecheck %s
// CHECK: placement-rank.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: invalid placement: rank 99999999999999999999 is out of range
// CHECK-NOT: MESH_SHAPE

// expected-error @below {{invalid placement: rank 99999999999999999999 is out of range: ranks are device numbers, at most 1048575}}
module attributes {sbp.placement = #sbp.placement<cpu, [0, 99999999999999999999]>} {
  func.func @main(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
    return %a : tensor<4x8xf32>
  }
}

// -----

// expected-error @below {{rank 1048576 is out of range}}
module attributes {sbp.placement = #sbp.placement<cpu, [[0, 1], [2, 1048576]]>} {
}

// -----

// The largest rank is fine.
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1048575]>} {
}
