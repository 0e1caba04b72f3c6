"""Every example model, under every scheme and strategy, computes what the
unsharded function computes (``sbpc.jax.distribute`` vs ``jax.jit``)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from models import EXAMPLES, SCHEMES
from models.optim import LR
from run import main as run_main
from run import max_error

STRATEGIES = ("greedy", "bfs", "optimal")
CASES = [(name, "2d", strategy) for name in EXAMPLES for strategy in STRATEGIES] + [
    (name, scheme, "optimal") for name in EXAMPLES for scheme in ("dp", "tp")
]


def leaf_error(got, want, floor: float = 1e-30) -> float:
    """max |got - want| relative to the largest |want| of the same leaf (at
    least ``floor``: a leaf that is zero in exact arithmetic is float noise)."""
    g, w = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(
        np.max(np.abs(g - w), initial=0) / max(np.max(np.abs(w), initial=0), floor)
    )


def check(name: str, got, want) -> None:
    """Sharded results equal the unsharded ones up to float reassociation.

    Forward passes: 1e-4 relative.  Training steps: the loss and the Adam
    moments (``m = 0.1 g``, ``v = 0.001 g^2``, so every gradient) 1e-3 per
    leaf (gradients that are zero in exact arithmetic, as a bias feeding a
    LayerNorm has, are judged against 1e-4 of the largest); parameters only to 2.1 * LR absolute, since Adam's first step moves
    each one by about +-LR whatever the gradient's size (a near-zero gradient
    whose sign flips under reordering moves it by 2 LR).
    """
    if not name.endswith("_train"):
        assert max_error(got, want) < 1e-4
        return
    loss, params, opt = got
    want_loss, want_params, want_opt = want
    assert leaf_error(loss, want_loss) < 1e-4
    moments = jax.tree.leaves(want_opt)
    floor = 1e-4 * max(float(np.max(np.abs(np.asarray(w)))) for w in moments)
    for g, w in zip(jax.tree.leaves(opt), moments, strict=True):
        assert leaf_error(g, w, floor) < 1e-3
    for g, w in zip(jax.tree.leaves(params), jax.tree.leaves(want_params), strict=True):
        assert np.max(np.abs(np.asarray(g) - np.asarray(w))) <= 2.1 * LR


@pytest.fixture(scope="module")
def unsharded():
    cache: dict[str, object] = {}

    def get(name):
        if name not in cache:
            example = EXAMPLES[name]()
            cache[name] = jax.jit(example.fn)(*example.args)
        return cache[name]

    return get


@pytest.mark.parametrize(("name", "scheme", "strategy"), CASES)
def test_example_matches_unsharded(name, scheme, strategy, unsharded):
    example = EXAMPLES[name]()
    dist = example.distribute(scheme, strategy=strategy)
    check(name, dist(*example.args), unsharded(name))
    # the layouts asked for are the layouts the program takes
    in_shardings, _ = dist.shardings()
    given = jax.tree.leaves(example.in_layouts(scheme))
    assert len(given) == len(in_shardings)
    mesh_axes = len(SCHEMES[scheme])
    for layout, sharding in zip(given, in_shardings, strict=True):
        split_axes = layout.count("S(")
        used = [a for a in sharding.spec if a is not None]
        assert len(used) == split_axes, (layout, sharding.spec, mesh_axes)


def test_training_steps_train():
    """The sharded Adam step lowers the loss over a few steps, like jax.jit's."""
    example = EXAMPLES["mlp_train"]()
    dist = example.distribute("2d")
    params, opt, x, labels = example.args
    losses = []
    for _ in range(5):
        loss, params, opt = dist(params, opt, x, labels)
        losses.append(float(loss))
    ref_params, ref_opt = example.args[:2]
    for _ in range(5):
        ref_loss, ref_params, ref_opt = jax.jit(example.fn)(
            ref_params, ref_opt, x, labels
        )
    assert losses[-1] < losses[0]
    np.testing.assert_allclose(losses[-1], float(ref_loss), rtol=1e-4)


def test_runner_command(capsys):
    assert run_main(["mlp", "--scheme", "tp", "--strategy", "bfs", "--report"]) == 0
    out = capsys.readouterr().out
    assert "strategy=bfs" in out and "numbers match" in out
