"""The Llama-3/Mixtral-shaped decoders: published sizes, and a tiny step runs."""

import os
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest
from models import llama

import sbpc.jax as sj


def assert_close(got, want) -> None:
    """Every leaf of ``got`` within bf16's tolerance of ``want``'s."""
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(
            np.asarray(g, np.float32), np.asarray(w, np.float32), rtol=2e-2, atol=2e-2
        )


@pytest.mark.parametrize(
    ("name", "billions"),
    [("llama3-8b", 8.03), ("llama3-70b", 70.55), ("mixtral-8x7b", 46.70)],
)
def test_parameter_counts_are_the_published_ones(name: str, billions: float) -> None:
    cfg = llama.CONFIGS[name]
    assert llama.parameter_count(cfg) / 1e9 == pytest.approx(billions, abs=0.01)


def test_abstract_arguments_allocate_nothing_and_match_the_shapes() -> None:
    params, opt, tokens, targets = llama.abstract_train_args(llama.LLAMA3_70B)
    assert params["layers"][0]["wk"].shape == (8192, 1024)  # 8 kv heads of 128
    assert params["embed"].dtype == np.dtype("bfloat16")
    assert opt["m"]["head"].dtype == np.float32
    assert tokens.shape == targets.shape == (64, 8192)


def test_is_shape_picks_the_shape_tuples_of_the_parameter_tree() -> None:
    """``is_shape`` is the ``is_leaf`` that ``bench/accelerator_check.py``
    flattens ``param_shapes`` with: a shape tuple is a leaf, a layer's dict
    or the layers' list is not."""
    cfg = llama.LLAMA3_8B
    shapes = llama.param_shapes(cfg)
    leaves = jax.tree.leaves(shapes, is_leaf=llama.is_shape)
    # embed, norm, head and nine per layer, each a whole shape (not its ints)
    assert len(leaves) == 3 + 9 * cfg.layers
    assert leaves[0] == (cfg.vocab, cfg.dim)
    assert not llama.is_shape(shapes["layers"]) and not llama.is_shape([1, 2])


@pytest.mark.parametrize("name", ["llama3-8b", "mixtral-8x7b"])
def test_tiny_step_lowers_with_bf16_algorithms_and_learns(name: str) -> None:
    cfg = llama.CONFIGS[name].tiny()
    step = jax.jit(llama.train_step(cfg))
    args = llama.train_args(cfg)
    assert "algorithm = <lhs_precision_type = bf16" in step.lower(*args).as_text()
    loss0, params, opt = step(*args)
    loss1, _, _ = step(params, opt, *args[2:])
    assert np.isfinite(float(loss0)) and float(loss1) < float(loss0)


def test_tiny_step_distributed_equals_jax_jit() -> None:
    """The bf16 step, attention through ``jax.nn.dot_product_attention``
    (its products carry an algorithm), planned and run on a 2x4 mesh."""
    cfg = llama.CONFIGS["llama3-8b"].tiny()
    args = llama.train_args(cfg)
    want = jax.jit(llama.train_step(cfg))(*args)
    step = sj.distribute(llama.train_step(cfg), *args, mesh=(2, 4))
    assert "DotAlgorithmPreset.BF16_BF16_F32" in step.source
    assert_close(step(*args), want)


def test_scanned_layers_stack_the_weights_and_compute_the_unrolled_numbers() -> None:
    """MaxText's ``scan_layers``: one stacked array per weight, the blocks run
    by ``lax.scan`` and recomputed in the backward pass; the same loss and
    updates as the unrolled step on the same weights."""
    cfg = llama.CONFIGS["llama3-8b"].tiny(layers=3)
    scanned = cfg.with_(scan_layers=True)
    assert llama.param_shapes(scanned)["layers"]["w1"] == (3, cfg.dim, cfg.hidden)
    assert llama.parameter_count(scanned) == llama.parameter_count(cfg)
    lowered = jax.jit(llama.train_step(scanned)).lower(*llama.train_args(scanned))
    assert lowered.as_text().count("stablehlo.while") == 2  # forward, backward
    loss, params, _ = jax.jit(llama.train_step(scanned))(*llama.train_args(scanned))
    want, unrolled, _ = jax.jit(llama.train_step(cfg))(*llama.train_args(cfg))
    np.testing.assert_allclose(float(loss), float(want), rtol=1e-2)
    np.testing.assert_allclose(
        np.asarray(params["layers"]["wq"][1], np.float32),
        np.asarray(unrolled["layers"][1]["wq"], np.float32),
        atol=2e-2,
    )


@pytest.mark.parametrize(
    ("name", "strategy"),
    [
        ("llama3-8b", "optimal"),
        ("llama3-8b", "greedy"),
        ("llama3-8b", "bfs"),
        ("mixtral-8x7b", "optimal"),
    ],
)
def test_scanned_step_distributed_equals_jax_jit(name: str, strategy: str) -> None:
    """The scanned step (one block in a ``while`` body, run every layer)
    planned by each strategy and run on a 2x4 mesh equals ``jax.jit``."""
    cfg = llama.CONFIGS[name].tiny(layers=3).with_(scan_layers=True)
    args = llama.train_args(cfg)
    want = jax.jit(llama.train_step(cfg))(*args)
    step = sj.distribute(llama.train_step(cfg), *args, mesh=(2, 4), strategy=strategy)
    assert "while_loop" in step.source
    assert_close(step(*args), want)


_RUN_64 = """
import importlib.util, os, sys
import jax, numpy as np
sys.path.insert(0, {models!r})
from models import llama
assert len(jax.devices()) == 64, jax.devices()
spec = importlib.util.spec_from_file_location("planned", {module!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
cfg = llama.CONFIGS["llama3-8b"].tiny(batch={batch}).with_(scan_layers={scan})
args = jax.tree.leaves(llama.train_args(cfg))
got = module.logical(module.build()(*module.put_args(*args)))
want = jax.tree.leaves(jax.jit(llama.train_step(cfg))(*llama.train_args(cfg)))
assert len(got) == len(want)
worst = max(
    float(np.max(np.abs(np.asarray(g, np.float32) - np.asarray(w, np.float32))))
    for g, w in zip(got, want)
)
print("worst", worst)
sys.exit(0 if worst < 2e-2 else 1)
"""


@pytest.mark.parametrize("scan", [False, True])
def test_module_planned_for_64_devices_runs_on_64_and_equals_jax_jit(
    tmp_path, scan: bool
) -> None:
    """Planned here without the devices (an 8 x 8 mesh of abstract arrays),
    the emitted module runs unchanged in a process that has 64 devices;
    ``scan``: the blocks in a ``while`` loop (MaxText's ``scan_layers``)."""
    cfg = llama.CONFIGS["llama3-8b"].tiny(batch=16).with_(scan_layers=scan)
    planned = sj.plan(
        llama.train_step(cfg),
        *llama.abstract_train_args(cfg),
        mesh={"data": 8, "model": 8},
        cost_model="h100-sxm",
    )
    assert "MESH_SHAPE = (8, 8)" in planned.source
    module = tmp_path / "planned.py"
    module.write_text(planned.source)
    models = str(Path(llama.__file__).resolve().parents[1])
    script = _RUN_64.format(
        models=models, module=str(module), batch=cfg.batch, scan=scan
    )
    env = dict(os.environ)
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=64"
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "worst" in done.stdout
