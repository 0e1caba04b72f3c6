"""``combine=1``: a plan made for combined collectives computes jax's numbers."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import sbpc.jax as sj


def grads(params, x):
    def loss(p):
        h = jnp.tanh(x @ p["w1"])
        return jnp.sum((h @ p["w2"]) ** 2) + jnp.sum(p["b"] * h)

    return jax.grad(loss)(params)


def test_combining_aware_plan_reduces_gradients_and_matches_jax():
    """With a real per-collective latency the plain search avoids one
    reduction per gradient; seeing that they run as one, it keeps them."""
    rng = np.random.default_rng(0)
    params = {
        "w1": rng.standard_normal((16, 32)).astype(np.float32),
        "w2": rng.standard_normal((32, 8)).astype(np.float32),
        "b": rng.standard_normal((32,)).astype(np.float32),
    }
    x = rng.standard_normal((2048, 16)).astype(np.float32)
    want = jax.jit(grads)(params, x)
    sources = {}
    for combine in (0, 1):
        step = sj.distribute(
            grads,
            params,
            x,
            mesh=8,
            in_layouts=("B", "S(0)"),
            out_layouts="B",
            cost_model=f"bw=1e9,lat=1e-4,flops=2.5e10,hbm=2e9,combine={combine}",
        )
        sources[combine] = step.source
        got = step(params, x)
        for k in params:
            scale = float(np.max(np.abs(want[k])))
            np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-5 * scale)
    assert "_many(" in sources[1]
    assert sources[0] != sources[1]
