"""Adam, written out in plain JAX so the examples' training steps contain it."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

LR, B1, B2, EPS = 1e-3, 0.9, 0.999, 1e-8


def adam_init(params):
    return {
        "m": jax.tree.map(np.zeros_like, params),
        "v": jax.tree.map(np.zeros_like, params),
        "step": np.int32(0),
    }


def adam_update(params, grads, opt):
    """Bias-corrected Adam; returns new parameters and optimizer state."""
    step = opt["step"] + 1
    m = jax.tree.map(lambda m, g: B1 * m + (1 - B1) * g, opt["m"], grads)
    v = jax.tree.map(lambda v, g: B2 * v + (1 - B2) * g * g, opt["v"], grads)
    t = step.astype(jnp.float32)
    m_hat, v_hat = 1 - B1**t, 1 - B2**t
    params = jax.tree.map(
        lambda p, m, v: p - LR * (m / m_hat) / (jnp.sqrt(v / v_hat) + EPS), params, m, v
    )
    return params, {"m": m, "v": v, "step": step}


def opt_roles(param_roles):
    """Optimizer state is laid out like the parameters; the step count replicated."""
    return {"m": param_roles, "v": param_roles, "step": "B"}


def cross_entropy(logits, labels, classes: int):
    """Mean cross-entropy of integer ``labels`` under ``logits`` (last axis)."""
    logp = jax.nn.log_softmax(logits, -1)
    return -jnp.mean(jnp.sum(jax.nn.one_hot(labels, classes) * logp, -1))


def adam_step(loss_fn):
    """The training step of ``loss_fn(params, *batch)``: one Adam update.

    ``train_step(params, opt, *batch)`` returns the loss, new parameters and
    new optimizer state.
    """

    def train_step(params, opt, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, opt = adam_update(params, grads, opt)
        return loss, params, opt

    return train_step
