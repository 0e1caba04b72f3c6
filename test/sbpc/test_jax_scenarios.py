"""A cost model with scenarios through ``sbpc.jax.distribute``: a flax MLP's
optax training step on a 2x2 mesh, planned by each strategy for a machine
whose launch cost per collective is known only within a range; the plan is
priced in both scenarios and the step equals ``jax.jit``'s."""

from __future__ import annotations

import flax.linen as nn
import jax
import numpy as np
import optax
import pytest

# run 2 of docs/performance.md's seventh session: the chain, then between work
MACHINE = (
    "bw=2.42e+09,lat=1.09e-05,overhead=3.92e-05,flops=2.01e+10,hbm=3.9e+09,"
    "combine=1|lat=1.36e-05,overhead=6.26e-05"
)


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = nn.relu(nn.Dense(64)(x))
        return nn.Dense(10)(nn.relu(nn.Dense(64)(x)))


def _step(model: nn.Module, tx: optax.GradientTransformation):
    def step(params, opt, x, y):
        def loss_fn(p):
            logits = model.apply({"params": p}, x)
            return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt = tx.update(grads, opt, params)
        return optax.apply_updates(params, updates), opt, loss

    return step


@pytest.mark.parametrize("strategy", ["greedy", "bfs", "optimal"])
def test_flax_training_step_planned_for_two_scenarios(
    strategy, distribute_step
) -> None:
    model, tx = MLP(), optax.adam(1e-3)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 32)).astype(np.float32)
    y = (np.arange(16) % 10).astype(np.int32)
    params = model.init(jax.random.key(0), x)["params"]
    opt = tx.init(params)
    step = _step(model, tx)
    dist = distribute_step(
        step, params, opt, x, y, mesh=(2, 2), strategy=strategy, cost_model=MACHINE
    )
    (plan,) = [p.plan for p in dist.plans]
    assert plan.stats["scenarios"] == 2  # planned for both, not the first alone
    got = dist(params, opt, x, y)
    want = jax.jit(step)(params, opt, x, y)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-4, atol=2e-5)
