"""A small JAX model for the sbpc-import tests."""

import jax
import jax.numpy as jnp
import numpy as np


def affine(x, w):
    return jnp.tanh(x @ w)


def layer(params, x):
    return jax.nn.relu(x @ params["w"] + params["b"]), jnp.sum(x)


def example():
    rng = np.random.default_rng(0)
    params = {
        "w": rng.standard_normal((16, 32)).astype(np.float32),
        "b": np.zeros(32, np.float32),
    }
    return params, rng.standard_normal((8, 16)).astype(np.float32)


NOT_A_FUNCTION = 3
