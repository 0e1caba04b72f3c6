"""The mixture-of-experts layer with its experts split: both dispatches
compute jax.jit's numbers under every scheme, and at a width where bytes
matter the plan sends at most XLA's bytes (index dispatch: with an
all-to-all)."""

import sys
from pathlib import Path

import jax
import numpy as np
import pytest
from models import SCHEMES, moe

import sbpc.jax as sj

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from hlo_collectives import parse_collectives, summarize


def _distribute(fn, args, scheme: str, forward: bool) -> sj.Distributed:
    params_layouts, token_layout = moe.expert_layouts(scheme)
    return sj.distribute(
        fn,
        *args,
        mesh=SCHEMES[scheme],
        in_layouts=(params_layouts, token_layout),
        out_layouts=token_layout if forward else None,
        quiet=True,
    )


def test_the_two_dispatches_compute_the_same_layer() -> None:
    cfg = moe.config(32, seq=8)
    args = moe.layer_args(cfg)
    einsum = jax.jit(moe.layer("einsum", cfg))(*args)
    gather = jax.jit(moe.layer("gather", cfg))(*args)
    np.testing.assert_allclose(gather, einsum, rtol=1e-5, atol=1e-5)
    assert float(np.abs(einsum).max()) > 0.1  # tokens reached experts


@pytest.mark.parametrize("scheme", list(SCHEMES))
@pytest.mark.parametrize("dispatch", moe.DISPATCHES)
def test_expert_parallel_training_step_equals_jit(dispatch: str, scheme: str) -> None:
    cfg = moe.config(32, seq=8)
    args = moe.layer_args(cfg)
    step = moe.train_step(dispatch, cfg)
    dist = _distribute(step, args, scheme, forward=False)
    want, got = jax.jit(step)(*args), dist(*args)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dispatch", moe.DISPATCHES)
def test_wide_layer_sends_at_most_xlas_bytes(dispatch: str) -> None:
    """Tokens replicated, experts split (``tp``) at width 512: index dispatch
    slices each device's experts' slots locally and returns their outputs
    with one all-to-all, fewer bytes than XLA's all-reduce of the combined
    output; the einsum dispatch sends no more than XLA (its one all-reduce
    beats the all-to-all's two collectives by the launch they save)."""
    cfg = moe.config(512, seq=64)
    args = moe.layer_args(cfg)
    fn = moe.layer(dispatch, cfg)
    dist = _distribute(fn, args, "tp", forward=True)
    np.testing.assert_allclose(dist(*args), jax.jit(fn)(*args), rtol=1e-4, atol=1e-4)
    ours = summarize(parse_collectives(dist.lower(*args).compile().as_text(), 8))
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:8]), ("d0",))
    split = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("d0"))
    whole = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
    params = {"router": whole, "w1": split, "w3": split, "w2": split}
    xla = jax.jit(fn, in_shardings=(params, whole), out_shardings=whole)
    theirs = summarize(parse_collectives(xla.lower(*args).compile().as_text(), 8))
    assert ours.bytes_per_device <= theirs.bytes_per_device
    if dispatch == "gather":
        assert ours.counts["all-to-all"] >= 1
        assert ours.bytes_per_device < theirs.bytes_per_device
