"""Training steps under a memory budget (issue 32): the optimal strategy's
memory price (``sbpc/propagation/solver/memory_price.py``) finds plans that
store parameters or optimizer state split (ZeRO/FSDP storage), their
compiled ``memory_analysis()`` is under the budget, and they compute what
``jax.jit`` of the original computes.  8 simulated CPU devices, the batch
split over them, parameters and state free; the budget is half the
replicated footprint: the peak of the plan that takes and returns every
parameter and moment replicated (GPT 13.1 MiB, flax 7.2 MiB per device)."""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import numpy as np
import pytest
from models import EXAMPLES

import sbpc.jax

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from library_models import flax_linen

INS = (None, None, "[S(0)]", "[S(0)]")


def compiled_bytes(d: sbpc.jax.Distributed, args) -> int:
    m = d.step.lower(*d.place(*args)).compile().memory_analysis()
    return (
        m.argument_size_in_bytes
        + m.output_size_in_bytes
        - m.alias_size_in_bytes
        + m.temp_size_in_bytes
    )


def split_state(shardings, n: int) -> int:
    """How many of the first ``n`` arguments (parameters, optimizer state)
    are stored split."""
    specs = [getattr(s, "spec", s) for s in shardings[:n]]  # a PartitionSpec
    return sum(any(axis is not None for axis in spec) for spec in specs)


@pytest.mark.parametrize("name", ["gpt", "flax_linen"])
def test_a_training_step_fits_half_its_replicated_memory(name: str) -> None:
    example = EXAMPLES["gpt_train"]() if name == "gpt" else flax_linen(1)
    fn, args = example.fn, example.args
    n_state = len(jax.tree.leaves(args[:2]))
    options = dict(mesh=8, strategy="optimal", quiet=True)
    state = jax.tree.map(lambda _: "[B]", args[:2])
    replicated = sbpc.jax.plan(
        fn, *args, in_layouts=(*state, *INS[2:]), out_layouts=("[B]", *state),
        **options,
    )  # fmt: skip
    budget = replicated.peak_memory / 2
    d = sbpc.jax.distribute(fn, *args, in_layouts=INS, memory_budget=budget, **options)
    assert d.peak_memory <= budget
    assert split_state(d.shardings()[0], n_state) > 0  # ZeRO/FSDP storage
    assert compiled_bytes(d, args) <= budget
    want = jax.tree.leaves(jax.jit(fn)(*args))
    got = d.step(*d.flatten(*args))
    # flax's attention key bias has a zero gradient up to rounding, so
    # AdamW's normalised update of it is rounding noise of the learning
    # rate's size (1e-3): the tolerance test/bench/test_library_models uses
    atol = 1e-5 if name == "gpt" else 2e-3
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=atol)


def test_a_library_step_under_its_free_plans_peak_is_priced_and_crossed() -> None:
    """Below the peak of the plan made without a budget, the flax decoder's
    AdamW step takes the memory price's path, its plans crossed in the
    budgeted program (``crossover.py``): the plan fits, says what the
    crossover did, and computes what ``jax.jit`` computes."""
    example = flax_linen(1)
    fn, args = example.fn, example.args
    options = dict(mesh=8, strategy="optimal", quiet=True)
    free = sbpc.jax.plan(fn, *args, in_layouts=INS, **options)
    budget = 0.6 * free.peak_memory
    d = sbpc.jax.distribute(fn, *args, in_layouts=INS, memory_budget=budget, **options)
    stats = d.plans[0].plan.stats
    assert "a memory price (not proven optimal)" in stats["status"]
    assert "free nodes" in stats["memory_price_crossover"]
    # Planned, not compiled: XLA:CPU, not the compiler such plans meet
    # (docs/memory.md), compiles this one 5% over the budget; not traced.
    assert d.peak_memory <= budget
    want = jax.tree.leaves(jax.jit(fn)(*args))
    got = d.step(*d.flatten(*args))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=2e-3)
