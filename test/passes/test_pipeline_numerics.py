"""The whole pipeline keeps the numbers: propagate + box, then simulate.

Each JAX-exported program is annotated with a placement and some input
layouts, compiled with each strategy, read back as a ``Program`` and run on
virtual devices by the numpy simulator; the logical results must equal the
unsharded program's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sbpc.algebra.tensor_type import NUMPY_DTYPE
from sbpc.passes.bridge.program import main_function, program_of
from sbpc.passes.pipeline import parse_module, run_passes
from sbpc.simulator.execute import evaluate_whole, simulate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "stablehlo"

# (program, argument layouts on a 2x4 mesh): data parallel, tensor parallel, 2-D.
CASES = {
    "mlp-dp": ("mlp", {0: "[S(0), B]"}),
    "mlp-tp": ("mlp", {1: "[B, S(1)]", 3: "[B, S(0)]"}),
    "mlp-2d": ("mlp", {0: "[S(0), B]", 1: "[B, S(1)]"}),
    "transformer-dp": ("transformer_block", {0: "[S(0), B]"}),
    "transformer-2d": ("transformer_block", {0: "[S(0), S(1)]"}),
    "train-dp": ("train_step", {0: "[S(0), B]", 1: "[S(0), B]"}),
    "train-tp": ("train_step", {2: "[B, S(1)]"}),
}


def _inputs(program, rng: np.random.Generator) -> list[np.ndarray]:
    out = []
    for arg in program.args:
        t = program.types[arg.value]
        dtype = NUMPY_DTYPE[t.element]
        if dtype.startswith("int"):
            out.append(rng.integers(0, 4, size=t.shape).astype(dtype))
        else:
            out.append((rng.standard_normal(t.shape) * 0.5).astype(dtype))
    return out


def _assert_simulation_matches(program, seed: int) -> None:
    """The sharded simulation computes what the unsharded program does."""
    rng = np.random.default_rng(seed)
    inputs = _inputs(program, rng)
    want = evaluate_whole(program, inputs)
    got = simulate(program, inputs, rng)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("case", sorted(CASES))
def test_pipeline_matches_unsharded(case: str, strategy: str, distribute) -> None:
    name, layouts = CASES[case]
    module = parse_module((EXAMPLES / f"{name}.mlir").read_text())
    distribute(module, (2, 4), layouts, strategy)
    _assert_simulation_matches(program_of(module, main_function(module)), seed=7)


def test_lit_examples_compute_the_same_numbers(lit_example) -> None:
    """The FileCheck examples' boxed programs are also right numerically."""
    path, spec = lit_example
    text = path.read_text()
    for chunk in text.split("// -----"):
        module = parse_module(chunk)
        run_passes(module, spec)
        from xdsl.dialects import func

        for f in [op for op in module.ops if isinstance(op, func.FuncOp)]:
            _assert_simulation_matches(program_of(module, f), seed=3)
