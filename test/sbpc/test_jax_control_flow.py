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


def _x(rng, shape):
    return rng.standard_normal(shape).astype(np.float32)


def _programs():
    rng = np.random.default_rng(0)
    x, w, ws = _x(rng, (16, 8)), _x(rng, (8, 8)) * 0.3, _x(rng, (3, 8, 8)) * 0.3
    key = jax.random.PRNGKey(3)
    # (function, arguments, {scheme: in_layouts}); mesh 8 for dp/tp, 2x4 for 2d.
    return {
        "scan": (
            scan_layers,
            (x, ws),
            {
                "dp": ("[S(0)]", None),
                "tp": (None, "[S(2)]"),
                "2d": ("[S(0), B]", "[B, S(2)]"),
            },
        ),
        "fori": (
            fori,
            (x, w),
            {
                "dp": ("[S(0)]", None),
                "tp": (None, "[S(1)]"),
                "2d": ("[S(0), B]", "[B, S(1)]"),
            },
        ),
        "while": (
            while_data_dependent,
            (x, w),
            {
                "dp": ("[S(0)]", None),
                "tp": (None, "[S(1)]"),
                "2d": ("[S(0), B]", "[B, S(1)]"),
            },
        ),
        "cond": (
            cond_branches,
            (np.float32(1.0), x, w),
            {
                "dp": (None, "[S(0)]", None),
                "tp": (None, None, "[S(1)]"),
                "2d": (None, "[S(0), B]", "[B, S(1)]"),
            },
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
            {
                "dp": ("[S(0)]", None),
                "tp": (None, "[S(1)]"),
                "2d": ("[S(0), B]", "[B, S(1)]"),
            },
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
    # jax.jit first: a program with 64-bit types (threefry's counters are
    # ui64) switches JAX to x64 mode when it loads, and jax.random then draws
    # 64-bit floats (docs/control-flow.md).
    want = jax.jit(fn)(*args)
    step = sj.distribute(
        fn, *args, mesh=mesh, in_layouts=schemes[scheme], strategy=strategy
    )
    got = step(*args)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        if name == "dropout":
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        else:
            np.testing.assert_allclose(
                np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5
            )
