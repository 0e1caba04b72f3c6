// --disable-verify skips the verifier after each pass, not on the input (as
// mlir-opt's parser always verifies): the passes read what the verifiers
// guarantee, and a generic func.func without its signature reached them
// unverified (an internal KeyError in the sbp annotations' check; found by
// the fuzzer, seed 778).
// RUN: sbpc-opt %s --disable-verify --verify-diagnostics -p sbp-inline,sbp-propagate,sbp-lower-boxing -t jax
// RUN: sbpc-opt --help | filecheck %s --check-prefix=HELP

// HELP: --disable-verify do not verify the IR after each pass (the input still

module {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{Expected 0 operands, but got 1}}
    %0 = "func.func"(%a) : (tensor<8x16xf32>) -> tensor<8x8xf32>
    func.return
  }
}
