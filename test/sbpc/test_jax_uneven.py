"""Uneven splits end to end: ``sbpc.jax.distribute`` against ``jax.jit``.

The issue-18 cases: a batch of 6 on 4 devices, a vocabulary of 50 over 8,
an SGD step with a 30-wide hidden layer over 4, and 10 rows over a 2x4 mesh,
under every strategy; the pinned splits are kept (IN_SPECS) and the emitted
program pads (ARG_PADS); masking is pinned down in
test/sbpc/jax_backend/test_uneven.py.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import sbpc.jax as sj

STRATEGIES = ["greedy", "bfs", "optimal"]


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    return (
        np.random.default_rng(seed + sum(shape))
        .standard_normal(shape)
        .astype(np.float32)
    )


def mlp(x, w1, w2):
    return jax.nn.relu(x @ w1) @ w2


def mlp_loss(x, w1, w2):
    return jnp.sum(mlp(x, w1, w2))


def lm_head(h, w):
    return jax.nn.log_softmax(h @ w, axis=-1)


def sgd_step(w1, w2, x, y):
    def loss(w1, w2):
        return jnp.mean((mlp(x, w1, w2) - y) ** 2)

    g1, g2 = jax.grad(loss, argnums=(0, 1))(w1, w2)
    return w1 - 0.1 * g1, w2 - 0.1 * g2


def _check(fn, args, mesh, layouts, strategy, spec_text):
    dist = sj.distribute(fn, *args, mesh=mesh, in_layouts=layouts, strategy=strategy)
    assert spec_text in dist.source  # the pinned split is kept
    assert "ARG_PADS" in dist.source
    got = jax.tree_util.tree_leaves(dist(*args))
    want = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)
    return dist.source


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("fn", [mlp, mlp_loss], ids=["mlp", "mlp_loss"])
def test_mlp_batch_6_on_4(fn, strategy):
    args = (_rand(6, 5), _rand(5, 7), _rand(7, 3))
    _check(fn, args, 4, ("[S(0)]", "[B]", "[B]"), strategy, 'P("d0", None)')


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_lm_head_vocabulary_50_over_8(strategy):
    args = (_rand(4, 16), _rand(16, 50))
    _check(lm_head, args, 8, ("[B]", "[S(1)]"), strategy, 'P(None, "d0")')


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_sgd_step_hidden_30_over_4(strategy):
    args = (_rand(8, 30), _rand(30, 3), _rand(6, 8), _rand(6, 3))
    _check(
        sgd_step,
        args,
        4,
        ("[S(1)]", "[S(0)]", "[B]", "[B]"),
        strategy,
        'P(None, "d0")',
    )


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("layout", ["[S(0), S(0)]", "[S(0), B]"])
def test_10_rows_on_2x4(layout, strategy):
    args = (_rand(10, 5), _rand(5, 7), _rand(7, 3))
    spec = 'P(("d0", "d1"), None)' if layout == "[S(0), S(0)]" else 'P("d0", None)'
    _check(mlp_loss, args, "2x4", (layout, "[B, B]", "[B, B]"), strategy, spec)


def test_report_shows_padding_overhead():
    args = (_rand(6, 5), _rand(5, 7), _rand(7, 3))
    dist = sj.distribute(mlp, *args, mesh=4, in_layouts=("[S(0)]", "[B]", "[B]"))
    assert "padding (uneven splits; every piece padded to the largest):" in (
        dist.report
    )
    # 6 rows over 4: pieces of 2 rows padded everywhere, 8 rows of 5 floats.
    assert "tensor<6x5xf32> [S(0)]: 120 B logical, 160 B padded (+33%)" in (dist.report)


def test_shardings_are_ones_jax_accepts():
    """``shardings()`` of a program with uneven splits: the unevenly split
    dims are replicated (JAX refuses indivisible shardings), the even ones
    keep their mesh axis, and ``jax.jit`` with them computes the same."""
    x, w1, w2 = _rand(6, 8), _rand(8, 12), _rand(12, 3)
    dist = sj.distribute(
        mlp, x, w1, w2, mesh=(2, 2), in_layouts=("[S(0), S(1)]", "[B, S(0)]", "[B, B]")
    )
    ins, outs = dist.shardings()
    # 6 rows over 2 is even, 8 columns over 2 too: both keep their axes;
    # 6 over 2x2 would not be, so an [S(0), S(0)] argument would lose them.
    assert ins[0].spec == jax.sharding.PartitionSpec("d0", "d1")
    assert ins[1].spec == jax.sharding.PartitionSpec("d1", None)
    y = _rand(6, 4)
    odd = sj.distribute(jnp.tanh, y, mesh=(2, 2), in_layouts="[S(0), S(0)]")
    (spec,), _ = odd.shardings()
    assert spec.spec == jax.sharding.PartitionSpec(None, None)
    for d, args in ((dist, (x, w1, w2)), (odd, (y,))):
        ins, outs = d.shardings()
        fn = mlp if d is dist else jnp.tanh
        jitted = jax.jit(fn, in_shardings=ins, out_shardings=outs[0])
        np.testing.assert_allclose(
            np.asarray(jitted(*args)), np.asarray(d(*args)), rtol=2e-5, atol=2e-5
        )
