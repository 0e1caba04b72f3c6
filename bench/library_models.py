"""Decoder-only language models written with real libraries, as benchmark inputs.

The GPT example (``examples/models/gpt.py``) is plain JAX written by us; a
user brings models built from flax (linen and nnx) and equinox, trained with
optax.  Each builder here returns an ``Example`` of one such model's training
step at a given depth: pre-LayerNorm blocks of causal self-attention and a
GELU MLP, token and position embeddings, a language-model head, softmax
cross-entropy, and ``optax.adamw``.  Sizes follow the GPT example's.

Roles: the batch is ``data``; parameters and optimizer state are left free
(``None``), so sbpc's strategy chooses their layouts and XLA is given the
same ones.  These libraries are in the ``test`` extra, not in sbpc's
dependencies.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import equinox as eqx
import flax.linen as linen
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

from models.example import DATA, Example

VOCAB, SEQ, MODEL, HEADS, HIDDEN, BATCH = 256, 32, 64, 8, 256, 16


def _batch() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    tokens = rng.integers(0, VOCAB, (BATCH, SEQ), dtype=np.int32)
    return tokens, np.roll(tokens, -1, axis=1)


def _loss(logits: jax.Array, targets: jax.Array) -> jax.Array:
    return optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()


def _causal() -> jax.Array:
    return jnp.tril(jnp.ones((SEQ, SEQ), bool))


def _train_example(
    apply: Callable[[Any, jax.Array], jax.Array], params: Any
) -> Example:
    """An Adam(W) step of ``apply(params, tokens) -> logits`` as an Example."""
    tx = optax.adamw(1e-3)

    def step(params, opt_state, tokens, targets):
        loss, grads = jax.value_and_grad(lambda p: _loss(apply(p, tokens), targets))(
            params
        )
        updates, opt_state = tx.update(grads, opt_state, params)
        return loss, optax.apply_updates(params, updates), opt_state

    params = jax.tree.map(np.asarray, params)
    opt_state = jax.tree.map(np.asarray, tx.init(params))
    tokens, targets = _batch()
    return Example(step, (params, opt_state, tokens, targets), (None, None, DATA, DATA))


class _LinenBlock(linen.Module):
    @linen.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        h = linen.LayerNorm()(x)
        x = x + linen.MultiHeadDotProductAttention(num_heads=HEADS)(h, mask=_causal())
        h = linen.gelu(linen.Dense(HIDDEN)(linen.LayerNorm()(x)))
        return x + linen.Dense(MODEL)(h)


class _LinenLM(linen.Module):
    layers: int

    @linen.compact
    def __call__(self, tokens: jax.Array) -> jax.Array:
        x = linen.Embed(VOCAB, MODEL)(tokens)
        x = x + self.param("wpe", linen.initializers.normal(0.02), (SEQ, MODEL))
        for _ in range(self.layers):
            x = _LinenBlock()(x)
        return linen.Dense(VOCAB)(linen.LayerNorm()(x))


def flax_linen(layers: int) -> Example:
    """A flax.linen decoder's training step."""
    model = _LinenLM(layers)
    params = model.init(jax.random.key(0), _batch()[0])
    return _train_example(model.apply, params)


class _LinenScanLayer(linen.Module):
    """One block as ``linen.scan``'s body: (carry, per-layer input) to
    (carry, per-layer output)."""

    @linen.compact
    def __call__(self, x: jax.Array, _: None) -> tuple[jax.Array, None]:
        return _LinenBlock()(x), None


class _LinenScanLM(linen.Module):
    """``_LinenLM`` with its blocks run by ``linen.scan`` over stacked
    parameters (as MaxText and flax's own examples scan theirs): the
    program holds one block in a ``stablehlo.while`` body, whatever the
    depth."""

    layers: int

    @linen.compact
    def __call__(self, tokens: jax.Array) -> jax.Array:
        x = linen.Embed(VOCAB, MODEL)(tokens)
        x = x + self.param("wpe", linen.initializers.normal(0.02), (SEQ, MODEL))
        blocks = linen.scan(
            _LinenScanLayer,
            variable_axes={"params": 0},
            split_rngs={"params": True},
            length=self.layers,
        )
        x, _ = blocks()(x, None)
        return linen.Dense(VOCAB)(linen.LayerNorm()(x))


def flax_linen_scan(layers: int) -> Example:
    """A flax.linen decoder's training step, its blocks scanned."""
    model = _LinenScanLM(layers)
    params = model.init(jax.random.key(0), _batch()[0])
    return _train_example(model.apply, params)


