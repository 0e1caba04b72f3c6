"""Export the StableHLO programs sbpc uses as real inputs.

Run from the repository root:

    python examples/export_stablehlo.py [OUT_DIR]

It writes ``mlp.mlir``, ``transformer_block.mlir`` and ``train_step.mlir``
(default ``examples/stablehlo/``) exactly as ``jax.jit(f).lower(...).as_text()``
prints them. Shapes are fixed and small (multiples of 8, f32) so the programs
split evenly over 2, 4 or 8 devices; helpers are nested ``jax.jit`` calls so
the exported modules contain ``func.func private`` functions and ``call``s,
as real JAX programs do.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp

F32 = jnp.float32

# ---------------------------------------------------------------- MLP


@jax.jit
def dense(x, w, b):
    """One affine layer; a nested jit, so it becomes a private func."""
    return x @ w + b


@jax.jit
def gelu(x):
    return jax.nn.gelu(x, approximate=True)


def mlp(x, w1, b1, w2, b2, w3, b3):
    """3-layer MLP: 32 -> 64 -> 64 -> 16, GELU between layers."""
    h = gelu(dense(x, w1, b1))
    h = gelu(dense(h, w2, b2))
    return dense(h, w3, b3)


def mlp_args():
    s = jax.ShapeDtypeStruct
    return (
        s((16, 32), F32),
        s((32, 64), F32),
        s((64,), F32),
        s((64, 64), F32),
        s((64,), F32),
        s((64, 16), F32),
        s((16,), F32),
    )


# ---------------------------------------------------------------- transformer

BATCH, SEQ, MODEL, HEADS, HIDDEN = 2, 8, 32, 4, 64
HEAD_DIM = MODEL // HEADS


@jax.jit
def layer_norm(x, gamma, beta):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    centered = x - mean  # jnp.square would emit chlo.square, outside StableHLO
    var = jnp.mean(centered * centered, axis=-1, keepdims=True)
    return centered * jax.lax.rsqrt(var + 1e-5) * gamma + beta


@jax.jit
def causal_attention(x, wq, wk, wv, wo):
    """Multi-head causal self-attention; the mask comes from iota/compare/select."""
    b, t, _ = x.shape

    def heads(w):
        return (x @ w).reshape(b, t, HEADS, HEAD_DIM).transpose(0, 2, 1, 3)

    q, k, v = heads(wq), heads(wk), heads(wv)
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(F32(HEAD_DIM))
    row = jax.lax.broadcasted_iota(jnp.int32, (t, t), 0)
    col = jax.lax.broadcasted_iota(jnp.int32, (t, t), 1)
    scores = jnp.where(col <= row, scores, F32(-1e9))
    probs = jax.nn.softmax(scores, axis=-1)
    out = jnp.einsum("bhqk,bhkd->bhqd", probs, v)
    return out.transpose(0, 2, 1, 3).reshape(b, t, MODEL) @ wo


def transformer_block(x, ln1_g, ln1_b, wq, wk, wv, wo, ln2_g, ln2_b, w1, b1, w2, b2):
    """Pre-LayerNorm block: x + attn(ln(x)), then + mlp(ln(.))."""
    x = x + causal_attention(layer_norm(x, ln1_g, ln1_b), wq, wk, wv, wo)
    h = layer_norm(x, ln2_g, ln2_b)
    h = jax.nn.gelu(h @ w1 + b1, approximate=True)
    return x + h @ w2 + b2


def transformer_args():
    s = jax.ShapeDtypeStruct
    m, hid = MODEL, HIDDEN
    return (
        s((BATCH, SEQ, m), F32),
        s((m,), F32),
        s((m,), F32),
        s((m, m), F32),
        s((m, m), F32),
        s((m, m), F32),
        s((m, m), F32),
        s((m,), F32),
        s((m,), F32),
        s((m, hid), F32),
        s((hid,), F32),
        s((hid, m), F32),
        s((m,), F32),
    )


# ---------------------------------------------------------------- train step

CLASSES = 16
LEARNING_RATE = 0.1


def loss_fn(params, x, labels):
    """Mean softmax cross-entropy of a 2-layer MLP on integer labels."""
    w1, b1, w2, b2 = params
    h = jax.nn.relu(x @ w1 + b1)
    logits = h @ w2 + b2
    logp = jax.nn.log_softmax(logits, axis=-1)
    onehot = jax.nn.one_hot(labels, CLASSES, dtype=F32)
    return -jnp.mean(jnp.sum(onehot * logp, axis=-1))


def train_step(w1, b1, w2, b2, x, labels):
    """One SGD step; returns the loss and the updated parameters."""
    params = (w1, b1, w2, b2)
    loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
    new = tuple(p - LEARNING_RATE * g for p, g in zip(params, grads, strict=True))
    return (loss, *new)


def train_step_args():
    s = jax.ShapeDtypeStruct
    return (
        s((32, 64), F32),
        s((64,), F32),
        s((64, CLASSES), F32),
        s((CLASSES,), F32),
        s((16, 32), F32),
        s((16,), jnp.int32),
    )


# ------------------------------------------------------ transformer train step


def transformer_loss(params, x, target):
    """Mean squared error of the transformer block against a target."""
    out = transformer_block(x, *params)
    diff = out - target
    return jnp.mean(diff * diff)


def transformer_train_step(x, target, *params):
    """One SGD step of the transformer block; returns loss and new parameters."""
    loss, grads = jax.value_and_grad(transformer_loss)(params, x, target)
    new = tuple(p - LEARNING_RATE * g for p, g in zip(params, grads, strict=True))
    return (loss, *new)


def transformer_train_step_args():
    x, *params = transformer_args()
    return (x, x, *params)


PROGRAMS = {
    "mlp": (mlp, mlp_args),
    "transformer_block": (transformer_block, transformer_args),
    "train_step": (train_step, train_step_args),
    "transformer_train_step": (transformer_train_step, transformer_train_step_args),
}


def export(name: str) -> str:
    fn, args = PROGRAMS[name]
    return jax.jit(fn).lower(*args()).as_text()


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else Path(__file__).parent / "stablehlo"
    out.mkdir(parents=True, exist_ok=True)
    for name in PROGRAMS:
        path = out / f"{name}.mlir"
        path.write_text(export(name))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
