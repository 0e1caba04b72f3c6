"""``sbp-pipeline`` end to end on a small MLP step: the emitted schedule's
numbers equal ``jax.jit`` of the step, for one stage (microbatching alone)
and two, under GPipe and 1F1B."""

from __future__ import annotations

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from sbpc.jax_plan import load_program  # noqa: E402
from sbpc.passes.jax_target import jax_source  # noqa: E402
from sbpc.passes.pipeline import parse_module, run_passes  # noqa: E402

SHAPES = [(4, 4), (4, 2), (8, 4), (8, 2)]  # w1, w2, x, y


def step(w1, w2, x, y):
    def loss(w1, w2):
        h = jnp.tanh(x @ w1)
        return jnp.mean((h @ w2 - y) ** 2)

    value, (g1, g2) = jax.value_and_grad(loss, (0, 1))(w1, w2)
    return value, w1 - 0.1 * g1, w2 - 0.1 * g2


def module_text(mesh: str) -> str:
    args = [np.zeros(s, np.float32) for s in SHAPES]
    text = jax.jit(step).lower(*args).as_text()
    text = re.sub(r" \{jax.result_info = \"[^\"]*\"\}", "", text)
    text = re.sub(r"module @\w+ attributes \{[^}]*\}", "module", text)
    return text.replace(
        "module {",
        f"module attributes {{sbp.placement = #sbp.placement<cpu, {mesh}>}} {{",
    )


def pipelined(mesh: str, options: str, strategy: str = "greedy"):
    module = parse_module(module_text(mesh))
    run_passes(
        module,
        f"sbp-pipeline{{{options}}},sbp-propagate{{strategy={strategy}}},"
        "sbp-lower-boxing",
    )
    return load_program(jax_source(module), "mlp_step")


@pytest.mark.parametrize(
    ("mesh", "options", "strategy"),
    [
        ("[0, 1, 2, 3]", "microbatches=2", "greedy"),
        ("[[0, 1], [2, 3]]", "stages=2 microbatches=2 schedule=gpipe", "optimal"),
        ("[[0, 1], [2, 3]]", "stages=2 microbatches=4 schedule=1f1b", "bfs"),
    ],
)
def test_the_pipelined_step_equals_jit(mesh: str, options: str, strategy: str) -> None:
    program = pipelined(mesh, options, strategy)
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    got = program.build()(*args)
    want = jax.jit(step)(*args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-6)
    assert program.self_check() == 0  # against its own unsharded reference


def test_the_module_names_its_schedule() -> None:
    program = pipelined("[[0, 1], [2, 3]]", "stages=2 microbatches=2 schedule=gpipe")
    assert (program.STAGES, program.MICROBATCHES, program.SCHEDULE) == (2, 2, "gpipe")
    loop = [s[1:] for s in program.STEPS if s[0] == "task" and s[2] is not None]
    # GPipe: stage 0 runs both forwards before its first backward.
    s0 = [(name, i) for name, i in loop if name.startswith("s0")]
    assert s0 == [("s0.fwd", 0), ("s0.fwd", 1), ("s0.bwd", 0), ("s0.bwd", 1)]
    assert {t.name for t in program.TASKS} >= {"s0.fwd", "s0.bwd", "s1.fwd", "s1.bwd"}
