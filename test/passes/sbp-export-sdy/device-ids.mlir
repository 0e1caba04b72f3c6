// A Shardy mesh lists its devices as a permutation of 0..N-1 (sdy.mesh's
// device_ids); a placement of other device numbers cannot be written as
// one: a located error (the mesh attribute's own verifier's words), not the
// unlocated verifier error of the mesh op the pass built (found by the
// fuzzer).  A permutation is written as device_ids.
// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p sbp-export-sdy
// RUN: not sbpc-opt %s --split-input-file -p sbp-export-sdy 2>/dev/null | filecheck %s

// expected-error @below {{the placement's devices [0, 1048575] make no Shardy mesh: sdy.mesh: device_ids must be a permutation of 0..N-1}}
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1048575]>} {
}

// -----

// expected-error @below {{the placement's devices [1, 2, 3, 4] make no Shardy mesh: sdy.mesh: device_ids must be a permutation}}
module attributes {sbp.placement = #sbp.placement<cpu, [[1, 2], [3, 4]]>} {
}

// -----

// CHECK: sdy.mesh @mesh = <["d0"=2, "d1"=2], device_ids=[3, 2, 1, 0]>
module attributes {sbp.placement = #sbp.placement<cpu, [[3, 2], [1, 0]]>} {
}
