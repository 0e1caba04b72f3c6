"""``remat=`` in ``sbpc.jax``: a training step's repeated layers recomputed
in the backward pass (``sbp-remat``, docs/memory.md), on 8 simulated devices.

A residual tanh stack whose activations (``batch x hidden``) dwarf its
weights fits a budget only when some layers are recomputed: ``auto`` picks
the fewest, the plan's modelled peak is under the budget, one layer fewer
is not, and the numbers equal ``jax.jit`` of the original step.  The GPT
example's Adam step with every layer recomputed equals ``jax.jit`` too.
A two-layer attention step recomputed under the ``dots`` policy (weight
products kept, scores and softmax recomputed) needs less than keeping
everything and no less than recomputing whole layers, and equals
``jax.jit``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import sbpc.jax
from sbpc.jax import SbpcError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

from models import gpt  # noqa: E402

BATCH, MODEL, HIDDEN, LAYERS = 256, 32, 1024, 4


def layer(x, w):
    return x + jnp.tanh(x @ w[0]) @ w[1]


def make_step(block):
    def loss(ws, x, y):
        for w in ws:
            x = block(x, w)
        return jnp.mean((x - y) ** 2)

    def step(ws, x, y):
        value, grads = jax.value_and_grad(loss)(ws, x, y)
        return value, jax.tree.map(lambda a, g: a - 0.1 * g, ws, grads)

    return step


step = make_step(layer)


def stack_args():
    rng = np.random.default_rng(0)

    def normal(*shape):
        return (rng.standard_normal(shape) * 0.1).astype(np.float32)

    ws = [(normal(MODEL, HIDDEN), normal(HIDDEN, MODEL)) for _ in range(LAYERS)]
    return ws, normal(BATCH, MODEL), normal(BATCH, MODEL)


def equal_jit(d: sbpc.jax.Distributed, fn, args, atol: float = 1e-5) -> None:
    want = jax.tree.leaves(jax.jit(fn)(*args))
    got = d.step(*d.flatten(*args))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=atol)


def planned(
    remat, budget: float | None = None, attention: bool = False
) -> sbpc.jax.Planned:
    """The tanh stack's step on 8 devices (``attention``: the attention
    step's on 2), planned greedily."""
    fn, args, mesh = (
        (attention_step, attention_args(), 2) if attention else (step, stack_args(), 8)
    )
    return sbpc.jax.plan(
        fn,
        *args,
        mesh=mesh,
        strategy="greedy",
        memory_budget=budget,
        quiet=True,
        remat=remat,
    )


@pytest.fixture(scope="module")
def peaks() -> dict[str, float]:
    return {r: planned(r).peak_memory for r in ("none", "all")}


def test_recomputing_every_layer_lowers_the_modelled_peak(peaks) -> None:
    # each layer keeps its tanh output (batch x hidden) for the backward
    saved = BATCH * HIDDEN * 4 / 8  # per device, the batch split 8 ways
    assert peaks["none"] - peaks["all"] >= (LAYERS - 1) * saved


def test_auto_recomputes_the_fewest_layers_that_fit(peaks) -> None:
    budget = (peaks["none"] + peaks["all"]) / 2
    d = sbpc.jax.distribute(
        step,
        *stack_args(),
        mesh=8,
        strategy="greedy",
        memory_budget=budget,
        quiet=True,
        remat="auto",
    )
    chosen = d.recomputed_layers
    assert 0 < len(chosen) < LAYERS
    assert chosen == tuple(range(len(chosen)))
    assert d.peak_memory <= budget
    fewer = ",".join(str(k) for k in chosen[:-1]) or "none"
    assert planned(fewer).peak_memory > budget
    last = chosen[-1]
    named = {0: "0", 1: "0, 1"}.get(last, f"0-{last}")  # runs of 3+ as ranges
    assert f"recomputed layers: {named} (policy full)" in d.report
    equal_jit(d, step, stack_args())
    # one barrier per recomputed layer reaches XLA (jax.checkpoint's way)
    text = d.step.lower(*d.place(*stack_args())).as_text()
    assert text.count("optimization_barrier") == len(chosen)


def test_auto_under_the_cost_models_memory_tries_counts_without_it(peaks) -> None:
    """With ``mem=`` as the budget, each count's trial propagation must not
    be held to it (greedy would refuse every count over it, optimal search
    a budget for it): auto then picks as under ``memory_budget``."""
    budget = (peaks["none"] + peaks["all"]) / 2
    under_mem = sbpc.jax.plan(
        step,
        *stack_args(),
        mesh=8,
        strategy="greedy",
        cost_model=f"mem={budget:.0f}",
        quiet=True,
        remat="auto",
    )
    chosen = under_mem.recomputed_layers
    assert 0 < len(chosen) < LAYERS
    assert chosen == planned("auto", budget).recomputed_layers


def test_auto_recomputes_nothing_when_the_plan_fits(peaks) -> None:
    assert planned("auto", peaks["none"] * 1.01).recomputed_layers == ()


