"""Convolutions, pooling, scans, sorting and arg-reductions end to end through
the passes, as ``sbpc-opt -p sbp-inline,sbp-propagate,sbp-lower-boxing -t jax``
runs them: JAX's exported text, sharded (batch, channel, spatial and 2-D
layouts), every strategy, run as the emitted ``shard_map`` module on
simulated devices and by the numpy simulator: both equal ``jax.jit``."""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from sbpc.passes.bridge.program import main_function, program_of
from sbpc.passes.jax_target import jax_source
from sbpc.passes.pipeline import parse_module, run_passes
from sbpc.simulator.execute import simulate


def _conv(x, w, groups=1, strides=(1, 1), padding="SAME"):
    return lax.conv_general_dilated(
        x,
        w,
        strides,
        padding,
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=groups,
        precision=lax.Precision.HIGHEST,
    )


def _conv_grads(x, w):
    return jax.grad(lambda x, w: jnp.sum(jnp.tanh(_conv(x, w)) ** 2), (0, 1))(x, w)


def _depthwise_grads(x, w):
    return jax.grad(lambda x, w: jnp.sum(_conv(x, w, groups=8) ** 2), (0, 1))(x, w)


def _patches(x, w):
    return _conv(x, w, strides=(2, 2), padding="VALID")


def _pool_grads(x):
    def loss(x):
        return jnp.sum(nn.max_pool(x, (2, 2), (2, 2)) ** 2) + jnp.sum(
            nn.avg_pool(x, (3, 3), (1, 1), padding="SAME")
        )

    return jax.grad(loss)(x)


def _scans(x):
    return jnp.cumsum(x, axis=2), lax.cummax(x, axis=1)


def _ordering(x):
    v, i = lax.top_k(x, 3)
    return jnp.sort(x, axis=2), jnp.argsort(x, axis=1), v, i


def _arg(x):
    return jnp.argmax(x, axis=3), jnp.argmin(x, axis=1), jnp.arctan2(x, x + 1)


X = (8, 8, 8, 8)
PROGRAMS = {
    "conv_grads": (_conv_grads, [X, (3, 3, 8, 16)]),
    "depthwise_grads": (_depthwise_grads, [X, (3, 3, 1, 8)]),
    "patches": (_patches, [X, (2, 2, 8, 16)]),
    "pool_grads": (_pool_grads, [X]),
    "scans": (_scans, [X]),
    "ordering": (_ordering, [X]),
    "arg": (_arg, [X]),
}

# (program, mesh, argument layouts)
LAYOUTS = {
    "conv-batch": ("conv_grads", (8,), {0: "[S(0)]"}),
    "conv-out-channels": ("conv_grads", (4,), {1: "[S(3)]"}),
    "conv-in-channels": ("conv_grads", (4,), {0: "[S(3)]", 1: "[S(2)]"}),
    "conv-2d": ("conv_grads", (2, 4), {0: "[S(0), B]", 1: "[B, S(3)]"}),
    "depthwise-channels": ("depthwise_grads", (4,), {0: "[S(3)]", 1: "[S(3)]"}),
    "depthwise-2d": ("depthwise_grads", (2, 2), {0: "[S(0), S(3)]"}),
    "patches-rows": ("patches", (4,), {0: "[S(1)]"}),
    "patches-2d": ("patches", (2, 2), {0: "[S(1), S(2)]"}),
    "pool-batch": ("pool_grads", (8,), {0: "[S(0)]"}),
    "pool-rows": ("pool_grads", (4,), {0: "[S(1)]"}),
    "scans-rows": ("scans", (2, 2), {0: "[S(1), S(3)]"}),
    "pool-2d": ("pool_grads", (2, 4), {0: "[S(0), S(3)]"}),
    "scans-batch": ("scans", (4,), {0: "[S(0)]"}),
    "ordering-batch": ("ordering", (4,), {0: "[S(0)]"}),
    "ordering-2d": ("ordering", (2, 2), {0: "[S(0), S(3)]"}),
    "arg-2d": ("arg", (2, 4), {0: "[S(0), S(2)]"}),
}


@pytest.mark.parametrize("case", sorted(LAYOUTS))
def test_program_matches_jax_jit(
    case: str, strategy: str, tmp_path, run_sharded, normal_args
) -> None:
    name, mesh, layouts = LAYOUTS[case]
    fn, shapes = PROGRAMS[name][:2]
    run = run_sharded(
        fn, normal_args(shapes, 5), mesh, layouts, strategy, tmp_path / "m.py"
    )
    run.assert_matches()


REVERSED = """
module attributes {sbp.placement = #sbp.placement<cpu, [0, 1, 2, 3]>} {
  func.func @main(%x: tensor<8x8x8x4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}, %w: tensor<3x2x4x8xf32>) -> tensor<8x8x4x8xf32> {
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[2, 1], [0, 1]], lhs_dilate = [2, 1], rhs_dilate = [1, 2], reverse = [true, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<8x8x8x4xf32>, tensor<3x2x4x8xf32>) -> tensor<8x8x4x8xf32>
    return %0 : tensor<8x8x4x8xf32>
  }
}
"""


def test_window_reversal_and_dilations(tmp_path, load_module) -> None:
    """JAX never emits a reversed window; as StableHLO defines it (the kernel
    read backwards), sharded, it equals the kernel reversed by hand."""
    module = parse_module(REVERSED)
    run_passes(module, "sbp-propagate,sbp-lower-boxing")
    emitted = load_module(jax_source(module), tmp_path / "reversed.py")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 8, 8, 4)).astype(np.float32)
    w = rng.standard_normal((3, 2, 4, 8)).astype(np.float32)
    want = lax.conv_general_dilated(
        x,
        lax.rev(w, (0,)),
        (2, 2),
        ((2, 1), (0, 1)),
        lhs_dilation=(2, 1),
        rhs_dilation=(1, 2),
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        precision=lax.Precision.HIGHEST,
    )
    (got,) = emitted.logical(emitted.build()(*emitted.put_args(x, w)))
    (simulated,) = simulate(program_of(module, main_function(module)), [x, w], rng)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(simulated, np.asarray(want), rtol=1e-4, atol=1e-4)
