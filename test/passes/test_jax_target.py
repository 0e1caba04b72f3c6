"""``-t jax`` end to end: the JAX-exported programs, sharded three ways and
compiled with each strategy, run as emitted ``shard_map`` modules on 8
simulated devices and give the numbers of ``jax.jit`` of the original
functions (and of the numpy simulator)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

from sbpc.jax_backend.line_templates import LineTemplates
from sbpc.passes.bridge.program import main_function, program_of
from sbpc.passes.jax_target import jax_source
from sbpc.passes.pipeline import parse_module, run_passes
from sbpc.simulator.execute import simulate

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

# Argument layouts on a 2x4 mesh: data parallel, Megatron tensor parallel, 2-D.
LAYOUTS = {
    "mlp": {
        "dp": {0: "[S(0), B]"},
        "tp": {1: "[B, S(1)]", 3: "[B, S(0)]"},
        "2d": {0: "[S(0), B]", 1: "[B, S(1)]", 3: "[B, S(0)]"},
    },
    "transformer_block": {
        "dp": {0: "[S(0), B]"},
        "tp": {
            3: "[B, S(1)]",
            4: "[B, S(1)]",
            5: "[B, S(1)]",
            6: "[B, S(0)]",
            9: "[B, S(1)]",
            11: "[B, S(0)]",
        },
        "2d": {0: "[S(0), S(1)]", 9: "[B, S(1)]", 11: "[B, S(0)]"},
    },
    "transformer_train_step": {
        "dp": {0: "[S(0), B]", 1: "[S(0), B]"},
        "tp": {10: "[B, S(1)]", 12: "[B, S(0)]"},
        "2d": {0: "[S(0), B]", 1: "[S(0), B]", 10: "[B, S(1)]", 12: "[B, S(0)]"},
    },
    "train_step": {
        "dp": {4: "[S(0), B]", 5: "[S(0), B]"},
        "tp": {0: "[B, S(1)]", 2: "[B, S(0)]"},
        "2d": {4: "[S(0), B]", 5: "[S(0), B]", 0: "[B, S(1)]"},
    },
}
CASES = [
    (name, layout, strategy)
    for name in LAYOUTS
    for layout in LAYOUTS[name]
    for strategy in ("greedy", "bfs", "optimal")
]


def _export_module():
    spec = importlib.util.spec_from_file_location(
        "export_stablehlo", EXAMPLES / "export_stablehlo.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXPORT = _export_module()


def _inputs(name: str, rng: np.random.Generator) -> list[np.ndarray]:
    out = []
    for s in EXPORT.PROGRAMS[name][1]():
        if np.issubdtype(s.dtype, np.integer):
            out.append(rng.integers(0, EXPORT.CLASSES, size=s.shape).astype(s.dtype))
        else:
            out.append((rng.standard_normal(s.shape) * 0.5).astype(s.dtype))
    return out


def _example(name: str):
    return parse_module((EXAMPLES / "stablehlo" / f"{name}.mlir").read_text())


@pytest.mark.parametrize("name", ["train_step", "transformer_train_step"])
def test_line_templates_leave_the_emitted_program_byte_identical(
    name: str, monkeypatch: pytest.MonkeyPatch, distribute
) -> None:
    """``sbpc.jax_backend.line_templates`` writes what the emitter writes."""
    module = distribute(_example(name), (2, 4), LAYOUTS[name]["2d"], "greedy")
    templated = jax_source(module)
    monkeypatch.setattr(
        LineTemplates, "lines", lambda self, key, names, write: write(list(names))
    )
    assert templated == jax_source(module)


@pytest.mark.parametrize("name, layout, strategy", CASES)
def test_sharded_program_matches_jax_jit(
    name, layout, strategy, tmp_path, load_module, distribute
) -> None:
    module = distribute(_example(name), (2, 4), LAYOUTS[name][layout], strategy)
    emitted = load_module(
        jax_source(module), tmp_path / f"{name}_{layout}_{strategy}.py"
    )
    rng = np.random.default_rng(11)
    args = _inputs(name, rng)
    fn = EXPORT.PROGRAMS[name][0]
    want = jax.jit(fn)(*args)
    want = [np.asarray(w) for w in (want if isinstance(want, tuple) else (want,))]
    got = emitted.logical(emitted.build()(*emitted.put_args(*args)))
    simulated = simulate(program_of(module, main_function(module)), args, rng)
    assert len(got) == len(want) == len(simulated)
    for g, w, s in zip(got, want, simulated, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(s, w, rtol=1e-4, atol=1e-4)


def test_sbpc_opt_emits_a_runnable_module(tmp_path) -> None:
    """The README's command line: the emitted file checks itself (exit 0)."""
    out = tmp_path / "mlp.py"
    bin_dir = Path(sys.executable).parent
    subprocess.run(
        [
            str(bin_dir / "sbpc-opt"),
            str(EXAMPLES / "mlp_annotated.mlir"),
            "-p",
            "sbp-inline,sbp-propagate,sbp-lower-boxing",
            "-t",
            "jax",
            "-o",
            str(out),
        ],
        check=True,
    )
    proc = subprocess.run(
        [sys.executable, str(out)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok" in proc.stdout


@pytest.mark.parametrize("name, layout", [(n, k) for n in LAYOUTS for k in LAYOUTS[n]])
def test_optimal_is_never_worse_than_greedy_or_bfs(
    name, layout, tmp_path, distribute
) -> None:
    """On every test program the optimal plan's modeled cost is the lowest."""
    import json

    totals = {}
    for strategy in ("greedy", "bfs", "optimal"):
        report = tmp_path / f"{strategy}.json"
        options = f' report="{report}" report_format=json'
        distribute(_example(name), (2, 4), LAYOUTS[name][layout], strategy, options)
        totals[strategy] = json.loads(report.read_text())["totals"]
    best = totals["optimal"]["time"]
    assert best <= totals["greedy"]["time"] * (1 + 1e-9)
    assert best <= totals["bfs"]["time"] * (1 + 1e-9)
    for t in totals.values():
        assert t["peak_memory_per_device"] > 0 and t["bytes"] >= 0


def test_lit_examples_run_through_jax(lit_example, tmp_path, load_module) -> None:
    """The FileCheck examples, emitted and run: JAX == simulator == unsharded."""
    from xdsl.dialects import func

    from sbpc.simulator.execute import evaluate_whole

    path, spec = lit_example
    for c, chunk in enumerate(path.read_text().split("// -----")):
        module = parse_module(chunk)
        run_passes(module, spec)
        for f in [op for op in module.ops if isinstance(op, func.FuncOp)]:
            name = f.sym_name.data
            program = program_of(module, f)
            emitted = load_module(
                jax_source(module, name), tmp_path / f"m{c}_{name}.py"
            )
            rng = np.random.default_rng(5)
            args = [
                rng.integers(0, 2, t.shape).astype(np.int32)
                if t.element == "i32"  # e.g. a case index
                else rng.standard_normal(t.shape).astype(np.float32)
                for t in (program.types[a.value] for a in program.args)
            ]
            want = evaluate_whole(program, args)
            got = emitted.logical(emitted.build()(*emitted.put_args(*args)))
            simulated = simulate(program, args, rng)
            for g, w, s in zip(got, want, simulated, strict=True):
                np.testing.assert_allclose(np.asarray(g), w, rtol=1e-4, atol=1e-4)
                np.testing.assert_allclose(s, w, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("hierarchy", [(8,), (2, 4), (2, 2, 2)])
def test_boxing_plans_run_through_jax(hierarchy, tmp_path, load_module) -> None:
    """A seeded sample of layout pairs per mesh: sbp-lower-boxing's plan,
    emitted as JAX, moves the numbers exactly as the simulator does."""
    import random

    from sbpc.algebra.sbp import format_nd_sbp
    from sbpc.algebra.tensor_type import TensorType
    from sbpc.boxing import planner as boxing

    tensor = TensorType((8, 16), "f32")
    layouts = boxing.candidate_layouts(tensor, hierarchy)
    pairs = random.Random(len(hierarchy)).sample(
        [(a, b) for a in layouts for b in layouts if a != b], 12
    )
    ranks = list(range(8))
    nested = (
        ranks
        if len(hierarchy) == 1
        else (
            [ranks[:4], ranks[4:]]
            if len(hierarchy) == 2
            else [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
        )
    )
    rng = np.random.default_rng(2)
    for k, (src, dst) in enumerate(pairs):
        text = (
            f"module attributes {{sbp.placement = #sbp.placement<cpu, {nested}>}} {{\n"
            f"  func.func @main(%a: tensor<8x16xf32> {{sbp.nd_sbp = #sbp.nd<{format_nd_sbp(src)}>}})"
            f" -> (tensor<8x16xf32> {{sbp.nd_sbp = #sbp.nd<{format_nd_sbp(dst)}>}}) {{\n"
            "    return %a : tensor<8x16xf32>\n  }\n}\n"
        )
        module = parse_module(text)
        run_passes(module, "sbp-lower-boxing")
        program = program_of(module, main_function(module))
        emitted = load_module(jax_source(module), tmp_path / f"pair{k}.py")
        x = rng.standard_normal((8, 16)).astype(np.float32)
        got = emitted.logical(emitted.build()(*emitted.put_args(x)))[0]
        assert any(True for _ in program.body), "the pair needs at least one step"
        np.testing.assert_allclose(np.asarray(got), x, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(
            simulate(program, [x], rng)[0], x, rtol=1e-5, atol=1e-5
        )
