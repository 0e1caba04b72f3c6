"""Manual computations laid out by mesh axes out of mesh order or by
sub-axes (``passes/bridge/arranged_manual.py``): the body must see exactly
the pieces the shardings give each device.

JAX writes the first (``shard_map(..., in_specs=P(("y", "x")))``): through
``sbpc.jax.distribute``, the numbers must be ``jax.jit``'s.  Sub-axes in a
manual computation come only from Shardy's text: each device adds its id to
its piece, so the result says which piece every device held, checked
against Shardy's reading (device ``(x, y)`` has id ``x * 2 + y``;
copies of one piece must agree, so they add the same number;
``"x":(1)2`` of ``x=4`` is ``x // 2``, ``"x":(2)2`` is ``x % 2``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

import sbpc.jax
from sbpc.passes.jax_target import jax_source
from sbpc.passes.pipeline import parse_module, run_passes

PIPELINE = "sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing"


def test_shard_map_with_axes_out_of_mesh_order_equals_jit() -> None:
    mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)

    def body(a, b):
        i = jax.lax.axis_index(("y", "x")).astype(a.dtype)
        s = jax.lax.psum(a.sum(), "y")
        return a * 2.0 + i + s, jax.lax.all_gather(b, "x", axis=1, tiled=True)

    def f(a, b):
        return jax.shard_map(
            body,
            mesh=mesh,
            in_specs=(P(("y", "x")), P("y", "x")),
            out_specs=(P(("y", "x")), P("y")),
            check_vma=False,
        )(jnp.sin(a), b)

    rng = np.random.default_rng(0)
    a = rng.standard_normal((16,), dtype=np.float32)
    b = rng.standard_normal((8, 4), dtype=np.float32)
    assert '[{"y", "x"}]' in jax.jit(f).lower(a, b).as_text()
    want = jax.jit(f)(a, b)
    step = sbpc.jax.distribute(f, a, b, quiet=True)
    for g, w in zip(step(a, b), want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)


SUB_AXES = """
sdy.mesh @m = <["x"=4, "y"=2]>
func.func @main(%a: tensor<8x8xf32>, %b: tensor<8xf32>)
    -> (tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0:3 = sdy.manual_computation(%a, %b)
      in_shardings=[<@m, [{"x":(1)2}, {"x":(2)2, "y"}]>, <@m, [{"y", "x":(2)2}]>]
      out_shardings=[<@m, [{"x":(1)2}, {"x":(2)2, "y"}]>, <@m, [{"y", "x":(2)2}]>,
                     <@m, [{"x":(1)2}]>]
      manual_axes={"x", "y"} (%la: tensor<4x2xf32>, %lb: tensor<2xf32>) {
    %id = stablehlo.partition_id : tensor<ui32>
    %f = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %fa = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<4x2xf32>
    %r0 = stablehlo.add %la, %fa : tensor<4x2xf32>
    %c4 = stablehlo.constant dense<4> : tensor<ui32>
    %m = stablehlo.remainder %id, %c4 : tensor<ui32>
    %mf = stablehlo.convert %m : (tensor<ui32>) -> tensor<f32>
    %fb = stablehlo.broadcast_in_dim %mf, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %r1 = stablehlo.add %lb, %fb : tensor<2xf32>
    %q = stablehlo.divide %id, %c4 : tensor<ui32>
    %qf = stablehlo.convert %q : (tensor<ui32>) -> tensor<f32>
    %r2 = stablehlo.broadcast_in_dim %qf, dims = [] : (tensor<f32>) -> tensor<4xf32>
    sdy.return %r0, %r1, %r2 : tensor<4x2xf32>, tensor<2xf32>, tensor<4xf32>
  } : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#0, %0#1, %0#2 : tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>
}
"""


def test_manual_sub_axes_give_each_device_shardy_s_piece(tmp_path, load_module) -> None:
    module = run_passes(parse_module(SUB_AXES), PIPELINE)
    emitted = load_module(jax_source(module), tmp_path / "manual_sub_axes.py")
    rng = np.random.default_rng(1)
    a = rng.standard_normal((8, 8), dtype=np.float32)
    b = rng.standard_normal((8,), dtype=np.float32)
    got = emitted.logical(emitted.build()(*emitted.put_args(a, b)))
    want = [a.copy(), b.copy(), np.zeros(8, np.float32)]
    for x in range(4):
        for y in range(2):
            device = x * 2 + y
            rows, cols = x // 2, (x % 2) * 2 + y
            want[0][rows * 4 : rows * 4 + 4, cols * 2 : cols * 2 + 2] += device
            # b by (y, x:(2)2): the two x // 2 hold the same piece and add
            # the same id % 4.
            k = y * 2 + x % 2
            want[1][k * 2 : k * 2 + 2] = b[k * 2 : k * 2 + 2] + device % 4
            want[2][rows * 4 : rows * 4 + 4] = device // 4
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6)
