"""Gathers from and scatters into a table split by its rows
(``sbpc.ops.indexed_blocks``), through ``sbpc.jax.distribute``.

Communication is priced far above compute (``bw=1e6``), so every strategy's
plan keeps the table where it is given, split by rows, rather than moving it:
each device reads or writes the rows of its block, and the numbers must be
``jax.jit``'s, with indices out of range (a gather clamps them, ``.at[].add``
drops them), on one mesh axis and on two (the block index is hierarchical).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import sbpc.jax

SLOW_LINKS = "bw=1e6"


def _collectives(step: sbpc.jax.Distributed, *args: np.ndarray) -> str:
    hlo = step.step.lower(*step.place(*args)).compile().as_text()
    kinds = ("all-gather", "all-reduce", "all-to-all", "reduce-scatter")
    return " ".join(k for k in kinds if f" {k}(" in hlo or f" {k}-start(" in hlo)


# (mesh, the table's layout, a replicated layout)
MESHES = [(8, "[S(0)]", "[B]"), ((2, 4), "[S(0), S(0)]", "[B, B]")]
ROWS = 256


def _tokens(rng: np.random.Generator) -> np.ndarray:
    """Rows of the table, one below it and one above (clamped or dropped)."""
    tokens = rng.integers(0, ROWS, (2, 3))
    tokens[0, 0], tokens[1, 2] = -3, ROWS + 2
    return tokens.astype(np.int32)


def _table(seed: int) -> tuple[np.random.Generator, np.ndarray, np.ndarray]:
    """A generator, a table of ``ROWS`` rows and tokens indexing it."""
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((ROWS, 16)).astype(np.float32)
    return rng, table, _tokens(rng)


def _every_plan(test):
    """``test`` under every strategy, on each of ``MESHES``."""
    meshes = pytest.mark.parametrize(("mesh", "split", "whole"), MESHES)
    return pytest.mark.parametrize("strategy", ["greedy", "bfs", "optimal"])(
        meshes(test)
    )


@_every_plan
def test_lookup_reads_rows_of_its_block(
    mesh, split: str, whole: str, strategy: str
) -> None:
    _, table, tokens = _table(0)

    def lookup(table, tokens):
        return jnp.tanh(table[tokens])

    step = sbpc.jax.distribute(
        lookup,
        table,
        tokens,
        mesh=mesh,
        in_layouts=(split, whole),
        cost_model=SLOW_LINKS,
        strategy=strategy,
        quiet=True,
    )
    assert "_gather_rows(" in step.source
    np.testing.assert_allclose(
        step(table, tokens), jax.jit(lookup)(table, tokens), rtol=1e-6
    )
    # The rows' sum over devices (a few rows), never the table moved.
    assert _collectives(step, table, tokens) in ("all-reduce", "reduce-scatter")


@_every_plan
def test_update_writes_rows_of_its_block(
    mesh, split: str, whole: str, strategy: str
) -> None:
    rng, table, tokens = _table(1)
    grads = rng.standard_normal((2, 3, 16)).astype(np.float32)

    def update(table, tokens, grads):
        return table.at[tokens].add(grads) * 2.0

    step = sbpc.jax.distribute(
        update,
        table,
        tokens,
        grads,
        mesh=mesh,
        in_layouts=(split, whole, whole),
        out_layouts=split,
        cost_model=SLOW_LINKS,
        strategy=strategy,
        quiet=True,
    )
    assert "_scatter_rows(" in step.source
    np.testing.assert_allclose(
        step(table, tokens, grads),
        jax.jit(update)(table, tokens, grads),
        rtol=1e-6,
    )
    assert _collectives(step, table, tokens, grads) == ""


def test_a_flax_embed_table_split_by_rows_is_read_by_its_blocks() -> None:
    """A flax ``nn.Embed`` (``jnp.take``: out-of-range tokens read NaN rows)
    whose table is pinned split by rows reads each device's block."""
    import flax.linen as nn

    rng = np.random.default_rng(2)
    tokens = _tokens(rng)
    embed = nn.Embed(ROWS, 16)
    params = embed.init(jax.random.PRNGKey(0), tokens)

    def lookup(params, tokens):
        return jnp.tanh(embed.apply(params, tokens))

    step = sbpc.jax.distribute(
        lookup,
        params,
        tokens,
        mesh=8,
        in_layouts=({"params": {"embedding": "[S(0)]"}}, "[B]"),
        cost_model=SLOW_LINKS,
        strategy="greedy",
        quiet=True,
    )
    assert "_gather_rows(" in step.source
    np.testing.assert_allclose(
        step(params, tokens), jax.jit(lookup)(params, tokens), rtol=1e-6
    )
    assert _collectives(step, params, tokens) in ("all-reduce", "reduce-scatter")
