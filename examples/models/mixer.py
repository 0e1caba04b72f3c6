"""MLP-Mixer, a convolution-free vision model: forward pass and Adam training step.

Images are cut into patches with reshape/transpose (no convolution), embedded
linearly, then mixed by blocks of a token-mixing MLP (across patches) and a
channel-mixing MLP (across features); mean pooling and a linear classifier.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .example import REPLICATED, Model
from .optim import adam_step, cross_entropy

IMAGE, PATCH, CHANNELS, WIDTH, TOKEN_HIDDEN, CHANNEL_HIDDEN = 32, 4, 3, 64, 128, 256
BLOCKS, CLASSES, BATCH = 2, 16, 16
TOKENS = (IMAGE // PATCH) ** 2


def layer_norm(x, g, b):
    mean = jnp.mean(x, -1, keepdims=True)
    var = jnp.var(x, -1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-6) * g + b


def mlp(x, w1, b1, w2, b2):
    return jax.nn.gelu(x @ w1 + b1) @ w2 + b2


def patches(images):
    """``[b, H, W, C]`` -> ``[b, tokens, PATCH*PATCH*C]``."""
    b, n = images.shape[0], IMAGE // PATCH
    x = images.reshape(b, n, PATCH, n, PATCH, CHANNELS).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(b, n * n, PATCH * PATCH * CHANNELS)


def forward(params, images):
    x = patches(images) @ params["embed"] + params["embed_b"]
    for p in params["blocks"]:
        y = layer_norm(x, p["ln1_g"], p["ln1_b"]).transpose(0, 2, 1)
        x = x + mlp(y, p["tok_w1"], p["tok_b1"], p["tok_w2"], p["tok_b2"]).transpose(
            0, 2, 1
        )
        y = layer_norm(x, p["ln2_g"], p["ln2_b"])
        x = x + mlp(y, p["ch_w1"], p["ch_b1"], p["ch_w2"], p["ch_b2"])
    x = layer_norm(x, params["ln_g"], params["ln_b"]).mean(1)
    return x @ params["head"] + params["head_b"]


def loss_fn(params, images, labels):
    return cross_entropy(forward(params, images), labels, CLASSES)


# (params, opt, images, labels) -> (loss, params, opt)
train_step = adam_step(loss_fn)


def init_params(seed: int = 0):
    rng = np.random.default_rng(seed)

    def dense(i, o):
        return (rng.standard_normal((i, o)) / np.sqrt(i)).astype(np.float32)

    ones, zeros = (
        (lambda n: np.ones(n, np.float32)),
        (lambda n: np.zeros(n, np.float32)),
    )
    blocks = [
        {
            "ln1_g": ones(WIDTH), "ln1_b": zeros(WIDTH),
            "tok_w1": dense(TOKENS, TOKEN_HIDDEN), "tok_b1": zeros(TOKEN_HIDDEN),
            "tok_w2": dense(TOKEN_HIDDEN, TOKENS), "tok_b2": zeros(TOKENS),
            "ln2_g": ones(WIDTH), "ln2_b": zeros(WIDTH),
            "ch_w1": dense(WIDTH, CHANNEL_HIDDEN), "ch_b1": zeros(CHANNEL_HIDDEN),
            "ch_w2": dense(CHANNEL_HIDDEN, WIDTH), "ch_b2": zeros(WIDTH),
        }
        for _ in range(BLOCKS)
    ]  # fmt: skip
    return {
        "embed": dense(PATCH * PATCH * CHANNELS, WIDTH), "embed_b": zeros(WIDTH),
        "blocks": blocks, "ln_g": ones(WIDTH), "ln_b": zeros(WIDTH),
        "head": dense(WIDTH, CLASSES), "head_b": zeros(CLASSES),
    }  # fmt: skip


def batch(seed: int = 0):
    rng = np.random.default_rng(seed)
    images = rng.standard_normal((BATCH, IMAGE, IMAGE, CHANNELS)).astype(np.float32)
    return images, rng.integers(0, CLASSES, BATCH).astype(np.int32)


def param_roles():
    """Both MLPs of every block Megatron-split (hidden dims); the rest replicated."""
    col, row, rep = "S(1)", "S(0)", REPLICATED
    blocks = [
        {
            "ln1_g": rep, "ln1_b": rep,
            "tok_w1": col, "tok_b1": row, "tok_w2": row, "tok_b2": rep,
            "ln2_g": rep, "ln2_b": rep,
            "ch_w1": col, "ch_b1": row, "ch_w2": row, "ch_b2": rep,
        }
        for _ in range(BLOCKS)
    ]  # fmt: skip
    return {
        "embed": rep, "embed_b": rep, "blocks": blocks,
        "ln_g": rep, "ln_b": rep, "head": rep, "head_b": rep,
    }  # fmt: skip


_MODEL = Model(forward, train_step, init_params, batch, param_roles)
forward_example, train_example = _MODEL.forward_example, _MODEL.train_example
forward_args, train_args = _MODEL.forward_args, _MODEL.train_args  # sbpc-import --args
