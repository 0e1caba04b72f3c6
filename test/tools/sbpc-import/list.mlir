// RUN: sbpc-import %S/inputs/model.py:layer --args %S/inputs/model.py:example --mesh 2x4 --list | filecheck %s

// CHECK:      arg 0: args[0]['b']  ShapeDtypeStruct(shape=(32,), dtype=float32)
// CHECK-NEXT: arg 1: args[0]['w']  ShapeDtypeStruct(shape=(16, 32), dtype=float32)
// CHECK-NEXT: arg 2: args[1]  ShapeDtypeStruct(shape=(8, 16), dtype=float32)
// CHECK-NEXT: result 0: out[0]
// CHECK-NEXT: result 1: out[1]
