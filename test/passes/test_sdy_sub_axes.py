"""Shardy's sub-axes (``"x":(1)2``, ``"x":(2)2`` of an axis of 4) through
``sbp-import-sdy`` to ``-t jax``: each device holds the piece Shardy's
reading gives it (the major sub-axis is ``x // 2``, the minor ``x % 2``),
and the numbers are the unsharded program's."""

from __future__ import annotations

import numpy as np

from sbpc.passes.jax_target import jax_source
from sbpc.passes.pipeline import parse_module, run_passes

PIPELINE = "sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing"

TEXT = """
sdy.mesh @m = <["x"=4, "y"=2]>
func.func @main(
    %a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x":(1)2}, {"x":(2)2, "y"}]>},
    %b: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>})
    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x":(2)2, "y"}, {}]>}) {
  %0 = stablehlo.add %a, %b : tensor<8x8xf32>
  %1 = sdy.sharding_constraint %0 <@m, [{}, {"x":(1)2}]> : tensor<8x8xf32>
  %2 = stablehlo.multiply %1, %b : tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}
"""


def _blocks(index: int, count: int, size: int = 8) -> slice:
    n = size // count
    return slice(index * n, (index + 1) * n)


def _pieces(emitted, arg, out, shape):
    """Per mesh position (x, y): the argument's and the result's index."""
    devices = emitted.make_meshes()[0].devices  # the module's mesh
    pieces = arg.sharding.devices_indices_map(shape)
    result = out.sharding.devices_indices_map(shape)
    return {(x, y): (pieces[d], result[d]) for (x, y), d in np.ndenumerate(devices)}


def test_sub_axes_give_shardy_s_pieces_and_the_numbers(tmp_path, load_module) -> None:
    module = run_passes(parse_module(TEXT), PIPELINE)
    emitted = load_module(jax_source(module), tmp_path / "sub_axes.py")
    assert emitted.PLACEMENT_AXES[1] == ("x:(1)2", "x:(2)2", "y")
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((8, 8), dtype=np.float32) for _ in range(2))
    args = emitted.put_args(a, b)
    out = emitted.build()(*args)
    np.testing.assert_allclose(np.asarray(out), (a + b) * b, rtol=1e-6)
    pieces = _pieces(emitted, args[0], out, (8, 8))  # the mesh ("x"=4, "y"=2)
    assert len(pieces) == 8
    for (x, y), (piece, result) in pieces.items():
        # a: rows by x:(1)2 = x // 2; columns by (x:(2)2, y) = (x % 2) * 2 + y.
        assert piece == (_blocks(x // 2, 2), _blocks((x % 2) * 2 + y, 4))
        # the result: rows by (x:(2)2, y); columns whole.
        assert result[0] == _blocks((x % 2) * 2 + y, 4)
        assert result[1] in (slice(None), slice(0, 8))


# Sub-axes listed out of mesh order: "y":(2)2 (y % 2) before "x" on rows.
OUT_OF_ORDER = """
sdy.mesh @m = <["x"=2, "y"=4]>
func.func @main(
    %a: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"y":(2)2, "x"}, {"y":(1)2}]>})
    -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@m, [{"y", "x"}, {}]>}) {
  %0 = stablehlo.negate %a : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
"""


def test_sub_axes_out_of_mesh_order(tmp_path, load_module) -> None:
    module = run_passes(parse_module(OUT_OF_ORDER), PIPELINE)
    emitted = load_module(jax_source(module), tmp_path / "out_of_order.py")
    assert (emitted.P(("y:(2)2", "x"), "y:(1)2"),) == emitted.IN_SPECS
    a = np.random.default_rng(1).standard_normal((8, 4), dtype=np.float32)
    args = emitted.put_args(a)
    out = emitted.build()(*args)
    np.testing.assert_allclose(np.asarray(out), -a)
    pieces = _pieces(emitted, args[0], out, (8, 4))  # the mesh ("x"=2, "y"=4)
    assert len(pieces) == 8
    for (x, y), (piece, result) in pieces.items():
        assert piece == (_blocks((y % 2) * 2 + x, 4), _blocks(y // 2, 2, 4))
        assert result[0] == _blocks(y * 2 + x, 8)
