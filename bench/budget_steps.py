"""The steps that fit their memory budget only with recomputation or only
with FSDP's per-use gathers, compiled for 8 H100s this machine lacks.

    python bench/budget_steps.py            # needs jax-cuda12-plugin
    python bench/budget_steps.py --cpu      # 8 simulated CPUs only

XLA:CPU expands ``optimization_barrier`` first, so its ``memory_analysis``
shows neither saving (docs/memory.md).  XLA's GPU compiler keeps barriers:
``jax_only.deviceless_devices`` gives it H100s without a GPU.  The steps
are the tests' (``test/sbpc/test_jax_fsdp.py``: an MLP's SGD step under
half its replicated footprint; ``test/sbpc/test_jax_remat.py``: a residual
tanh stack under the mean of its peaks with and without recomputation),
each planned as the test plans it and beside the plans without the tool.
Per variant: the planned peak, the budget, and the compiled program's
bytes per device (argument + output - alias + temporaries; its
temporaries; its all-gathers) on the H100s and on 8 simulated CPUs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_ROOT / "examples"))  # test_jax_remat imports models
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ["JAX_PLATFORMS"] = "cpu"  # the CUDA plugin then makes topologies

from jax_only import (  # noqa: E402  (bench/)
    abstract_args,
    compiled_bytes,
    deviceless_devices,
    gathers,
    load_module,
)

MIB = 2**20


def _fsdp() -> list[tuple[str, object, float | None]]:
    """(variant, plan, budget) of test_jax_fsdp's step."""
    import sbpc.jax

    t = load_module(_ROOT / "test" / "sbpc" / "test_jax_fsdp.py", "test_jax_fsdp")
    ws, x = t.arguments()
    replicated = sbpc.jax.plan(
        t.step, ws, x, in_layouts=(["[B]"] * t.LAYERS, "[S(0)]"),
        out_layouts=["[B]"] * t.LAYERS, **t.OPTIONS,
    )  # fmt: skip
    budget = 0.5 * replicated.peak_memory
    free = sbpc.jax.plan(t.step, ws, x, in_layouts=t.FREE, **t.OPTIONS)
    per_use = sbpc.jax.plan(
        t.step, ws, x, in_layouts=t.FREE, memory_budget=budget, **t.OPTIONS
    )
    return [
        ("replicated", replicated, None),
        ("free", free, None),
        ("per-use", per_use, budget),
    ]


def _remat() -> list[tuple[str, object, float | None]]:
    """(variant, plan, budget) of test_jax_remat's step."""
    t = load_module(_ROOT / "test" / "sbpc" / "test_jax_remat.py", "test_jax_remat")
    plans = {r: t.planned(r) for r in ("none", "all")}
    budget = (plans["none"].peak_memory + plans["all"].peak_memory) / 2
    auto = t.planned("auto", budget)
    chosen = ",".join(map(str, auto.recomputed_layers)) or "none"
    return [
        ("none", plans["none"], None),
        ("all", plans["all"], None),
        (f"auto ({chosen})", auto, budget),
    ]


def _compiled(source: str, devices, path: Path) -> tuple[float, float, int]:
    """(bytes, temporaries, all-gathers) of ``source`` (written to ``path``)
    compiled on ``devices``."""
    path.write_text(source)
    program = load_module(path)
    mesh = program.make_mesh(devices)
    compiled = program.build(mesh).lower(*abstract_args(program, mesh)).compile()
    total, temp = compiled_bytes(compiled)
    return total, temp, gathers(compiled)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", action="store_true", help="no H100 columns")
    args = parser.parse_args(argv)
    import jax

    targets = None if args.cpu else deviceless_devices(8)
    cpus = jax.devices("cpu")
    print(
        f"jax {jax.__version__}; MiB per device; H100: 8 x"
        f" {targets[0].device_kind if targets else '-'} (no GPU), CPU: 8 simulated"
    )
    print(
        f"{'step':5} {'variant':11} {'planned':>8} {'budget':>8} {'H100':>8}"
        f" {'temp':>7} {'gathers':>7} {'CPU':>8} {'temp':>7} {'gathers':>7}"
    )
    scratch = Path(tempfile.mkdtemp(prefix="budget_steps_"))
    for step, rows in (("fsdp", _fsdp()), ("remat", _remat())):
        for variant, planned, budget in rows:
            path = scratch / f"{step}_{variant.split()[0].replace('-', '_')}.py"
            cells = [planned.peak_memory / MIB, (budget or 0) / MIB]
            line = f"{step:5} {variant:11} {cells[0]:8.3f} "
            line += f"{cells[1]:8.3f}" if budget else f"{'-':>8}"
            for devices in (targets, cpus):
                if devices is None:
                    line += f" {'-':>8} {'-':>7} {'-':>7}"
                    continue
                total, temp, n = _compiled(planned.source, devices, path)
                line += f" {total / MIB:8.3f} {temp / MIB:7.3f} {n:7}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
