// Issue 36, rows B and C: sbpc-import writes through sbpc's one writer: a
// full disk is "cannot write" (not an internal OSError), a symbolic link is
// followed, a missing directory is named.

// RUN: rm -rf %t && mkdir -p %t
// RUN: not sbpc-import %S/inputs/model.py:affine --shapes "f32[16,8]" "f32[8,4]" --mesh 4 -o /dev/full 2>&1 | filecheck %s --check-prefix=FULL
// FULL: sbpc-import: error: cannot write output file '/dev/full': No space left on device
// FULL-NOT: internal error

// RUN: not sbpc-import %S/inputs/model.py:affine --shapes "f32[16,8]" "f32[8,4]" --mesh 4 > /dev/full 2> %t/stderr
// RUN: filecheck %s --check-prefix=STDOUT < %t/stderr
// STDOUT: sbpc-import: error: cannot write standard output: No space left on device
// STDOUT-NOT: Exception ignored

// RUN: not sbpc-import %S/inputs/model.py:affine --shapes "f32[16,8]" "f32[8,4]" --mesh 4 -o %t/no/out.mlir 2>&1 | filecheck %s --check-prefix=NODIR
// NODIR: sbpc-import: error: cannot write output file '{{.*}}/no/out.mlir': No such file or directory

// RUN: echo old > %t/target.mlir && ln -sf target.mlir %t/link.mlir
// RUN: sbpc-import %S/inputs/model.py:affine --shapes "f32[16,8]" "f32[8,4]" --mesh 4 -o %t/link.mlir
// RUN: test -L %t/link.mlir
// RUN: filecheck %s --check-prefix=LINK < %t/target.mlir
// LINK: sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>
