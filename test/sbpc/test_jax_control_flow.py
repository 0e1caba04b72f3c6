"""Loops, conditionals, rematerialisation and randomness through
``sbpc.jax.distribute``: each plain-JAX program compiles under data-parallel,
tensor-parallel and 2-D layouts with every strategy and computes what
``jax.jit`` computes (random bits bit for bit)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import sbpc.jax as sj

STRATEGIES = ["greedy", "bfs", "optimal"]


def scan_layers(x, ws):
    """A stack of layers scanned over its leading axis (lax.scan)."""

    def layer(h, w):
        return jnp.tanh(h @ w), jnp.sum(h)

    h, sums = lax.scan(layer, x, ws)
    return h, sums


def fori(x, w):
    return lax.fori_loop(0, 3, lambda i, h: jnp.tanh(h @ w) + i, x)


def while_data_dependent(x, w):
    """A trip count that depends on the data."""

    def cond(c):
        h, n = c
        return (jnp.max(jnp.abs(h)) < 50.0) & (n < 20)

    def body(c):
        h, n = c
        return h @ w * 1.5 + 0.1, n + 1

    return lax.while_loop(cond, body, (x, 0))


def cond_branches(p, x, w):
    return lax.cond(p > 0, lambda x: x @ w, lambda x: jnp.sin(x) - 1.0, x)


def switch3(i, x, w):
    return lax.switch(i, [lambda x: x @ w, lambda x: x * 2.0, lambda x: -x], x)


def checkpointed_grad(x, w):
    f = jax.checkpoint(lambda x, w: jnp.sin(x @ w))
    return jax.grad(lambda x, w: jnp.sum(f(x, w) ** 2), argnums=(0, 1))(x, w)


def dropout(key, x):
    keep = jax.random.bernoulli(key, 0.7, x.shape)
    return jnp.where(keep, x / 0.7, 0.0)


def noisy_step(key, x):
    """A training-loop step that threads its key: a key result."""
    key, sub = jax.random.split(key)
    return key, x * jax.random.normal(sub, x.shape)


def _x(rng, shape):
    return rng.standard_normal(shape).astype(np.float32)


def _schemes(w_dim: int, lead: int = 0) -> dict[str, tuple[str | None, ...]]:
    """In-layouts of an ``(x, w)`` program after ``lead`` unpinned arguments:
    dp splits x's rows, tp w's dim ``w_dim``, 2d both on a 2x4 mesh."""
    free = (None,) * lead
    return {
        "dp": (*free, "[S(0)]", None),
        "tp": (*free, None, f"[S({w_dim})]"),
        "2d": (*free, "[S(0), B]", f"[B, S({w_dim})]"),
    }


def _programs():
    rng = np.random.default_rng(0)
    x, w, ws = _x(rng, (16, 8)), _x(rng, (8, 8)) * 0.3, _x(rng, (3, 8, 8)) * 0.3
    key = jax.random.PRNGKey(3)
    # (function, arguments, {scheme: in_layouts}); mesh 8 for dp/tp, 2x4 for 2d.
    return {
        "scan": (
            scan_layers,
            (x, ws),
            _schemes(2),
        ),
        "fori": (
            fori,
            (x, w),
            _schemes(1),
        ),
        "while": (
            while_data_dependent,
            (x, w),
            _schemes(1),
        ),
        "cond": (
            cond_branches,
            (np.float32(1.0), x, w),
            _schemes(1, lead=1),
        ),
        "cond-false": (
            cond_branches,
            (np.float32(-1.0), x, w),
            {"dp": (None, "[S(0)]", None)},
        ),
        "switch": (
            switch3,
            (np.int32(0), x, w),
            {"dp": (None, "[S(0)]", None), "2d": (None, "[S(0), B]", "[B, S(1)]")},
        ),
        "switch-out-of-range": (
            switch3,
            (np.int32(7), x, w),
            {"dp": (None, "[S(0)]", None)},
        ),
        "checkpoint": (
            checkpointed_grad,
            (x, w),
            _schemes(1),
        ),
        "dropout": (
            dropout,
            (key, x),
            {
                "dp": (None, "[S(0)]"),
                "tp": (None, "[S(1)]"),
                "2d": (None, "[S(0), S(1)]"),
            },
        ),
        # Typed keys (jax.random.key): JAX constrains them on an axis-less
        # mesh, which constrains nothing; the program takes their raw data.
        "dropout-typed-key": (
            dropout,
            (jax.random.key(0), x),
            {"dp": (None, "[S(0)]"), "2d": (None, "[S(0), S(1)]")},
        ),
        "threefry-key-result": (
            noisy_step,
            (jax.random.key(3), x),
            {"dp": (None, "[S(0)]"), "2d": (None, "[S(0), S(1)]")},
        ),
        # rbg keys draw with stablehlo.rng_bit_generator (whole on every device).
        "rbg-key-result": (
            noisy_step,
            (jax.random.key(3, impl="rbg"), x),
            {"dp": (None, "[S(0)]"), "2d": (None, "[S(0), S(1)]")},
        ),
    }


PROGRAMS = _programs()
CASES = [
    (name, scheme, strategy)
    for name, (_, _, schemes) in PROGRAMS.items()
    for scheme in schemes
    for strategy in STRATEGIES
]


@pytest.mark.parametrize(("name", "scheme", "strategy"), CASES)
def test_distributed_matches_jit(name, scheme, strategy):
    fn, args, schemes = PROGRAMS[name]
    mesh = (2, 4) if scheme == "2d" else 8
    step = sj.distribute(
        fn, *args, mesh=mesh, in_layouts=schemes[scheme], strategy=strategy
    )
    got = step(*args)
    # A program with 64-bit types (threefry's ui64 counters) runs in x64 mode
    # only inside its calls: the process stays in JAX's default mode.
    assert not jax.config.jax_enable_x64
    want = jax.jit(fn)(*args)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        assert g.dtype == w.dtype  # typed keys come back typed
        if jax.dtypes.issubdtype(w.dtype, jax.dtypes.prng_key):
            assert jax.random.key_impl(g) == jax.random.key_impl(w)
            g, w = jax.random.key_data(g), jax.random.key_data(w)
        if "key" in name or name == "dropout":  # random bits: bit for bit
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        else:
            np.testing.assert_allclose(
                np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5
            )
