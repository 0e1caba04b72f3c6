"""Planning time against the mesh's size: ``sbpc.jax.plan`` without devices.

    python bench/plan_scale.py                  # 8, 64, 512, 4096 devices
    python bench/plan_scale.py --repeats 5 --cost-model tpu-v5p

A small program (a 2-layer GELU MLP's training step, bf16, batch split over
the mesh's ``data`` axis) planned from ``jax.ShapeDtypeStruct``\\ s for
meshes of 8 (``(8,)``), 64 (``(8, 8)``), 512 (``(64, 8)``) and 4096
(``(64, 64)`` and ``(4096,)``) devices, none of which this machine has.
Prints the first of ``--repeats`` runs of ``plan`` per mesh (the
process's memos hold only the other meshes' plans: a user's one call) and
the best, with the best one's phases
(JAX lowering, parse, the passes, emitting), the printed module's size
and the time to print and parse it again (a placement of 4096 ranks is
written once, on the module), and the plan's per-device peak memory and
modelled step time under ``--cost-model``.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse
import time
from collections.abc import Sequence

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

import sbpc.jax
from sbpc.passes.pipeline import default_context
from sbpc.tools.sbpc_opt import LocatingParser

MESHES: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "8": ((8,), ("data",)),
    "64": ((8, 8), ("data", "model")),
    "512": ((64, 8), ("data", "model")),
    "4096": ((64, 64), ("data", "model")),
    "4096x1": ((4096,), ("data",)),
}
PHASES = ("lower (jax)", "parse", "sbp-propagate", "sbp-lower-boxing", "emit (jax)")


def train_step(params, x, y):
    """A 2-layer GELU MLP's squared-error step with weight decay."""

    def loss(params):
        (w1, b1), (w2, b2) = params
        out = jax.nn.gelu(x @ w1 + b1) @ w2 + b2
        return jnp.mean((out - y) ** 2)

    value, grads = jax.value_and_grad(loss)(params)
    return value, jax.tree.map(lambda p, g: 0.999 * p - 0.1 * g, params, grads)


def shapes(batch: int, d: int) -> tuple:
    s = jax.ShapeDtypeStruct
    bf16 = jnp.bfloat16
    params = [
        (s((d, 4 * d), bf16), s((4 * d,), bf16)),
        (s((4 * d, d), bf16), s((d,), bf16)),
    ]
    return params, s((batch, d), bf16), s((batch, d), bf16)


def plan_once(mesh, cost_model: str, strategy: str) -> sbpc.jax.Planned:
    return sbpc.jax.plan(
        train_step,
        *shapes(8192, 1024),
        mesh=mesh,
        in_layouts=(None, P("data"), P("data")),
        cost_model=cost_model,
        strategy=strategy,
        quiet=True,
    )


def row(name: str, cost_model: str, strategy: str, repeats: int) -> dict[str, float]:
    mesh = MESHES[name]
    runs = [plan_once(mesh, cost_model, strategy) for _ in range(max(repeats, 1))]
    first = runs[0].timing
    best = min(runs, key=lambda p: p.timing.total)
    assert first is not None and best.timing is not None
    start = time.perf_counter()
    text = best.mlir
    printed = time.perf_counter() - start
    start = time.perf_counter()
    LocatingParser(default_context(), text, "plan.mlir").parse_module()
    parsed = time.perf_counter() - start
    return {
        "devices": best.placement.size,
        "first": first.total,
        "total": best.timing.total,
        **{p: best.timing.seconds(p) for p in PHASES},
        "mlir_chars": len(text),
        "print": printed,
        "reparse": parsed,
        "source_chars": len(best.source),
        "peak_mib": best.peak_memory / 2**20,
        "step_us": best.step_time * 1e6,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--meshes", nargs="+", default=list(MESHES), choices=list(MESHES)
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cost-model", default="h100-sxm")
    parser.add_argument("--strategy", default="optimal")
    args = parser.parse_args(argv)
    plan_once(MESHES["8"], args.cost_model, args.strategy)  # imports, caches warm
    head = [
        "mesh",
        "devices",
        "first s",
        "best s",
        *PHASES,
        "print s",
        "reparse s",
        "mlir",
        "source",
        "peak MiB",
        "step us",
    ]
    print(" | ".join(head))
    for name in args.meshes:
        r = row(name, args.cost_model, args.strategy, args.repeats)
        cells = [
            "x".join(map(str, MESHES[name][0])),
            str(r["devices"]),
            f"{r['first']:.2f}",
            f"{r['total']:.2f}",
            *(f"{r[p]:.3f}" for p in PHASES),
            f"{r['print']:.3f}",
            f"{r['reparse']:.3f}",
            f"{r['mlir_chars']}",
            f"{r['source_chars']}",
            f"{r['peak_mib']:.1f}",
            f"{r['step_us']:.1f}",
        ]
        print(" | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
