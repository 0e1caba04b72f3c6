// Bad input: one line on stderr, exit status 1, no traceback.

// RUN: not sbpc-import %S/inputs/model.py:affine --shapes "f32[16,8]" "x9[8,4]" --mesh 4 2>&1 | filecheck %s --check-prefix=SHAPE
// SHAPE: sbpc-import: error: bad shape 'x9[8,4]': expected DTYPE[d0,d1,...]

// RUN: not sbpc-import %S/inputs/model.py:layer --args %S/inputs/model.py:example --mesh 8 --layout "args[2]=S(0)" 2>&1 | filecheck %s --check-prefix=KEY
// KEY: sbpc-import: error: --layout 'args[2]=S(0)': no leaf has path 'args[2]' (see --list)

// RUN: not sbpc-import %S/inputs/model.py:layer --args %S/inputs/model.py:example --mesh 8 --layout "7=S(0)" 2>&1 | filecheck %s --check-prefix=INDEX
// INDEX: sbpc-import: error: --layout '7=S(0)': index 7 out of range (3 leaves)

// RUN: not sbpc-import %S/inputs/model.py:layer --args %S/inputs/model.py:example --mesh 2x4 --layout "args[1]=S(0)" 2>&1 | filecheck %s --check-prefix=NDIM
// NDIM: sbpc-import: error: argument[1]: layout [S(0)] has 1 entries but the mesh 2x4 has 2 dimension(s)

// RUN: not sbpc-import %S/inputs/model.py:layer --args %S/inputs/model.py:example --mesh 8 --layout "args[1]=S(7)" 2>&1 | filecheck %s --check-prefix=AXIS
// AXIS: error: sbp.nd_sbp of argument 2: [S(7)] splits dimension 7, but tensor<8x16xf32> has rank 2

// RUN: not sbpc-import %S/inputs/missing.py:f --shapes "f32[2]" --mesh 2 2>&1 | filecheck %s --check-prefix=FILE
// FILE: sbpc-import: error: no such file: {{.*}}missing.py

// RUN: not sbpc-import %S/inputs/model.py:nope --shapes "f32[2]" --mesh 2 2>&1 | filecheck %s --check-prefix=ATTR
// ATTR: sbpc-import: error: {{.*}}model.py has no attribute 'nope'

// RUN: not sbpc-import %S/inputs/model.py:NOT_A_FUNCTION --shapes "f32[2]" --mesh 2 2>&1 | filecheck %s --check-prefix=CALL
// CALL: sbpc-import: error: {{.*}}:NOT_A_FUNCTION is not callable

// RUN: not sbpc-import %S/inputs/model.py:affine --shapes "f32[16,8]" "f32[4,4]" --mesh 2 2>&1 | filecheck %s --check-prefix=JAX
// JAX: sbpc-import: error: JAX could not lower affine:

// RUN: not sbpc-import %S/inputs/model.py:affine --shapes "f32[16,8]" "f32[8,4]" --mesh 2x 2>&1 | filecheck %s --check-prefix=MESH
// MESH: sbpc-import: error: bad mesh '2x': expected sizes like 8 or 2x4
