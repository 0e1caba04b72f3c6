// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=greedy report=-}' 2>&1 >/dev/null | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=bfs report=-}' 2>&1 >/dev/null | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal report=-}' 2>&1 >/dev/null | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal cost_model="combine=0" report=-}' 2>&1 >/dev/null | filecheck %s
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=greedy}' | filecheck %s --check-prefix=IR
// RUN: sbpc-opt %s -p 'sbp-propagate{strategy=optimal report=- report_format=json}' 2>&1 >/dev/null | filecheck %s --check-prefix=JSON

// A Megatron + data-parallel SGD step's weight update on a 2x4 mesh: W comes
// in [B, S(1)] (columns split over the model axis), the batch split over the
// data axis.  The gradient is a partial sum over the data axis, so the
// cheapest layout to return the new W in is [S(0), S(1)] (a reduce-scatter);
// but W is the next step's argument: `sbp.tied_to = 0` says the result must
// come back as argument 0 came in, and every strategy then all-reduces.
// Without the tie (@free) the result takes the reduce-scatter's layout.

// CHECK-LABEL: // sbp-propagate @tied
// CHECK: results:
// CHECK-NEXT: result #0: [B, S(1)] (tied to %w)
// CHECK-LABEL: // sbp-propagate @free_argument
// CHECK: arguments:
// CHECK-NEXT: %w: [[LAYOUT:.*]]{{$}}
// CHECK: results:
// CHECK-NEXT: result #0: [[LAYOUT]] (tied to %w)
// CHECK-LABEL: // sbp-propagate @free
// CHECK: results:
// CHECK-NEXT: result #0: [S(0), S(1)]{{$}}

// IR: func.func @tied({{.*}}) -> (tensor<16x32xf32> {sbp.tied_to = 0 : i64, sbp.nd_sbp = #sbp.nd<[B, S(1)]>})

// JSON: "name": "result #0",
// JSON-NEXT: "nd_sbp": "[B, S(1)]",
// JSON-NEXT: "tied_to": "%w",

module attributes {sbp.placement = #sbp.placement<cpu, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
  func.func @tied(%w: tensor<16x32xf32> {sbp.nd_sbp = #sbp.nd<[B, S(1)]>}, %x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}, %dy: tensor<8x32xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>})
      -> (tensor<16x32xf32> {sbp.tied_to = 0 : i64}) {
    %g = stablehlo.dot_general %x, %dy, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
    %new = stablehlo.subtract %w, %g : tensor<16x32xf32>
    return %new : tensor<16x32xf32>
  }
  // The argument free too: whatever layout W takes, the result takes it.
  func.func @free_argument(%w: tensor<16x32xf32>, %x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}, %dy: tensor<8x32xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>})
      -> (tensor<16x32xf32> {sbp.tied_to = 0 : i64}) {
    %g = stablehlo.dot_general %x, %dy, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
    %new = stablehlo.subtract %w, %g : tensor<16x32xf32>
    return %new : tensor<16x32xf32>
  }
  func.func @free(%w: tensor<16x32xf32> {sbp.nd_sbp = #sbp.nd<[B, S(1)]>}, %x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}, %dy: tensor<8x32xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>})
      -> tensor<16x32xf32> {
    %g = stablehlo.dot_general %x, %dy, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
    %new = stablehlo.subtract %w, %g : tensor<16x32xf32>
    return %new : tensor<16x32xf32>
  }
}
