"""The main job: export a JAX training step, distribute it with sbpc, run it.

1. Export the transformer training step of ``export_stablehlo.py``
   (``value_and_grad`` of a squared-error loss through a transformer block:
   causal multi-head attention, layernorms, MLP; plus an SGD update) to
   StableHLO with ``jax.jit(...).lower``.
2. Annotate it for a 2x4 mesh: the batch (x, target) split over mesh axis
   d0, the MLP weights Megatron-style over d1 (2-D parallelism).
3. Compile with ``sbp-inline``, ``sbp-propagate`` (each strategy) and
   ``sbp-lower-boxing``; print each plan's modeled communication.
4. Emit the JAX ``shard_map`` module (``-t jax``), run it on 8 simulated CPU
   devices, check it against ``jax.jit`` of the original function, and print
   compile and step timings.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import importlib.util
import statistics
import sys
import tempfile
import time
import timeit
from pathlib import Path

import jax
import numpy as np

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import parse_nd_sbp
from sbpc.dialects import sbp as sbp_dialect
from sbpc.passes.bridge.program import main_function
from sbpc.passes.jax_target import jax_source
from sbpc.passes.pipeline import parse_module, run_passes

HERE = Path(__file__).resolve().parent
# x, target, MLP up-projection (column split), MLP down-projection (row split)
LAYOUTS = {0: "[S(0), B]", 1: "[S(0), B]", 10: "[B, S(1)]", 12: "[B, S(0)]"}


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _median_time(fn, args, repeats: int = 20) -> float:
    """Median seconds of one call, after a compiling call."""
    jax.block_until_ready(fn(*args))
    run = lambda: jax.block_until_ready(fn(*args))  # noqa: E731
    return statistics.median(timeit.repeat(run, number=1, repeat=repeats))


def main() -> int:
    export = _load(HERE / "export_stablehlo.py", "export_stablehlo")
    fn, arg_specs = export.PROGRAMS["transformer_train_step"]
    text = jax.jit(fn).lower(*arg_specs()).as_text()
    rng = np.random.default_rng(0)
    args = [(rng.standard_normal(s.shape) * 0.5).astype(s.dtype) for s in arg_specs()]
    jitted = jax.jit(fn)
    want = [np.asarray(w) for w in jitted(*args)]
    unsharded_s = _median_time(jitted, args)
    print(
        f"transformer train step exported from JAX: {len(text.splitlines())} lines of StableHLO"
    )
    print(f"placement: 2x4 mesh; layouts {LAYOUTS}")
    ok = True
    workdir = Path(tempfile.mkdtemp(prefix="sbpc-main-"))
    for strategy in ("greedy", "bfs", "optimal"):
        start = time.perf_counter()
        module = parse_module(text, name="transformer_train_step.mlir")
        sbp_dialect.set_module_placement(module, Placement.of_size((2, 4)))
        f = main_function(module)
        for i, layout in LAYOUTS.items():
            sbp_dialect.set_nd_sbp_arg_attr(f, i, parse_nd_sbp(layout))
        report = workdir / f"{strategy}.txt"
        run_passes(
            module,
            f'sbp-inline,sbp-propagate{{strategy={strategy} report="{report}"}},'
            "sbp-lower-boxing",
        )
        source = jax_source(module)
        compile_s = time.perf_counter() - start
        path = workdir / f"train_step_{strategy}.py"
        path.write_text(source)
        emitted = _load(path, f"train_step_{strategy}")
        step = emitted.build()
        placed = emitted.put_args(*args)
        start = time.perf_counter()
        got = emitted.logical(step(*placed))
        jit_s = time.perf_counter() - start
        err = max(
            float(np.max(np.abs(np.asarray(g, np.float64) - w)))
            for g, w in zip(got, want, strict=True)
        )
        ok &= err < 1e-4
        sharded_s = _median_time(step, placed)
        total = next(
            (
                line
                for line in report.read_text().splitlines()
                if "total" in line.lower()
            ),
            "",
        )
        print(f"\n== strategy {strategy}")
        print(f"   plan: {total.strip()}")
        print(
            f"   sbpc compile {compile_s * 1e3:.0f} ms, first run (XLA compile) "
            f"{jit_s * 1e3:.0f} ms, step {sharded_s * 1e3:.2f} ms "
            f"(unsharded jax.jit {unsharded_s * 1e3:.2f} ms)"
        )
        print(f"   max |sharded - jax.jit| = {err:.2e}")
        if strategy == "optimal":
            print("\n" + report.read_text())
    print(f"emitted programs and reports in {workdir}")
    print("numbers match jax.jit of the original" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
