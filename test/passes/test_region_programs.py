"""Region programs through the whole pipeline, checked by the numpy simulator.

JAX-lowered loops, conditionals, remat and random draws are annotated,
propagated with every strategy, boxed, read back as a ``Program`` with nested
blocks and run on virtual devices: the sharded simulation must equal the
unsharded evaluation and ``jax.jit`` (random bits bit for bit: threefry is
elementwise on iota counters, so each device hashes its own block).
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from sbpc.passes.bridge.program import main_function, program_of
from sbpc.passes.pipeline import parse_module
from sbpc.program import CaseInstr, LoopInstr
from sbpc.simulator.execute import evaluate_whole, simulate


def _scan(x, ws):
    return lax.scan(lambda h, w: (jnp.tanh(h @ w), None), x, ws)[0]


def _until(x):
    return lax.while_loop(lambda h: jnp.sum(jnp.abs(h)) < 500.0, lambda h: h * 1.7, x)


def _switch(i, x):
    return lax.switch(i, [jnp.sin, jnp.cos, lambda x: x * 2.0], x)


def _remat(x, w):
    f = jax.checkpoint(lambda x: jnp.sin(x @ w))
    return jax.grad(lambda x: jnp.sum(f(x)))(x)


def _bits(key):
    return jax.random.bits(key, (16, 8))


def _dropout(key, x):
    return jnp.where(jax.random.bernoulli(key, 0.6, x.shape), x / 0.6, 0.0)


RNG = np.random.default_rng(0)
X = RNG.standard_normal((16, 8)).astype(np.float32)
W = (RNG.standard_normal((8, 8)) * 0.3).astype(np.float32)
WS = (RNG.standard_normal((3, 8, 8)) * 0.3).astype(np.float32)
KEY = np.asarray(jax.random.PRNGKey(11))

# name: (function, arguments, layouts on a 2x4 mesh, the region kind it has)
PROGRAMS = {
    "scan": (_scan, (X, WS), {0: "[S(0), B]", 1: "[B, S(2)]"}, LoopInstr),
    "until": (_until, (X,), {0: "[S(0), S(1)]"}, LoopInstr),
    "switch": (_switch, (np.int32(1), X), {1: "[S(0), B]"}, CaseInstr),
    "remat": (_remat, (X, W), {0: "[S(0), B]", 1: "[B, S(1)]"}, None),
    "bits": (_bits, (KEY,), {}, LoopInstr),
    "dropout": (_dropout, (KEY, X), {1: "[S(0), S(1)]"}, LoopInstr),
}


def _module(name: str):
    fn, args, _, _ = PROGRAMS[name]
    text = jax.jit(fn).lower(*args).as_text()
    return parse_module(re.sub(r"sdy\.mesh[^\n]*\n", "", text))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_simulated_regions_match_jit(name: str, strategy: str, distribute) -> None:
    fn, args, layouts, kind = PROGRAMS[name]
    module = distribute(_module(name), (2, 4), layouts, strategy)
    program = program_of(module, main_function(module))
    if kind is not None:
        assert any(isinstance(i, kind) for i in program.body)
    inputs = [np.asarray(a) for a in args]
    want = [np.asarray(w) for w in jax.tree.leaves(jax.jit(fn)(*args))]
    whole = evaluate_whole(program, inputs)
    got = simulate(program, inputs, np.random.default_rng(1))
    for w, e, g in zip(want, whole, got, strict=True):
        if name == "bits":
            np.testing.assert_array_equal(g, w)
            np.testing.assert_array_equal(e, w)
        elif name == "dropout":  # the same mask; numpy's x / 0.6 may differ by an ulp
            np.testing.assert_array_equal(g == 0, w == 0)
            np.testing.assert_allclose(g, w, rtol=1e-6)
        else:
            np.testing.assert_allclose(e, w, rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
