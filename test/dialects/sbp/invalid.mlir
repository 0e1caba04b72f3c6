// RUN: sbpc-opt %s --split-input-file --verify-diagnostics

// Malformed SBP syntax: errors point at the offending token.

// expected-error @below {{expected a split axis (a non-negative integer) in S(<axis>)}}
func.func @f(%a: tensor<8xf32> {sbp.nd_sbp = #sbp.nd<[S(x)]>}) {
  func.return
}

// -----

// expected-error @below {{unknown SBP 'Q', expected S(<axis>), B, P or P(sum|max|min)}}
func.func @f(%a: tensor<8xf32> {sbp.nd_sbp = #sbp.nd<[Q]>}) {
  func.return
}

// -----

// expected-error @below {{unknown partial kind 'avg', expected one of sum, max, min}}
func.func @f(%a: tensor<8xf32> {sbp.nd_sbp = #sbp.nd<[P(avg)]>}) {
  func.return
}

// -----

// expected-error @below {{expected '[' to start an nd_sbp such as [S(0), B]}}
func.func @f(%a: tensor<8xf32> {sbp.nd_sbp = #sbp.nd<S(0)>}) {
  func.return
}

// -----

// expected-error @below {{Expected ']' to close the nd_sbp (or ',' before another SBP)}}
func.func @f(%a: tensor<8xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B>}) {
  func.return
}

// -----

// expected-error @below {{an nd_sbp needs at least one entry}}
func.func @f(%a: tensor<8xf32> {sbp.nd_sbp = #sbp.nd<[]>}) {
  func.return
}

// -----

// expected-error @below {{split axis must be non-negative, got -1}}
func.func @f(%a: tensor<8xf32> {sbp.nd_sbp = #sbp.nd<[S(-1)]>}) {
  func.return
}

// -----

func.func @f(%a: tensor<8xf32>) {
  // expected-error @below {{unknown partial kind 'mean', expected one of sum, max, min}}
  %0 = sbp.all_reduce %a dims [0] from [P(mean)] to [B] : tensor<8xf32>
  func.return
}

// -----

// expected-error @below {{nd_sbp [B] has 1 entry but the first one of the signature has 2}}
#bad = #sbp.sig<([S(0), B], [B]) -> ([S(0), B])>

// -----

// Placements: rectangular, non-empty, unique, non-negative rank arrays.

// expected-error @below {{invalid placement: rank array is ragged: its rows differ in shape}}
module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1, 2], [3, 4]]>} {
}

// -----

// expected-error @below {{invalid placement: rank 3 appears more than once}}
module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3], [3, 4]]>} {
}

// -----

// expected-error @below {{invalid placement: ranks must be non-negative, got -2}}
module attributes {sbp.placement = #sbp.placement<cuda, [0, -2]>} {
}

// -----

// expected-error @below {{invalid placement: a placement needs a non-empty rank array}}
module attributes {sbp.placement = #sbp.placement<cuda, []>} {
}

// -----

// expected-error @below {{sbp.placement on the module must be a #sbp.placement<...> attribute}}
module attributes {sbp.placement = "cuda:0-7"} {
}

// -----

// No placement, but layouts to check against one.

module {
  // expected-error @below {{no placement: add sbp.placement to the module}}
  func.func @f(%a: tensor<8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    func.return
  }
}

// -----

module {
  func.func @f(%a: tensor<8xf32>) {
    // expected-error @below {{no placement: add sbp.placement to the module}}
    %0 = arith.addf %a, %a {sbp.sig = #sbp.sig<([B], [B]) -> ([B])>} : tensor<8xf32>
    func.return
  }
}

// -----

module {
  func.func @f(%a: tensor<8xf32>) {
    // expected-error @below {{no placement: add sbp.placement to the module}}
    %0 = sbp.cast %a to #sbp.nd<[S(0)]> : tensor<8xf32>
    func.return
  }
}

// -----

// Function arguments and results.

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  // expected-error @below {{sbp.nd_sbp of argument 0: [S(0)] has 1 entry, but the placement (cuda, 2x2) has 2 hierarchy dimensions}}
  func.func @f(%a: tensor<8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) {
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  // expected-error @below {{sbp.nd_sbp of argument 0: [S(0), B] has 2 entries, but the placement (cuda, 3) has 1 hierarchy dimension}}
  func.func @f(%a: tensor<9xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>,
                                  sbp.placement = #sbp.placement<cuda, [4, 5, 6]>}) {
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  // expected-error @below {{sbp.nd_sbp of argument 1: [B, S(2)] splits dimension 2, but tensor<8x16xf32> has rank 2}}
  func.func @f(%a: tensor<8x16xf32>, %b: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[B, S(2)]>}) {
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  // expected-error @below {{sbp.nd_sbp of argument 0 must be an #sbp.nd<[...]> attribute, got "S(0)"}}
  func.func @f(%a: tensor<8xf32> {sbp.nd_sbp = "S(0)"}) {
    func.return
  }
}

// -----

// Signatures on ops.

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{signature has 1 operand layouts but the op has 2 operands}}
    %0 = arith.addf %a, %a {sbp.sig = #sbp.sig<([S(0), B]) -> ([S(0), B])>} : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{signature has 2 result layouts but the op has 1 results}}
    %0 = arith.addf %a, %a {sbp.sig = #sbp.sig<([B, B], [B, B]) -> ([B, B], [B, B])>} : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{signature: layout of operand 0 [S(0)] has 1 entry, but the placement (cuda, 2x2) has 2 hierarchy dimensions}}
    %0 = arith.addf %a, %a {sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)])>} : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{signature: layout of result 0 [S(0), S(2)] splits dimension 2, but tensor<8x16xf32> has rank 2}}
    %0 = arith.addf %a, %a {sbp.sig = #sbp.sig<([S(0), B], [S(0), B]) -> ([S(0), S(2)])>} : tensor<8x16xf32>
    func.return
  }
}

