"""``bench/gpu_mesh_memory.py``: ``emit`` then ``run --cpu`` of a CPU-sized
step on 8 simulated devices (the GPU's mock client is not here; the table is
what is checked: each variant's planned, compiled and XLA's bytes, and the
compiled program's all-gathers); ``--deviceless``'s H100s where JAX's CUDA
plugin is installed, its message where it is not (the tests' case)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import gpu_mesh_memory  # bench/gpu_mesh_memory.py (test/bench/conftest.py)
import jax_only
import pytest


def test_each_variant_compiles_beside_xla_s_partitioner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--tiny", "--layers", "1", "--seq", "8", "--variants", "free", "fsdp"]
    gpu_mesh_memory.main(["emit", str(tmp_path), *args])
    facts = json.loads((tmp_path / "plan.json").read_text())
    assert facts["devices"] == 8 and set(facts["variants"]) == {"free", "fsdp"}
    # The pinned variant's module takes its parameters split over data.
    specs = {
        v: re.search(r"^IN_SPECS = (.*)$", (tmp_path / f"{v}.py").read_text(), re.M)[1]
        for v in ("free", "fsdp")
    }
    assert specs["fsdp"].count('"data"') > specs["free"].count('"data"') + 10
    capsys.readouterr()
    gpu_mesh_memory.main(["run", str(tmp_path), "--cpu"])
    out = capsys.readouterr().out
    rows = re.findall(r"^(free|fsdp) +([\d. ]+)\(", out, re.M)
    assert [r[0] for r in rows] == ["free", "fsdp"], out
    for name, cells in rows:
        planned, compiled, ratio, _, xla, _, vs_xla, gathers = map(float, cells.split())
        assert compiled > 0 and xla > 0, out
        assert gathers > 0 or name == "free", out  # fsdp gathers its parameters
        assert ratio == pytest.approx(planned / compiled, abs=0.01), out
        assert vs_xla == pytest.approx(compiled / xla, abs=0.01), out


def test_deviceless_devices_are_h100s_or_say_what_is_missing() -> None:
    try:
        import jax_plugins.xla_cuda12  # noqa: F401
    except ImportError:
        with pytest.raises(SystemExit, match="needs jax-cuda12-plugin=="):
            jax_only.deviceless_devices(8)
        return
    devices = jax_only.deviceless_devices(8)
    assert [d.id for d in devices] == list(range(8))
    assert {d.device_kind for d in devices} == {"NVIDIA H100 80GB HBM3"}


def test_a_2d_mesh_with_donated_state_compiles_the_emitted_module_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--model llama3-70b --model-axis 2 --donate``: a ``data`` x ``model``
    mesh, the state donated to the emitted module; ``--no-xla`` compiles
    it alone (XLA's cells are dashes)."""
    args = ["--tiny", "--layers", "1", "--seq", "8", "--variants", "remat"]
    args += ["--model", "llama3-70b", "--model-axis", "2", "--donate"]
    gpu_mesh_memory.main(["emit", str(tmp_path), *args])
    facts = json.loads((tmp_path / "plan.json").read_text())
    assert facts["mesh"] == {"data": 4, "model": 2}
    assert facts["config"]["kv_heads"] < facts["config"]["heads"]  # GQA, as 70B
    assert len(facts["donate"]) > 10  # every parameter and moment
    capsys.readouterr()
    gpu_mesh_memory.main(["run", str(tmp_path), "--cpu", "--no-xla"])
    out = capsys.readouterr().out
    assert "mesh {'data': 4, 'model': 2}" in out, out
    row = re.search(
        r"^remat +([\d.]+) +([\d.]+) +([\d.]+) +[\d.]+ +- +- +- ", out, re.M
    )
    assert row is not None, out
    planned, compiled, ratio = map(float, row.groups())
    assert compiled > 0 and ratio == pytest.approx(planned / compiled, abs=0.01)
    with pytest.raises(SystemExit, match="does not divide"):
        gpu_mesh_memory.main(["emit", str(tmp_path), *args[:-3], "--model-axis", "3"])


def test_fence_bytes_reaches_the_plan(tmp_path: Path) -> None:
    """``--fence-bytes``: a tiny step fenced at 1 byte carries order fences
    (barriers in its module, which the unfenced one lacks)."""
    args = ["--tiny", "--layers", "1", "--seq", "8", "--variants", "free"]
    barriers = {}
    for fence in ("1", "0"):
        out = tmp_path / fence
        gpu_mesh_memory.main(["emit", str(out), *args, "--fence-bytes", fence])
        assert json.loads((out / "plan.json").read_text())["fence_bytes"] == float(
            fence
        )
        barriers[fence] = (out / "free.py").read_text().count("optimization_barrier(")
    assert barriers["1"] > barriers["0"]


def test_scanned_layers_emit_one_block_in_a_loop_and_compile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--scan-layers``: the step as MaxText writes it (stacked weights, the
    blocks in a ``while`` loop), planned, recorded in ``plan.json`` and
    compiled beside XLA's partitioner from that record."""
    args = ["--tiny", "--layers", "3", "--seq", "8", "--variants", "free"]
    gpu_mesh_memory.main(["emit", str(tmp_path), *args, "--scan-layers"])
    facts = json.loads((tmp_path / "plan.json").read_text())
    assert facts["config"]["scan_layers"] is True
    assert "while_loop" in (tmp_path / "free.py").read_text()
    capsys.readouterr()
    gpu_mesh_memory.main(["run", str(tmp_path), "--cpu"])
    out = capsys.readouterr().out
    row = re.search(r"^free +([\d. ]+)\(", out, re.M)
    assert row is not None, out
    planned, compiled, *_ = map(float, row[1].split())
    assert planned > 0 and compiled > 0, out
