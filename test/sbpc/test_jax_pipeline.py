"""``sbpc.jax.distribute(..., pipeline=sbpc.jax.Pipeline(...))`` on 8 simulated
devices: the GPT example's Adam step and a flax.linen decoder trained with
optax equal ``jax.jit`` of the unpipelined step, as 2 stages of 2x2 and 4
stages of 2, under GPipe and 1F1B (the same compiled tasks in two orders);
and each stage holds what its schedule says: fewer activations under 1F1B.
The whole matrix (both models, every strategy, 4 and 8 microbatches) is
``bench/pipeline_matrix.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import numpy as np
import pytest

import sbpc.jax
from sbpc.jax_pipeline import PipelineError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "bench"))

from models import gpt  # noqa: E402


def check(step: sbpc.jax.Distributed, fn, args, atol: float) -> None:
    """Both schedules' results equal jax.jit's."""
    want = jax.tree.leaves(jax.jit(fn)(*args))
    flat = step.flatten(*args)
    for schedule in ("gpipe", "1f1b"):
        got = step.step.with_schedule(schedule)(*flat)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(
                np.asarray(g), np.asarray(w), rtol=1e-4, atol=atol, err_msg=schedule
            )


@pytest.fixture(scope="module")
def gpt_2x2x2() -> sbpc.jax.Distributed:
    return sbpc.jax.distribute(
        gpt.train_step,
        *gpt.train_args(),
        mesh=((2, 2, 2), ("stage", "data", "model")),
        strategy="greedy",
        quiet=True,
        pipeline=sbpc.jax.Pipeline(stages=2, microbatches=8, schedule="1f1b"),
    )


def test_gpt_in_two_stages_equals_jit(gpt_2x2x2: sbpc.jax.Distributed) -> None:
    check(gpt_2x2x2, gpt.train_step, gpt.train_args(), atol=1e-5)
    ins, _ = gpt_2x2x2.shardings()
    meshes = {tuple(s.mesh.devices.flat) for s in ins}
    assert {tuple(d.id for d in m) for m in meshes} <= {(0, 1, 2, 3), (4, 5, 6, 7)}
    assert len(gpt_2x2x2.plans) == 2  # one plan per stage's placement


def test_a_pipelined_step_takes_no_order_fences() -> None:
    """A pipeline's order is its schedule's: even with every buffer large
    enough to fence (``fence_bytes=1``) its stages get none, and it equals
    jax.jit (fences in its stages broke the runtime's split)."""
    step = sbpc.jax.distribute(
        gpt.train_step,
        *gpt.train_args(),
        mesh=((2, 2, 2), ("stage", "data", "model")),
        strategy="greedy",
        quiet=True,
        fence_bytes=1,
        pipeline=sbpc.jax.Pipeline(stages=2, microbatches=2, schedule="gpipe"),
    )
    assert all("order_fences" not in p.plan.stats for p in step.plans)
    check(step, gpt.train_step, gpt.train_args(), atol=1e-5)


def test_1f1b_holds_fewer_activations_than_gpipe(
    gpt_2x2x2: sbpc.jax.Distributed,
) -> None:
    """8 microbatches on 2 stages: GPipe keeps all 8 in flight, 1F1B at most 2
    (stage 0) and 1 (stage 1): from the tasks' compiled memory_analysis
    along each schedule, and measured on the arrays a step holds."""
    run = gpt_2x2x2.step
    gpipe, onef = run.with_schedule("gpipe"), run.with_schedule("1f1b")
    compiled = list(zip(gpipe.memory(), onef.memory(), strict=True))
    for g, o in compiled:
        assert o["activations"] < g["activations"] and o["peak"] < g["peak"]
    # stage 0: 8 microbatches in flight against 2
    assert compiled[0][0]["activations"] > 3 * compiled[0][1]["activations"]
    flat = gpt_2x2x2.flatten(*gpt.train_args())
    held = list(zip(gpipe.held(*flat), onef.held(*flat), strict=True))
    assert all(o < g for g, o in held)


def test_gpt_in_four_stages_equals_jit() -> None:
    step = sbpc.jax.distribute(
        gpt.train_step,
        *gpt.train_args(),
        mesh=(4, 2),
        strategy="optimal",
        quiet=True,
        pipeline=sbpc.jax.Pipeline(stages=4, microbatches=4, schedule="gpipe"),
    )
    assert step.program.STAGES == 4 and len(step.plans) == 4
    check(step, gpt.train_step, gpt.train_args(), atol=1e-5)


def _flax_decoder_pipelined_equals_jit(layers: int) -> None:
    """2 stages of 2x2, 4 microbatches, bfs."""
    from library_models import MODELS

    example = MODELS["flax_linen"](layers)
    step = sbpc.jax.distribute(
        example.fn,
        *example.args,
        mesh=(2, 2, 2),
        strategy="bfs",
        quiet=True,
        pipeline=sbpc.jax.Pipeline(stages=2, microbatches=4),
    )
    # AdamW's first step moves a parameter by about the learning rate,
    # whatever its gradient's size: reordered sums show up to 2e-3.
    check(step, example.fn, example.args, atol=2e-3)


def test_a_flax_decoder_with_optax_equals_jit() -> None:
    """Two layers (4 stages of 2 and every strategy:
    ``bench/pipeline_matrix.py``)."""
    _flax_decoder_pipelined_equals_jit(2)


def test_plan_makes_the_pipelined_program_without_devices() -> None:
    shapes = jax.tree.map(
        lambda a: jax.ShapeDtypeStruct(np.shape(a), np.asarray(a).dtype),
        gpt.train_args(),
    )
    planned = sbpc.jax.plan(
        gpt.train_step,
        *shapes,
        mesh=((4, 16), ("stage", "data")),
        quiet=True,
        pipeline=sbpc.jax.Pipeline(stages=2, microbatches=2),
    )
    assert "STEPS_BY_SCHEDULE" in planned.source
    assert len(planned.plans) == 2
    assert planned.program.MESH_SHAPE == (4, 16)


def test_bad_pipelines_are_errors() -> None:
    with pytest.raises(PipelineError, match="stages must be a whole number"):
        sbpc.jax.Pipeline(stages=-1)
    with pytest.raises(PipelineError, match="unknown schedule 'zigzag'"):
        sbpc.jax.Pipeline(schedule="zigzag")
    args = gpt.train_args()
    with pytest.raises(sbpc.jax.SbpcError, match="3 stages do not divide"):
        sbpc.jax.plan(
            gpt.train_step, *args, mesh=(4, 2), pipeline=sbpc.jax.Pipeline(stages=3)
        )
    with pytest.raises(sbpc.jax.SbpcError, match=r"must be a sbpc\.jax\.Pipeline"):
        sbpc.jax.plan(gpt.train_step, *args, mesh=8, pipeline="gpipe")
    with pytest.raises(sbpc.jax.SbpcError, match="batch_argnums 7 is not"):
        sbpc.jax.plan(
            gpt.train_step,
            *args,
            mesh=(2, 4),
            pipeline=sbpc.jax.Pipeline(stages=2, batch_argnums=7),
        )


def test_auto_finds_a_pipeline_under_a_budget_no_single_stage_plan_fits() -> None:
    """Between what 2 stages of 8 microbatches need and what the best one
    stage needs, ``auto`` (stages and schedule searched) finds the pipeline.
    State untied: tied to the layouts greedy gives free parameters (``B``),
    the replicated state is most of every plan's memory and one stage
    needs no more than two."""
    shapes = jax.tree.map(
        lambda a: jax.ShapeDtypeStruct(np.shape(a), np.asarray(a).dtype),
        gpt.train_args(),
    )
    mesh = ((2, 2, 2), ("stage", "data", "model"))

    def planned(pipeline, budget=None):
        return sbpc.jax.plan(
            gpt.train_step,
            *shapes,
            mesh=mesh,
            strategy="greedy",
            quiet=True,
            pipeline=pipeline,
            memory_budget=budget,
            tie_state=False,
        )

    plain = planned(None).peak_memory
    costs = planned(sbpc.jax.Pipeline(1, 8, "1f1b")).pipeline  # both schedules
    one = min(costs.chosen.peak_memory, costs.other.peak_memory)
    two = planned(sbpc.jax.Pipeline(2, 8, "1f1b")).peak_memory
    assert two < one < plain
    budget = (one + two) / 2
    auto = planned(sbpc.jax.Pipeline(stages=0, microbatches=8, schedule="auto"), budget)
    assert auto.program.STAGES == 2 and auto.peak_memory <= budget
    table = auto.pipeline_search
    assert "* 2 stage(s) x 8 microbatch(es)" in table
    assert all(
        "over the budget" in line
        for line in table.splitlines()
        if "no pipeline" in line or "1 stage(s)" in line
    )


def mlp_step(w1, w2, x, y):
    def loss(w1, w2):
        return jax.numpy.mean((jax.numpy.tanh(x @ w1) @ w2 - y) ** 2)

    value, (g1, g2) = jax.value_and_grad(loss, (0, 1))(w1, w2)
    return value, w1 - 0.1 * g1, w2 - 0.1 * g2


def test_donated_weights_are_updated_in_place() -> None:
    """``donate_argnums``: each weight's buffer goes to the task that reads it
    last (its update, after the loop); the weights' layouts pinned, as for
    any donation (the update writes the layout it reads)."""
    rng = np.random.default_rng(0)
    args = [
        rng.standard_normal(s).astype(np.float32)
        for s in [(4, 4), (4, 2), (8, 4), (8, 2)]
    ]
    step = sbpc.jax.distribute(
        mlp_step,
        *args,
        mesh=((2, 2), ("stage", "data")),
        quiet=True,
        in_layouts=("[B, B]", "[B, B]", None, None),
        out_layouts=(None, "[B, B]", "[B, B]"),
        donate_argnums=(0, 1),
        pipeline=sbpc.jax.Pipeline(stages=2, microbatches=2),
    )
    placed = step.place(*args)
    got = step.step(*placed)
    assert placed[0].is_deleted() and placed[1].is_deleted()
    assert not placed[2].is_deleted()
    for g, w in zip(got, jax.jit(mlp_step)(*args), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-6)


def test_gathers_kept_before_the_loop(monkeypatch) -> None:
    """Ops kept before the loop (here every gather and scatter, whose row
    blocks could vary by microbatch) leave their constant-made operands to
    float into the tasks that read them; one the driver splits into
    microbatches must still be computed there (it had no producer: a
    KeyError in the runtime's split step)."""
    import sbpc.pipeline.microbatch as microbatch

    kept = microbatch._varies_over_time
    indexing = ("stablehlo.gather", "stablehlo.scatter")
    monkeypatch.setattr(
        microbatch,
        "_varies_over_time",
        lambda spec, sig, n: spec.name in indexing or kept(spec, sig, n),
    )
    _flax_decoder_pipelined_equals_jit(1)