class _NnxBlock(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.ln1, self.ln2 = (
            nnx.LayerNorm(MODEL, rngs=rngs),
            nnx.LayerNorm(MODEL, rngs=rngs),
        )
        self.attn = nnx.MultiHeadAttention(HEADS, MODEL, decode=False, rngs=rngs)
        self.up, self.down = (
            nnx.Linear(MODEL, HIDDEN, rngs=rngs),
            nnx.Linear(HIDDEN, MODEL, rngs=rngs),
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        x = x + self.attn(self.ln1(x), mask=_causal())
        return x + self.down(nnx.gelu(self.up(self.ln2(x))))


class _NnxLM(nnx.Module):
    def __init__(self, layers: int, rngs: nnx.Rngs) -> None:
        self.wte = nnx.Embed(VOCAB, MODEL, rngs=rngs)
        self.wpe = nnx.Param(jax.random.normal(rngs.params(), (SEQ, MODEL)) * 0.02)
        self.blocks = nnx.List([_NnxBlock(rngs) for _ in range(layers)])
        self.lnf = nnx.LayerNorm(MODEL, rngs=rngs)
        self.head = nnx.Linear(MODEL, VOCAB, rngs=rngs)

    def __call__(self, tokens: jax.Array) -> jax.Array:
        x = self.wte(tokens) + self.wpe[...]
        for block in self.blocks:
            x = block(x)
        return self.head(self.lnf(x))


def flax_nnx(layers: int) -> Example:
    """A flax.nnx decoder's training step (the state split from its graph)."""
    graphdef, state = nnx.split(_NnxLM(layers, nnx.Rngs(0)))

    def apply(state, tokens):
        return nnx.merge(graphdef, state)(tokens)

    return _train_example(apply, state)


class _EqxBlock(eqx.Module):
    ln1: eqx.nn.LayerNorm
    ln2: eqx.nn.LayerNorm
    attn: eqx.nn.MultiheadAttention
    up: eqx.nn.Linear
    down: eqx.nn.Linear

    def __init__(self, key: jax.Array) -> None:
        k1, k2, k3 = jax.random.split(key, 3)
        self.ln1, self.ln2 = eqx.nn.LayerNorm(MODEL), eqx.nn.LayerNorm(MODEL)
        self.attn = eqx.nn.MultiheadAttention(HEADS, MODEL, key=k1)
        self.up = eqx.nn.Linear(MODEL, HIDDEN, key=k2)
        self.down = eqx.nn.Linear(HIDDEN, MODEL, key=k3)

    def __call__(self, x: jax.Array) -> jax.Array:  # one sequence [SEQ, MODEL]
        h = jax.vmap(self.ln1)(x)
        x = x + self.attn(h, h, h, mask=_causal())
        h = jax.vmap(self.up)(jax.vmap(self.ln2)(x))
        return x + jax.vmap(self.down)(jax.nn.gelu(h))


class _EqxLM(eqx.Module):
    wte: eqx.nn.Embedding
    wpe: jax.Array
    blocks: list[_EqxBlock]
    lnf: eqx.nn.LayerNorm
    head: eqx.nn.Linear

    def __init__(self, layers: int, key: jax.Array) -> None:
        keys = jax.random.split(key, layers + 3)
        self.wte = eqx.nn.Embedding(VOCAB, MODEL, key=keys[0])
        self.wpe = jax.random.normal(keys[1], (SEQ, MODEL)) * 0.02
        self.blocks = [_EqxBlock(k) for k in keys[3:]]
        self.lnf = eqx.nn.LayerNorm(MODEL)
        self.head = eqx.nn.Linear(MODEL, VOCAB, key=keys[2])

    def __call__(self, tokens: jax.Array) -> jax.Array:  # one sequence [SEQ]
        x = jax.vmap(self.wte)(tokens) + self.wpe
        for block in self.blocks:
            x = block(x)
        return jax.vmap(self.head)(jax.vmap(self.lnf)(x))


def equinox(layers: int) -> Example:
    """An equinox decoder's training step (its arrays split from the rest)."""
    params, static = eqx.partition(_EqxLM(layers, jax.random.key(0)), eqx.is_array)

    def apply(params, tokens):
        return jax.vmap(eqx.combine(params, static))(tokens)

    return _train_example(apply, params)


MODELS: dict[str, Callable[[int], Example]] = {
    "flax_linen": flax_linen,
    "flax_linen_scan": flax_linen_scan,
    "flax_nnx": flax_nnx,
    "equinox": equinox,
}
