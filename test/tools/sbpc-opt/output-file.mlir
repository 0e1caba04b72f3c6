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
// Issue 36, rows B and C: a full disk (at write or at close) is "cannot
// write", for -o, stdout and a report alike; a symbolic link is followed (its
// target gets the output, the link stays), for -o and a report.
// RUN: not sbpc-opt %s --split-input-file --verify-diagnostics -o /dev/full 2>&1 | filecheck %s --check-prefix=FULL
// RUN: not sbpc-opt %s --split-input-file --verify-diagnostics > /dev/full 2> %t/stderr
// RUN: filecheck %s --check-prefix=STDOUTFULL < %t/stderr
// RUN: echo "old target" > %t/target.mlir && ln -sf target.mlir %t/link.mlir
// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -o %t/link.mlir
// RUN: filecheck %s --check-prefix=NEW < %t/target.mlir
// RUN: test -L %t/link.mlir
// RUN: ls -A %t | filecheck %s --check-prefix=LINKLS
// A failed run leaves the target as it was.
// RUN: echo "old target" > %t/target.mlir
// RUN: not sbpc-opt %s --split-input-file -o %t/link.mlir 2>/dev/null
// RUN: filecheck %s --check-prefix=OLDTARGET < %t/target.mlir
// RUN: ln -sf target.mlir %t/report-link.txt
// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p 'sbp-propagate{report="%t/report-link.txt"}' -o /dev/null
// RUN: test -L %t/report-link.txt
// RUN: filecheck %s --check-prefix=REPORT < %t/target.mlir
// RUN: not sbpc-opt %s --split-input-file --verify-diagnostics -p 'sbp-propagate{report="/dev/full"}' 2>&1 | filecheck %s --check-prefix=REPORTFULL
// A report path that cannot be written fails before any work.
// RUN: not sbpc-opt %s --split-input-file -p 'sbp-propagate{report="%t"}' 2>&1 | filecheck %s --check-prefix=REPORTDIR
// RUN: not sbpc-opt %s --split-input-file -p 'sbp-propagate{report="%t/no/plan.txt"}' 2>&1 | filecheck %s --check-prefix=REPORTNODIR

// OLD: old contents
// NEW: func.func @good
// NEW: // {{-----}}
// LS: {{^out.mlir$}}
// LS-NOT: tmp
// FULL: sbpc-opt: error: cannot write output file '/dev/full': No space left on device
// FULL-NOT: internal error
// STDOUTFULL: sbpc-opt: error: cannot write standard output: No space left on device
// STDOUTFULL-NOT: Exception ignored
// LINKLS-NOT: tmp
// OLDTARGET: old target
// REPORT: // sbp-propagate @good
// REPORTFULL: error: cannot write report '/dev/full': No space left on device
// NODIR: sbpc-opt: error: cannot write output file '{{.*}}/no/such/dir/out.mlir': No such file or directory
// NODIR-NOT: internal error
// ISDIR: sbpc-opt: error: cannot write output file '{{.*}}': Is a directory
// REPORTDIR: sbpc-opt: error: report: '{{.*}}' is a directory, not a file
// REPORTNODIR: sbpc-opt: error: report: directory '{{.*}}/no' does not exist
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @good(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
}
// -----
func.func @bad(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{use of undeclared SSA value %x}}
  return %x : tensor<4xf32>
}
