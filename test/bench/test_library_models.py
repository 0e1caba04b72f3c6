"""``bench/library_models.py``: models from flax (linen, nnx) and equinox,
trained with optax, planned by sbpc; one of them run against ``jax.jit``
(each compiles in seconds, so the others are only planned here; the
benchmark's ``--check`` runs them all)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from library_models import MODELS  # bench/ (test/bench/conftest.py)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_library_models_training_step_is_planned(name: str) -> None:
    example = MODELS[name](1)
    step = example.distribute("2d", strategy="greedy", quiet=True)
    (plan,) = step.plans
    # every parameter and optimizer leaf got a layout, the batch its split
    ins, _ = step.shardings()
    assert len(ins) == len(jax.tree.leaves(example.args))
    assert ins[-1].spec == jax.sharding.PartitionSpec("d0", None)
    assert len(plan.plan.signatures) > 100


def test_a_flax_linen_step_computes_what_jax_jit_computes() -> None:
    example = MODELS["flax_linen"](1)
    want = jax.jit(example.fn)(*example.args)
    got = example.distribute("dp", strategy="greedy", quiet=True)(*example.args)
    assert jax.tree.structure(got) == jax.tree.structure(want)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        # Adam(W)'s first step moves a parameter by about the learning rate
        # whatever its gradient's size: float reordering shows up to 2e-3.
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), atol=2e-3, rtol=0)


def test_a_scanned_flax_linen_step_computes_what_jax_jit_computes() -> None:
    """Blocks by ``linen.scan``: stacked parameters carried through a
    ``stablehlo.while`` (its body a loop's edges), laid out by the optimal
    strategy on a 2-D mesh."""
    example = MODELS["flax_linen_scan"](2)
    want = jax.jit(example.fn)(*example.args)
    step = example.distribute("2d", strategy="optimal", quiet=True)
    assert step.plans[0].plan.stats["proven"]
    got = step(*example.args)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), atol=2e-3, rtol=0)


def test_free_parameters_of_a_flax_stack_are_proven_through_its_layers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Free parameters: the 2-hop window's middle copy misleads the plan
    (a 22% gap to the bound); the 4-hop window's, with the first and last
    copies solved with the rest, meets the bound, and the plan costs what
    the whole core's LP finds."""
    from sbpc.propagation.driver import STRATEGIES
    from sbpc.propagation.optimal import Optimal

    example = MODELS["flax_linen"](3)
    # the optimal strategy's own solve, once, of the step as it was written
    # for (its state free: tied, the 2-hop window proves it already)
    plain = {"cost_model": "combine=0,overhead=0", "tie_state": False}
    clustered = example.distribute("2d", strategy="optimal", quiet=True, **plain)
    stats = clustered.plans[0].plan.stats
    assert stats["cluster"] == "proven", stats
    assert stats["cluster_window_hops"] > 2
    # what the narrower window left says nothing of the proven plan
    assert "cluster_gap" not in stats and "cluster_why" not in stats
    monkeypatch.setitem(STRATEGIES, Optimal.name, Optimal(cluster=False))
    whole = example.distribute("2d", strategy="optimal", quiet=True, **plain)
    assert stats["objective"] == pytest.approx(
        whole.plans[0].plan.stats["objective"], rel=1e-7
    )


@pytest.mark.parametrize(
    ("name", "strategy"), [("flax_nnx", "bfs"), ("equinox", "greedy")]
)
def test_every_buffer_fenced_a_library_step_still_computes_what_jax_jit_computes(
    name: str, strategy: str
) -> None:
    """Order fences on every stored buffer (``fence_bytes=1``, far more
    than the default writes) on a 2-D mesh: the emitted program holds
    them and its numbers are still ``jax.jit``'s."""
    example = MODELS[name](1)
    want = jax.jit(example.fn)(*example.args)
    step = example.distribute("2d", strategy=strategy, quiet=True, fence_bytes=1)
    assert step.plans[0].plan.stats["order_fences"] > 0
    got = step(*example.args)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), atol=2e-3, rtol=0)
