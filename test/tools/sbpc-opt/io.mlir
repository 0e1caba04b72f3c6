// RUN: sbpc-opt %s -o %t.mlir && filecheck %s < %t.mlir
// RUN: cat %s | sbpc-opt - | filecheck %s
// RUN: cat %s | sbpc-opt | filecheck %s
// RUN: sbpc-opt %s --split-input-file | filecheck %s --check-prefix=SPLIT
// RUN: not sbpc-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not sbpc-opt %t.does-not-exist 2>&1 | filecheck %s --check-prefix=MISSING

// CHECK: func.func @f(%a: tensor<4xf32>) -> tensor<4xf32>
// SPLIT: func.func @f
// SPLIT: // {{-----}}
// SPLIT: func.func @g
// PASS: sbpc-opt: error: {{.*}}no-such-pass
// MISSING: sbpc-opt: error: cannot open input file
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
// -----
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
