"""Several meshes in one module through ``sbp-import-sdy`` to ``-t jax``:
values on a second mesh (other device order, other axes) live on its
placement, with transfers to the module's; each device holds the piece its
mesh gives it, the specs name that mesh's axes, and the numbers are the
unsharded program's."""

from __future__ import annotations

import numpy as np
from jax.sharding import PartitionSpec as P

from sbpc.passes.jax_target import jax_source
from sbpc.passes.pipeline import parse_module, run_passes

PIPELINE = "sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing"

TEXT = """
sdy.mesh @mesh_a = <["x"=4]>
sdy.mesh @mesh_b = <["x"=4], device_ids=[1, 2, 3, 0]>
sdy.mesh @mesh_c = <["p"=2, "q"=2]>
func.func @main(
    %arg0: tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh_a, [{"x"}]>},
    %arg1: tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh_c, [{"q", "p"}]>})
    -> (tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh_b, [{"x"}]>},
        tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh_c, [{"p"}]>}) {
  %0 = sdy.collective_permute %arg0 out_sharding=<@mesh_b, [{"x"}]> : tensor<8xi32>
  %1 = stablehlo.add %0, %arg1 : tensor<8xi32>
  return %0, %1 : tensor<8xi32>, tensor<8xi32>
}
"""


def test_values_on_other_meshes_keep_their_pieces(tmp_path, load_module) -> None:
    module = run_passes(parse_module(TEXT), PIPELINE)
    emitted = load_module(jax_source(module), tmp_path / "meshes.py")
    assert (P("x"), P(("q", "p"))) == emitted.IN_SPECS
    assert (P("x"), P("p")) == emitted.OUT_SPECS
    a = np.arange(8, dtype=np.int32)
    b = 10 * np.arange(8, dtype=np.int32)
    permuted, total = emitted.build()(a, b)
    np.testing.assert_array_equal(np.asarray(permuted), a)
    np.testing.assert_array_equal(np.asarray(total), a + b)
    # mesh_b: device_ids[k] holds block k.
    for k, device in enumerate([1, 2, 3, 0]):
        (shard,) = [s for s in permuted.addressable_shards if s.device.id == device]
        np.testing.assert_array_equal(np.asarray(shard.data), a[2 * k : 2 * k + 2])
    # mesh_c (p, q) over devices 0..3: "p" halves, device (p, q) = 2 * p + q.
    for d in range(4):
        (shard,) = [s for s in total.addressable_shards if s.device.id == d]
        half = (d // 2) * 4
        np.testing.assert_array_equal(np.asarray(shard.data), (a + b)[half : half + 4])
