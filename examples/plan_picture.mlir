// The plan pictured in docs/plan-report.png (`make plan-picture`): a
// transformer MLP block with a residual connection on a 2x4 mesh, the batch
// split over d0, the weights Megatron-style over d1 (column then row
// parallel), the result wanted batch-split like the input.
module attributes {sbp.placement = #sbp.placement<cpu, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {
  func.func @mlp_block(%x: tensor<64x256xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>},
                       %w1: tensor<256x1024xf32> {sbp.nd_sbp = #sbp.nd<[B, S(1)]>},
                       %b1: tensor<1024xf32>,
                       %w2: tensor<1024x256xf32> {sbp.nd_sbp = #sbp.nd<[B, S(0)]>},
                       %b2: tensor<256xf32>)
      -> (tensor<64x256xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}) {
    %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<64x256xf32>, tensor<256x1024xf32>) -> tensor<64x1024xf32>
    %1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<1024xf32>) -> tensor<64x1024xf32>
    %2 = stablehlo.add %0, %1 : tensor<64x1024xf32>
    %3 = stablehlo.tanh %2 : tensor<64x1024xf32>
    %4 = stablehlo.dot_general %3, %w2, contracting_dims = [1] x [0] : (tensor<64x1024xf32>, tensor<1024x256xf32>) -> tensor<64x256xf32>
    %5 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<256xf32>) -> tensor<64x256xf32>
    %6 = stablehlo.add %4, %5 : tensor<64x256xf32>
    %7 = stablehlo.add %6, %x : tensor<64x256xf32>
    return %7 : tensor<64x256xf32>
  }
}
