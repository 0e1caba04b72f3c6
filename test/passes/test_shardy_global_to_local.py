"""Shardy's executable tests of its collectives, in the global view.

The functions are adapted from openxla/shardy
(``shardy/dialect/sdy/transforms/export/test/executable_convert_global_to_local/
sdy_*.mlir``, Apache License 2.0): one mesh each, the same shardings and
collectives.  Shardy converts each to per-device code and checks every
device's result; here each goes through
``sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing -t jax`` and the
emitted program's (global) result must be what those per-device results
are pieces of: the input for a collective that only moves data, the input
times the number of copies summed for an ``all_reduce``/``reduce_scatter``
of a replicated operand, the constant for ``sdy.constant``.
"""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.passes.jax_target import jax_source
from sbpc.passes.pipeline import parse_module, run_passes

PIPELINE = "sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing"

MESH_2_2 = 'sdy.mesh @mesh_2_2 = <["x"=2, "y"=2]>\n'

CASES = {
    # name: (module text, input shape or None[, expected global result from
    # x; without it, x: the collective only moves data])
    "all_gather": (
        MESH_2_2
        + """func.func @main(%arg0: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh_2_2, [{"x"}, {"y"}]>}) -> tensor<4x4xi32> {
  %0 = sdy.all_gather [{"x"}, {"y"}] %arg0 out_sharding=<@mesh_2_2, [{}, {}]> : tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}""",
        (4, 4),
    ),
    "all_slice": (
        """sdy.mesh @mesh_2 = <["x"=2]>
func.func @main(%arg0: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh_2, [{}, {}]>}) -> (tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh_2, [{"x"}, {}]>}) {
  %0 = sdy.all_slice [{"x"}, {}] %arg0 out_sharding=<@mesh_2, [{"x"}, {}]> : tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}""",
        (4, 4),
    ),
    "per_dim_all_to_all": (
        MESH_2_2
        + """func.func @main(%arg0: tensor<2x2x2x2xi32> {sdy.sharding = #sdy.sharding<@mesh_2_2, [{"x"}, {}, {"y"}, {}]>}) -> (tensor<2x2x2x2xi32> {sdy.sharding = #sdy.sharding<@mesh_2_2, [{}, {"x"}, {}, {"y"}]>}) {
  %0 = sdy.all_to_all [{"x"}: 0->1] %arg0 out_sharding=<@mesh_2_2, [{}, {"x"}, {"y"}, {}]> : tensor<2x2x2x2xi32>
  %1 = sdy.all_to_all [{"y"}: 2->3] %0 out_sharding=<@mesh_2_2, [{}, {"x"}, {}, {"y"}]> : tensor<2x2x2x2xi32>
  return %1 : tensor<2x2x2x2xi32>
}""",
        (2, 2, 2, 2),
    ),
    "combined_all_to_all": (
        MESH_2_2
        + """func.func @main(%arg0: tensor<2x2x2x2xi32> {sdy.sharding = #sdy.sharding<@mesh_2_2, [{"x"}, {}, {"y"}, {}]>}) -> (tensor<2x2x2x2xi32> {sdy.sharding = #sdy.sharding<@mesh_2_2, [{}, {"x"}, {}, {"y"}]>}) {
  %0 = sdy.all_to_all [{"x"}: 0->1, {"y"}: 2->3] %arg0 out_sharding=<@mesh_2_2, [{}, {"x"}, {}, {"y"}]> : tensor<2x2x2x2xi32>
  return %0 : tensor<2x2x2x2xi32>
}""",
        (2, 2, 2, 2),
    ),
    "all_reduce_xy": (
        MESH_2_2
        + """func.func @main(%arg0: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh_2_2, [{}, {}]>}) -> (tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh_2_2, [{}, {}]>}) {
  %0 = sdy.all_reduce {"x", "y"} %arg0 out_sharding=<@mesh_2_2, [{}, {}]> : tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}""",
        (4, 4),
        lambda x: 4 * x,
    ),
    "all_reduce_x": (
        MESH_2_2
        + """func.func @main(%arg0: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh_2_2, [{}, {}]>}) -> (tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh_2_2, [{}, {}]>}) {
  %0 = sdy.all_reduce {"x"} %arg0 out_sharding=<@mesh_2_2, [{}, {}]> : tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}""",
        (4, 4),
        lambda x: 2 * x,
    ),
    "per_dim_reduce_scatter": (
        MESH_2_2
        + """func.func @main(%arg0: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh_2_2, [{}, {}]>}) -> (tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh_2_2, [{"x"}, {"y"}]>}) {
  %0 = sdy.reduce_scatter [{"x"}, {}] %arg0 out_sharding=<@mesh_2_2, [{"x"}, {}]> : tensor<4x4xi32>
  %1 = sdy.reduce_scatter [{}, {"y"}] %0 out_sharding=<@mesh_2_2, [{"x"}, {"y"}]> : tensor<4x4xi32>
  return %1 : tensor<4x4xi32>
}""",
        (4, 4),
        lambda x: 4 * x,
    ),
    "combined_reduce_scatter": (
        MESH_2_2
        + """func.func @main(%arg0: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh_2_2, [{}, {}]>}) -> (tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh_2_2, [{"x"}, {"y"}]>}) {
  %0 = sdy.reduce_scatter [{"x"}, {"y"}] %arg0 out_sharding=<@mesh_2_2, [{"x"}, {"y"}]> : tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}""",
        (4, 4),
        lambda x: 4 * x,
    ),
    "sharded_dense_constant": (
        """sdy.mesh @mesh_2 = <["x"=2]>
func.func @main() -> (tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh_2, [{"x"}, {}]>}) {
  %0 = sdy.constant {sdy.sharding = #sdy.sharding_per_value<[<@mesh_2, [{"x"}, {}]>]>} dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]> : tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}""",
        None,
        lambda _: np.arange(1, 17, dtype=np.int32).reshape(4, 4),
    ),
    "sharded_splat_constant": (
        """sdy.mesh @mesh_2 = <["x"=2]>
func.func @main() -> (tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh_2, [{"x"}, {}]>}) {
  %0 = sdy.constant {sdy.sharding = #sdy.sharding_per_value<[<@mesh_2, [{"x"}, {}]>]>} dense<7> : tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}""",
        None,
        lambda _: np.full((4, 4), 7, np.int32),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_shardy_collective_in_global_view(name, tmp_path, load_module) -> None:
    text, shape, *expected_of = CASES[name]
    expected = expected_of[0] if expected_of else (lambda x: x)
    module = run_passes(parse_module(text), PIPELINE)
    emitted = load_module(jax_source(module), tmp_path / f"{name}.py")
    args = (
        []
        if shape is None
        else [np.arange(np.prod(shape), dtype=np.int32).reshape(shape)]
    )
    got = emitted.logical(emitted.build()(*emitted.put_args(*args)))
    got = got[0] if isinstance(got, tuple | list) else got
    want = expected(args[0] if args else None)
    np.testing.assert_array_equal(np.asarray(got), want)
