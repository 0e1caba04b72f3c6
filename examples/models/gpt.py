"""A GPT-style decoder stack in plain JAX: forward pass and an Adam training step.

Token and position embeddings (an embedding *lookup*: gather, and scatter in
the gradient), pre-LayerNorm blocks of causal multi-head attention and a GELU
MLP, a final LayerNorm, a language-model head and softmax cross-entropy.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .example import Model
from .optim import adam_step, cross_entropy

VOCAB, SEQ, MODEL, HEADS, HIDDEN, LAYERS, BATCH = 256, 32, 64, 8, 256, 2, 16


def layer_norm(x, g, b):
    mean = jnp.mean(x, -1, keepdims=True)
    var = jnp.var(x, -1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * g + b


def attention(x, p):
    b, t, d = x.shape

    def heads(w):
        return (x @ w).reshape(b, t, HEADS, d // HEADS).transpose(0, 2, 1, 3)

    q, k, v = heads(p["wq"]), heads(p["wk"]), heads(p["wv"])
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // HEADS).astype(np.float32)
    causal = jnp.tril(jnp.ones((t, t), bool))
    probs = jax.nn.softmax(jnp.where(causal, scores, -1e9), -1)
    return (probs @ v).transpose(0, 2, 1, 3).reshape(b, t, d) @ p["wo"]


def block(x, p):
    x = x + attention(layer_norm(x, p["ln1_g"], p["ln1_b"]), p)
    h = jax.nn.gelu(layer_norm(x, p["ln2_g"], p["ln2_b"]) @ p["w1"] + p["b1"])
    return x + h @ p["w2"] + p["b2"]


def forward(params, tokens):
    """Logits ``[batch, seq, vocab]`` for integer ``tokens [batch, seq]``."""
    x = params["wte"][tokens] + params["wpe"][: tokens.shape[1]]
    for p in params["blocks"]:
        x = block(x, p)
    return layer_norm(x, params["lnf_g"], params["lnf_b"]) @ params["head"]


def loss_fn(params, tokens, targets):
    """Mean next-token cross-entropy."""
    return cross_entropy(forward(params, tokens), targets, VOCAB)


# (params, opt, tokens, targets) -> (loss, params, opt)
train_step = adam_step(loss_fn)


def init_params(seed: int = 0):
    rng = np.random.default_rng(seed)

    def normal(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    ones, zeros = (
        (lambda n: np.ones(n, np.float32)),
        (lambda n: np.zeros(n, np.float32)),
    )
    blocks = [
        {
            "ln1_g": ones(MODEL), "ln1_b": zeros(MODEL),
            "wq": normal(MODEL, MODEL), "wk": normal(MODEL, MODEL),
            "wv": normal(MODEL, MODEL), "wo": normal(MODEL, MODEL),
            "ln2_g": ones(MODEL), "ln2_b": zeros(MODEL),
            "w1": normal(MODEL, HIDDEN), "b1": zeros(HIDDEN),
            "w2": normal(HIDDEN, MODEL), "b2": zeros(MODEL),
        }
        for _ in range(LAYERS)
    ]  # fmt: skip
    return {
        "wte": normal(VOCAB, MODEL), "wpe": normal(SEQ, MODEL), "blocks": blocks,
        "lnf_g": ones(MODEL), "lnf_b": zeros(MODEL), "head": normal(MODEL, VOCAB),
    }  # fmt: skip


def batch(seed: int = 0):
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, VOCAB, (BATCH, SEQ + 1)).astype(np.int32)
    return tokens[:, :-1], tokens[:, 1:]


# ------------------------------------------------------------- layouts
def param_roles():
    """Megatron-style tensor parallelism: heads and the MLP hidden dim split
    (column-split ``S(1)`` then row-split ``S(0)``), the vocabulary of the
    head split; embeddings and norms replicated."""
    col, row, rep = "S(1)", "S(0)", "B"
    blocks = [
        {
            "ln1_g": rep, "ln1_b": rep, "wq": col, "wk": col, "wv": col, "wo": row,
            "ln2_g": rep, "ln2_b": rep, "w1": col, "b1": row, "w2": row, "b2": rep,
        }
        for _ in range(LAYERS)
    ]  # fmt: skip
    return {
        "wte": rep, "wpe": rep, "blocks": blocks, "lnf_g": rep, "lnf_b": rep, "head": col,
    }  # fmt: skip


_MODEL = Model(forward, train_step, init_params, batch, param_roles)
forward_example, train_example = _MODEL.forward_example, _MODEL.train_example
forward_args, train_args = _MODEL.forward_args, _MODEL.train_args  # sbpc-import --args


class Depth:
    """``with Depth(layers):`` sets ``LAYERS`` (which ``init_params`` and
    ``param_roles`` read) meanwhile and restores it after."""

    def __init__(self, layers: int) -> None:
        self.layers = layers
        self.saved = LAYERS

    def __enter__(self) -> None:
        global LAYERS
        self.saved, LAYERS = LAYERS, self.layers

    def __exit__(self, *exc: object) -> None:
        global LAYERS
        LAYERS = self.saved
