// Issue 21, item 4: -o is written only when the run succeeds (a temporary
// file renamed at the end), and a path that cannot be written is a usage
// error, not an internal one.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo "old contents" > %t/out.mlir
// A failed run (the chunk below with an error) leaves the old file as it was.
// RUN: not sbpc-opt %s --split-input-file -o %t/out.mlir 2>/dev/null
// RUN: filecheck %s --check-prefix=OLD < %t/out.mlir
// RUN: not sbpc-opt %s --split-input-file --verify-diagnostics -o %t/out.mlir -p no-such-pass 2>/dev/null
// RUN: filecheck %s --check-prefix=OLD < %t/out.mlir
// A successful run replaces it; no temporary file is left behind.
// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -o %t/out.mlir
// RUN: filecheck %s --check-prefix=NEW < %t/out.mlir
// RUN: ls -A %t | filecheck %s --check-prefix=LS
// RUN: not sbpc-opt %s --split-input-file -o %t/no/such/dir/out.mlir 2>&1 | filecheck %s --check-prefix=NODIR
// RUN: not sbpc-opt %s --split-input-file -o %t 2>&1 | filecheck %s --check-prefix=ISDIR
// A report path that cannot be written fails before any work.
// RUN: not sbpc-opt %s --split-input-file -p 'sbp-propagate{report="%t"}' 2>&1 | filecheck %s --check-prefix=REPORTDIR
// RUN: not sbpc-opt %s --split-input-file -p 'sbp-propagate{report="%t/no/plan.txt"}' 2>&1 | filecheck %s --check-prefix=REPORTNODIR

// OLD: old contents
// NEW: func.func @good
// NEW: // {{-----}}
// LS: {{^out.mlir$}}
// LS-NOT: tmp
// NODIR: sbpc-opt: error: cannot write output file '{{.*}}/no/such/dir/out.mlir': No such file or directory
// NODIR-NOT: internal error
// ISDIR: sbpc-opt: error: cannot write output file '{{.*}}': Is a directory
// REPORTDIR: sbpc-opt: error: report: '{{.*}}' is a directory, not a file
// REPORTNODIR: sbpc-opt: error: report: directory '{{.*}}/no' does not exist
func.func @good(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
// -----
func.func @bad(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{use of undeclared SSA value %x}}
  return %x : tensor<4xf32>
}
