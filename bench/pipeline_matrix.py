"""Every pipeline the issue asks for, run on 8 simulated CPU devices against
``jax.jit`` of the unpipelined step (docs/pipeline.md, "Checked").

Models: the GPT example's Adam step and a flax.linen decoder trained with
optax (``bench/library_models.py``).  Pipelines: 2 stages of 2x2 and 4
stages of 2, 4 and 8 microbatches, planned by greedy, bfs and optimal; each
plan runs under GPipe and 1F1B (the same compiled tasks, two orders).  A row
gives the largest difference from ``jax.jit`` over every result and each
stage's activation memory under both schedules (the tasks' compiled
``memory_analysis`` along the schedule).  The run fails (exit 1) when a
result differs from ``jax.jit``'s beyond the tests' tolerance (``ATOL``) or,
at 8 microbatches, a stage holds no fewer activations under 1F1B than under
GPipe.

    python bench/pipeline_matrix.py              # the whole matrix (long)
    python bench/pipeline_matrix.py --models gpt --strategies greedy
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "bench"))

import sbpc.jax  # noqa: E402

MESHES = {"2x(2x2)": ((2, 2, 2), 2), "4x2": ((4, 2), 4)}
# test/sbpc/test_jax_pipeline.py's tolerances (rtol 1e-4): AdamW's first step
# moves a parameter by about the learning rate whatever its gradient's size.
ATOL = {"gpt": 1e-5, "flax_linen": 2e-3}


def model(name: str):
    if name == "gpt":
        from models import gpt

        return gpt.train_step, gpt.train_args()
    from library_models import MODELS

    example = MODELS[name](2)
    return example.fn, example.args


def row(name: str, mesh: str, micro: int, strategy: str) -> tuple[str, list[str]]:
    """The table's row and what in it fails the checks."""
    fn, args = model(name)
    shape, stages = MESHES[mesh]
    start = time.perf_counter()
    step = sbpc.jax.distribute(
        fn,
        *args,
        mesh=shape,
        strategy=strategy,
        quiet=True,
        pipeline=sbpc.jax.Pipeline(stages=stages, microbatches=micro),
    )
    planned = time.perf_counter() - start
    want = jax.tree.leaves(jax.jit(fn)(*args))
    flat = step.flatten(*args)
    cells, failed, held = [], [], []
    for schedule in ("gpipe", "1f1b"):
        run = step.step.with_schedule(schedule)
        got = run(*flat)
        err = max(
            float(np.abs(np.asarray(g, np.float64) - np.asarray(w, np.float64)).max())
            for g, w in zip(got, want, strict=True)
        )
        if not all(
            np.allclose(g, w, rtol=1e-4, atol=ATOL.get(name, 2e-3))
            for g, w in zip(got, want, strict=True)
        ):
            failed.append(f"{schedule} differs from jax.jit")
        acts = [m["activations"] / 2**10 for m in run.memory()]
        held.append(acts)
        cells.append(f"{err:.1e} | " + "/".join(f"{a:.0f}" for a in acts))
    if micro == 8 and not all(o < g for g, o in zip(*held, strict=True)):
        failed.append("1F1B holds no fewer activations than GPipe")
    text = (
        f"| {name} | {mesh} | {micro} | {strategy} | {cells[0]} | {cells[1]} | "
        f"{planned:.0f} s |"
    )
    return text, failed


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="gpt,flax_linen")
    parser.add_argument("--meshes", default=",".join(MESHES))
    parser.add_argument("--microbatches", default="4,8")
    parser.add_argument("--strategies", default="greedy,bfs,optimal")
    args = parser.parse_args(argv)
    print(
        "| model | stages x mesh | microbatches | strategy | GPipe: max error "
        "| activations per stage (KiB) | 1F1B: max error | activations (KiB) "
        "| planned in |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    failures = []
    for name in args.models.split(","):
        for mesh in args.meshes.split(","):
            for micro in (int(m) for m in args.microbatches.split(",")):
                for strategy in args.strategies.split(","):
                    text, failed = row(name, mesh, micro, strategy)
                    print(text, flush=True)
                    failures += [
                        f"{name} {mesh} x{micro} {strategy}: {f}" for f in failed
                    ]
    print("\n".join(failures) or "every row equals jax.jit; 1F1B < GPipe at 8")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