// -----

// sbp.cast and the collectives.

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{sbp.cast to [B, S(2)] splits dimension 2, but tensor<8x16xf32> has rank 2}}
    %0 = sbp.cast %a to #sbp.nd<[B, S(2)]> : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{sbp.cast to [S(0)] has 1 entry, but the placement (cuda, 2x2) has 2 hierarchy dimensions}}
    %0 = sbp.cast %a to #sbp.nd<[S(0)]> : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{result type tensor<8x8xf32> differs from operand type tensor<8x16xf32>}}
    %0 = "sbp.cast"(%a) <{nd_sbp = #sbp.nd<[B, B]>}> : (tensor<8x16xf32>) -> tensor<8x8xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{sbp.all_gather changes P(sum) -> B on hierarchy dim 0, expected S(i) -> B}}
    %0 = sbp.all_gather %a dims [0] from [P(sum), B] to [B, B] : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{sbp.all_reduce: hierarchy dim 1 is not in 'dims' but changes P(sum) -> B}}
    %0 = sbp.all_reduce %a dims [0] from [P(sum), P(sum)] to [B, B] : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{sbp.reduce_scatter: hierarchy dim 2 is out of range for a 2-entry nd_sbp}}
    %0 = sbp.reduce_scatter %a dims [2] from [P(sum), B] to [S(0), B] : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{sbp.all_to_all: hierarchy dim 0 is listed twice in 'dims'}}
    %0 = sbp.all_to_all %a dims [0, 0] from [S(0), B] to [S(1), B] : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{sbp.all_to_all changes S(1) -> S(1) on hierarchy dim 0, expected S(i) -> S(j) with i != j}}
    %0 = sbp.all_to_all %a dims [0] from [S(1), B] to [S(1), B] : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{sbp.local_slice from [B, S(2)] splits dimension 2, but tensor<8x16xf32> has rank 2}}
    %0 = sbp.local_slice %a dims [0] from [B, S(2)] to [S(0), S(2)] : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{sbp.local_to_partial: from [B, B] and to [P(sum)] differ in length}}
    %0 = sbp.local_to_partial %a dims [0] from [B, B] to [P] : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{sbp.all_gather from [S(0)] has 1 entry, but the placement (cuda, 2x2) has 2 hierarchy dimensions}}
    %0 = sbp.all_gather %a dims [0] from [S(0)] to [B] : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{sbp.all_gather on hierarchy dim 0 changes how tensor dimension 0 is split, but hierarchy dim 1 splits it further}}
    %0 = sbp.all_gather %a dims [0] from [S(0), S(0)] to [B, S(0)] : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[B, B]>}) {
    // expected-error @below {{sbp.local_slice expects its operand as [B, S(0)], but it is [B, B]}}
    %0 = sbp.local_slice %a dims [0] from [B, S(0)] to [S(1), S(0)] : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{sbp.transfer needs two different placements}}
    %0 = sbp.transfer %a from #sbp.placement<cuda, [[0, 1], [2, 3]]> [B, B] to #sbp.placement<cuda, [[0, 1], [2, 3]]> [S(0), B] : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>) {
    // expected-error @below {{sbp.transfer from #sbp.placement<cuda, [4, 5]>, but its operand lives on #sbp.placement<cuda, [[0, 1], [2, 3]]>}}
    %0 = sbp.transfer %a from #sbp.placement<cuda, [4, 5]> [B] to #sbp.placement<cuda, [6, 7]> [S(0)] : tensor<8x16xf32>
    func.return
  }
}

// -----

module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32>, %b: tensor<8x16xf32> {sbp.placement = #sbp.placement<cuda, [4, 5]>}) {
    // expected-error @below {{operands live on different placements: operand 0 on #sbp.placement<cuda, [[0, 1], [2, 3]]>, operand 1 on #sbp.placement<cuda, [4, 5]>}}
    %0 = arith.addf %a, %b : tensor<8x16xf32>
    func.return
  }
}
