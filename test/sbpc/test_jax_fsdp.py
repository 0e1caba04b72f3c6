"""FSDP as a plan the search finds (docs/memory.md, "FSDP's per-use
gather"), on 8 simulated devices: an MLP's SGD step, its batch split, under
half its replicated footprint.  Tensor parallelism would replicate the
activations; data parallelism with the weights stored split and gathered
once holds every gathered weight from the forward to the backward (the
search finds no such plan within the budget: it names 1.53 MiB).  The plan
stores the weights split and gathers them anew before each product reading
them (the forward's and the backward's), the emitted program fences those
gathers with ``optimization_barrier``, and the numbers equal ``jax.jit``
of the step.  Where memory is not tight nothing changes: no
barrier, no extra gather."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import sbpc.jax

LAYERS, WIDTH, BATCH = 3, 256, 1024
OPTIONS = dict(mesh=8, strategy="optimal", quiet=True)


def step(ws, x):
    def loss(ws):
        h = x
        for w in ws:
            h = jnp.tanh(h @ w)
        return jnp.mean(h * h)

    grads = jax.grad(loss)(ws)
    return [w - 0.1 * g for w, g in zip(ws, grads, strict=True)]


def arguments():
    key = jax.random.PRNGKey(0)
    ws = [
        jax.random.normal(jax.random.fold_in(key, i), (WIDTH, WIDTH)) / WIDTH**0.5
        for i in range(LAYERS)
    ]
    return ws, jax.random.normal(key, (BATCH, WIDTH))


FREE = ([None] * LAYERS, "[S(0)]")  # the batch split, the weights free


def test_a_tight_budget_gathers_a_split_weight_per_use() -> None:
    ws, x = arguments()
    replicated = sbpc.jax.plan(
        step, ws, x, in_layouts=(["[B]"] * LAYERS, "[S(0)]"),
        out_layouts=["[B]"] * LAYERS, **OPTIONS,
    )  # fmt: skip
    budget = 0.5 * replicated.peak_memory  # 1.44 MiB
    d = sbpc.jax.distribute(
        step, ws, x, in_layouts=FREE, memory_budget=budget, **OPTIONS
    )
    assert d.peak_memory <= budget
    assert "lax.optimization_barrier" in d.source
    assert "gathered per use" in d.report
    specs = [s.spec for s in d.shardings()[0][:LAYERS]]
    assert all(any(axis is not None for axis in spec) for spec in specs)  # split
    got = d.step(*d.flatten(ws, x))
    want = jax.jit(step)(ws, x)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)


def test_where_memory_is_not_tight_gathers_are_made_once() -> None:
    ws, x = arguments()
    free = sbpc.jax.plan(step, ws, x, in_layouts=FREE, **OPTIONS)
    loose = sbpc.jax.plan(
        step, ws, x, in_layouts=FREE, memory_budget=free.peak_memory, **OPTIONS
    )
    for p in (free, loose):
        assert "optimization_barrier" not in p.source
        assert "gathered per use" not in p.report
    assert loose.source.count("all_gather") == free.source.count("all_gather")
