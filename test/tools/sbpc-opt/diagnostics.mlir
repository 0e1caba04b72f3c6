// RUN: sbpc-opt %s --split-input-file --verify-diagnostics

// Every chunk is parsed on its own; each error is reported at its line.

func.func @undefined_value(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{use of undeclared SSA value %x}}
  %0 = arith.addf %a, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'foo.bar' is not supported: sbpc does not read the 'foo' dialect}}
  %0 = foo.bar %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @wrong_return_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xi32> // expected-error {{operand is used with type tensor<4xi32>}}
}

// -----

func.func @verifier(%a: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @below {{Expected arguments to have the same types as the function output types}}
  func.return %a : tensor<4xf32>
}
