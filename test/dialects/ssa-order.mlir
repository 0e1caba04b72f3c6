// Every use must come after its definition (dialects/ssa_order.py): xDSL's
// parser resolves forward references without checking, and a cycle made
// every def-use walk of the passes recurse forever.
// RUN: sbpc-opt %s --split-input-file --verify-diagnostics

// A region may use a value defined before its op in an enclosing block.
func.func @outer_value_in_a_body(%x: tensor<8x16xf32>, %s: tensor<f32>) -> tensor<8xf32> {
  %0 = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %1 = "stablehlo.reduce"(%x, %0) <{dimensions = array<i64: 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = "stablehlo.maximum"(%a, %s) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%r) : (tensor<f32>) -> ()
  }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// ... but not the result of the op that holds the region.
func.func @own_result_in_a_body(%x: tensor<8x16xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %1 = "stablehlo.reduce"(%x, %0) <{dimensions = array<i64: 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    // expected-error @below {{operand #1 does not dominate this use (it is defined by an op enclosing this use)}}
    %r = "stablehlo.maximum"(%a, %1) : (tensor<f32>, tensor<8xf32>) -> tensor<f32>
    "stablehlo.return"(%r) : (tensor<f32>) -> ()
  }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// A value defined inside a region is not visible after it (the parser's
// own scoping says so).
func.func @body_value_outside(%x: tensor<8x16xf32>) -> tensor<f32> {
  %0 = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %1 = "stablehlo.reduce"(%x, %0) <{dimensions = array<i64: 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%r) : (tensor<f32>) -> ()
  }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  // expected-error @below {{use of undeclared SSA value %r}}
  return %r : tensor<f32>
}

// -----

// Nor is a region's own block argument visible to its op's operands (the
// pretty form, as the fuzzer found it: test/tools/sbpc-opt/fuzz-found.mlir).
func.func @generic_operand_named_as_its_own_body_argument(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{use of undeclared SSA value %b}}
  %0 = "stablehlo.while"(%b) ({
  ^bb0(%b: tensor<8xf32>):
    %t = "stablehlo.constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
    "stablehlo.return"(%t) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b: tensor<8xf32>):
    "stablehlo.return"(%b) : (tensor<8xf32>) -> ()
  }) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
