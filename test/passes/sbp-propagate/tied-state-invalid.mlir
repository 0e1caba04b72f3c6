// RUN: sbpc-opt %s --split-input-file --verify-diagnostics -p sbp-propagate

// A tie names an argument of the result's type, and the two are not given
// different layouts: the module's check says so at the function.

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  // expected-error @below {{sbp.tied_to of result 0 must be the index of an argument (0 to 0), got 3 : i64}}
  func.func @out_of_range(%w: tensor<4x8xf32>) -> (tensor<4x8xf32> {sbp.tied_to = 3 : i64}) {
    return %w : tensor<4x8xf32>
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  // expected-error @below {{result 0 (tensor<4x8xf32>) is tied to argument 0 of another type (tensor<8x4xf32>)}}
  func.func @other_type(%w: tensor<8x4xf32>, %v: tensor<4x8xf32>) -> (tensor<4x8xf32> {sbp.tied_to = 0 : i64}) {
    return %v : tensor<4x8xf32>
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  // expected-error @below {{result 0 is tied to argument 0 but is given another layout ([B] against [S(0)])}}
  func.func @two_layouts(%w: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> (tensor<4x8xf32> {sbp.tied_to = 0 : i64, sbp.nd_sbp = #sbp.nd<[B]>}) {
    return %w : tensor<4x8xf32>
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  // expected-error @below {{sbp.tied_to of result 0 must be the index of an argument (0 to 0), got "w"}}
  func.func @not_an_index(%w: tensor<4x8xf32>) -> (tensor<4x8xf32> {sbp.tied_to = "w"}) {
    return %w : tensor<4x8xf32>
  }
}
