// A pytree function: layouts by path, by prefix and by index; the module then
// goes through the whole pipeline and its emitted JAX program checks itself.

// RUN: sbpc-import %S/inputs/model.py:layer --args %S/inputs/model.py:example --mesh 2x4 --layout "args[0]=[B, S(0)]" --layout "args[0]['w']=[B, S(1)]" --layout "2=[S(0), B]" --result-layout "out[1]=[B, B]" | filecheck %s
// RUN: sbpc-import %S/inputs/model.py:layer --args %S/inputs/model.py:example --mesh 2x4 --layout "args[0]=[B, S(0)]" --layout "args[0]['w']=[B, S(1)]" --layout "2=[S(0), B]" -o %t.mlir
// RUN: sbpc-opt %t.mlir -p "sbp-inline,sbp-propagate{strategy=optimal},sbp-lower-boxing" -t jax -o %t.py
// RUN: %python %t.py | filecheck %s --check-prefix=EXEC

// CHECK:      builtin.module @jit_layer
// CHECK-SAME: sbp.placement = #sbp.placement<cpu, {{\[\[}}0, 1, 2, 3], [4, 5, 6, 7]]>
// CHECK:      func.func public @main(
// CHECK-SAME: %arg0: tensor<32xf32> {sbp.nd_sbp = #sbp.nd<[B, S(0)]>}
// CHECK-SAME: %arg1: tensor<16x32xf32> {sbp.nd_sbp = #sbp.nd<[B, S(1)]>}
// CHECK-SAME: %arg2: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}
// CHECK-SAME: -> (tensor<8x32xf32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]", sbp.nd_sbp = #sbp.nd<[B, B]>})
// CHECK:      stablehlo.dot_general

// EXEC: max error {{.*}} over 2 result(s): ok