def test_a_step_that_carries_remat_keeps_its_own() -> None:
    own = make_step(jax.checkpoint(layer))

    def source(remat: str) -> sbpc.jax.Planned:
        return sbpc.jax.plan(
            own, *stack_args(), mesh=8, strategy="greedy", quiet=True, remat=remat
        )

    kept, asked = source("none"), source("all")
    assert asked.recomputed_layers == ()
    barriers = asked.source.count("lax.optimization_barrier(")
    assert barriers == kept.source.count("lax.optimization_barrier(") > 0


def test_the_gpt_adam_step_with_every_layer_recomputed_equals_jit() -> None:
    args = gpt.train_args()
    d = sbpc.jax.distribute(
        gpt.train_step, *args, mesh=8, strategy="greedy", quiet=True, remat="all"
    )
    assert d.recomputed_layers == tuple(range(gpt.LAYERS))
    equal_jit(d, gpt.train_step, args)


@pytest.mark.parametrize(
    ("remat", "budget", "message"),
    [
        ("some", None, "layers must be none, all, auto or layer indices"),
        ("auto", None, "layers=auto needs a memory_budget"),
        ("7", None, "no layer 7 to recompute"),
        (("all", "some"), None, "policy must be full or dots, not 'some'"),
    ],
)
def test_bad_remat_options_are_errors(remat, budget, message) -> None:
    with pytest.raises(SbpcError, match=message):
        planned(remat, budget)


@pytest.mark.parametrize("strategy", ["bfs", "optimal"])
def test_recomputed_layers_equal_jit_under_every_strategy(strategy: str) -> None:
    """The rewrite runs before propagation: the other strategies plan the
    recomputed step too (2x4 mesh, every layout theirs to choose)."""
    step, args = make_step(layer), stack_args()
    d = sbpc.jax.distribute(
        step, *args, mesh=(2, 4), strategy=strategy, quiet=True, remat="all"
    )
    assert d.recomputed_layers == tuple(range(LAYERS))
    equal_jit(d, step, args)


# A two-layer attention step whose scores (batch x seq x seq) dwarf its
# projections (batch x seq x width), on 2 devices.
ATT_BATCH, SEQ, WIDTH, QK = 4, 32, 4, 8


def attention(x, w):
    wq, wk, wv = w
    q, k, v = x @ wq, x @ wk, x @ wv
    p = jax.nn.softmax(jnp.einsum("bqd,bkd->bqk", q, k), axis=-1)
    return x + jnp.einsum("bqk,bkd->bqd", p, v)


attention_step = make_step(attention)


def attention_args():
    rng = np.random.default_rng(1)

    def normal(*shape):
        return (rng.standard_normal(shape) * 0.5).astype(np.float32)

    ws = [
        (normal(WIDTH, QK), normal(WIDTH, QK), normal(WIDTH, WIDTH)) for _ in range(2)
    ]
    return ws, normal(ATT_BATCH, SEQ, WIDTH), normal(ATT_BATCH, SEQ, WIDTH)


@pytest.fixture(scope="module")
def attention_plans() -> dict[str, sbpc.jax.Planned]:
    return {r: planned(r, attention=True) for r in ("none", "all")}


def test_the_dots_policy_recomputes_attention_but_not_weight_products(
    attention_plans,
) -> None:
    d = sbpc.jax.distribute(
        attention_step,
        *attention_args(),
        mesh=2,
        strategy="greedy",
        quiet=True,
        remat="dots",
    )
    assert d.recomputed_layers == (0, 1)
    assert d.remat_policies == ("dots", "dots")
    assert "recomputed layers: 0, 1 (policy dots)" in d.report
    equal_jit(d, attention_step, attention_args())
    kept, whole = attention_plans["none"], attention_plans["all"]
    # each layer keeps q, k and v, not its scores: between the two
    assert whole.peak_memory <= d.peak_memory < kept.peak_memory

    # dots clones the products with batch dimensions (the scores, their
    # product with v), full also the 3 weight products of each layer
    def products(p: sbpc.jax.Planned) -> int:
        return p.mlir.count("stablehlo.dot_general")

    assert products(kept) < products(d) == products(whole) - 6
    text = d.step.lower(*d.place(*attention_args())).as_text()
    assert text.count("optimization_barrier") == 2


def test_auto_with_dots_tries_it_before_whole_layers(attention_plans) -> None:
    """Under a budget that ``dots`` on every layer meets, auto recomputes
    no layer whole, where ``full``'s auto must."""
    dots = planned("dots", attention=True).peak_memory
    kept = attention_plans["none"].peak_memory
    budget = (dots + kept) / 2
    fine = planned(("auto", "dots"), budget, attention=True)
    assert fine.recomputed_layers and set(fine.remat_policies) == {"dots"}
    assert fine.peak_memory <= budget
    whole = planned("auto", budget, attention=True)
    assert set(whole.remat_policies) == {"full"}
    # recomputing less, its modelled step is the shorter
    assert fine.step_time < whole.step_time
