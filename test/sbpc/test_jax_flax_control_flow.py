"""Done-when suite of issue 15: training steps of models written with flax
and optax that scan over layers (``nn.scan``), run an LSTM or a GRU
(``nn.RNN``), draw dropout masks in the step (``nn.Dropout``) and
rematerialise (``nn.remat``), distributed data-parallel, tensor-parallel
and 2-D, must compute what ``jax.jit`` computes (loss, parameters and Adam
state after one step)."""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import sbpc.jax as sj


class _Block(nn.Module):
    @nn.compact
    def __call__(self, h, _):
        return h + nn.Dense(16)(nn.gelu(nn.Dense(32)(h))), None


class ScanMLP(nn.Module):
    """A residual MLP whose 4 layers are one ``nn.scan`` (stacked weights)."""

    @nn.compact
    def __call__(self, x):
        stack = nn.scan(
            _Block,
            variable_axes={"params": 0},
            split_rngs={"params": True},
            length=4,
        )
        h, _ = stack()(nn.Dense(16)(x), None)
        return nn.Dense(8)(h)


class RNNModel(nn.Module):
    cell: str = "lstm"

    @nn.compact
    def __call__(self, x):
        cell = nn.LSTMCell(16) if self.cell == "lstm" else nn.GRUCell(16)
        return nn.Dense(8)(nn.RNN(cell)(x))


class DropoutRemat(nn.Module):
    """Rematerialised dense layers with dropout between them."""

    @nn.compact
    def __call__(self, x):
        dense = nn.remat(nn.Dense)
        h = nn.relu(dense(32)(x))
        h = nn.Dropout(0.3, deterministic=False)(h)
        return dense(8)(h)


def _train_step(model, x):
    params = model.init(
        {"params": jax.random.PRNGKey(0), "dropout": jax.random.PRNGKey(1)}, x
    )
    tx = optax.adam(1e-2)

    def step(params, opt, x, y, key):
        def loss(p):
            out = model.apply(p, x, rngs={"dropout": key})
            return jnp.mean((out - y) ** 2)

        value, grads = jax.value_and_grad(loss)(params)
        updates, opt = tx.update(grads, opt, params)
        return value, optax.apply_updates(params, updates), opt

    return step, params, tx.init(params)


def _weights(params, d: int, ndim: int) -> object:
    """Tensor-parallel roles: every kernel split on its output features over
    hierarchy dim ``d`` (a scanned stack keeps its layer axis whole)."""

    def layout(leaf):
        if leaf.ndim < 2 or leaf.shape[-1] % 4:
            return None
        entries = ["B"] * ndim
        entries[d] = f"S({leaf.ndim - 1})"
        return "[" + ", ".join(entries) + "]"

    return jax.tree.map(layout, params)


MODELS = {
    "scan": (ScanMLP(), (16, 8)),
    "lstm": (RNNModel("lstm"), (8, 5, 8)),
    "gru": (RNNModel("gru"), (8, 5, 8)),
    "dropout-remat": (DropoutRemat(), (16, 8)),
}
SCHEMES = ["dp", "tp", "2d"]
STRATEGIES = ["greedy", "bfs", "optimal"]
# Every model under every scheme; the strategies take turns, so each strategy
# meets each scheme and each model.
CASES = [
    (m, s, STRATEGIES[(i + j) % 3])
    for i, m in enumerate(MODELS)
    for j, s in enumerate(SCHEMES)
]


@pytest.mark.parametrize(("model", "scheme", "strategy"), CASES)
def test_flax_training_step_matches_jit(model, scheme, strategy):
    module, shape = MODELS[model]
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    step, params, opt = _train_step(module, x)
    out = module.apply(params, x, rngs={"dropout": jax.random.PRNGKey(2)})
    y = rng.standard_normal(out.shape).astype(np.float32)
    key = jax.random.PRNGKey(5)
    if scheme == "dp":
        mesh, layouts = 8, (None, None, "[S(0)]", "[S(0)]", None)
    elif scheme == "tp":
        mesh, layouts = 4, (_weights(params, 0, 1), None, None, None, None)
    else:
        mesh = (2, 4)
        layouts = (_weights(params, 1, 2), None, "[S(0), B]", "[S(0), B]", None)
    want = jax.jit(step)(params, opt, x, y, key)
    dist = sj.distribute(
        step, params, opt, x, y, key, mesh=mesh, in_layouts=layouts, strategy=strategy
    )
    got = dist(params, opt, x, y, key)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-5)
