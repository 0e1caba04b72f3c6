"""``stablehlo.scatter`` end to end: what ``jax.grad`` of an embedding lookup
and of ``jnp.take_along_axis`` emits, and ``x.at[i].max(u)``, exported with
``jax.jit(...).lower(...).as_text()``, sharded (batch split, embedding dim
split, 2-D), compiled with each strategy, run as the emitted ``shard_map``
module on 8 simulated devices: equal to ``jax.jit`` of the function (and to
the numpy simulator)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

VOCAB, DIM = 64, 32


def _embedding_grad(w, tokens, h):
    """The table's gradient of a loss reading rows ``w[tokens]``."""
    return jax.grad(lambda w: jnp.sum(jnp.tanh(w[tokens]) * h))(w)


def _take_along_axis_grad(x, idx):
    return jax.grad(lambda x: jnp.sum(jnp.take_along_axis(x, idx, axis=2) ** 2))(x)


def _at_max(x, i, u):
    return x.at[i].max(u)


def _args(name: str, rng: np.random.Generator) -> list[np.ndarray]:
    f32 = np.float32
    if name == "embedding_grad":
        tokens = rng.integers(-VOCAB, VOCAB, (8, 16)).astype(np.int32)  # wrap < 0
        return [
            rng.standard_normal((VOCAB, DIM)).astype(f32),
            tokens,
            rng.standard_normal(DIM).astype(f32),
        ]
    if name == "take_along_axis_grad":
        return [
            rng.standard_normal((8, 16, 64)).astype(f32),
            rng.integers(0, 64, (8, 16, 2)).astype(np.int32),
        ]
    return [
        rng.standard_normal((VOCAB, DIM)).astype(f32),
        rng.integers(0, VOCAB, (16,)).astype(np.int32),
        rng.standard_normal((16, DIM)).astype(f32),
    ]


PROGRAMS = {
    "embedding_grad": _embedding_grad,
    "take_along_axis_grad": _take_along_axis_grad,
    "at_max": _at_max,
}

# (program, mesh, argument layouts)
LAYOUTS = {
    "batch": ("embedding_grad", (8,), {1: "[S(0)]"}),
    "embedding-dim": ("embedding_grad", (8,), {0: "[S(1)]", 2: "[S(0)]"}),
    "2d": ("embedding_grad", (2, 4), {1: "[S(0), B]", 0: "[B, S(1)]", 2: "[B, S(0)]"}),
    "take-batch": ("take_along_axis_grad", (8,), {0: "[S(1)]", 1: "[S(1)]"}),
    "take-2d": ("take_along_axis_grad", (2, 4), {0: "[S(0), S(1)]"}),
    "max-rows": ("at_max", (8,), {1: "[S(0)]", 2: "[S(0)]"}),
    "max-dim": ("at_max", (8,), {0: "[S(1)]", 2: "[S(1)]"}),
}


def _export(name: str) -> str:
    args = _args(name, np.random.default_rng(0))
    return jax.jit(PROGRAMS[name]).lower(*args).as_text()


@pytest.mark.parametrize("case", sorted(LAYOUTS))
def test_scatter_program_matches_jax_jit(
    case: str, strategy: str, tmp_path, run_sharded
) -> None:
    name, mesh, layouts = LAYOUTS[case]
    assert '"stablehlo.scatter"' in _export(name)
    args = _args(name, np.random.default_rng(5))
    run = run_sharded(PROGRAMS[name], args, mesh, layouts, strategy, tmp_path / "m.py")
    run.assert_matches()
