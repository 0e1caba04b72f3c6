"""Expert parallelism: sbpc's plans of a mixture-of-experts layer against XLA's.

    python bench/moe_vs_xla.py [--dims 64 512] [--schemes dp tp 2d]
                               [--dispatch einsum gather sequence]
                               [--strategy optimal]
                               [--cost-model TEXT]

The layer (``examples/models/moe.py``: 8 SwiGLU experts, top-2 routing
with a capacity) has its experts split over the expert axis and its tokens
over the data axis (``dp``, ``2d``) or replicated (``tp``).  For each width,
dispatch (GShard's one-hot einsums routing the whole batch as one group or
each sequence as one, ``sequence``; or index gather and scatter-add), scheme
and program (the forward layer, an SGD step through it) it prints sbpc's
plan and XLA's partitioner given the same input and output shardings, side
by side: bytes each device sends in the compiled HLO and the collectives,
with sbpc's planning time and its largest error against ``jax.jit``.

Bytes are not sbpc's objective: its cost model prices time, with a
latency per collective and links per mesh axis (``2d``'s inner axis 4x
faster than its outer one by default), so at small widths it may send more
bytes in fewer or faster collectives.  The ``a2a`` column says whether the
plan moves tokens to their experts with an all-to-all.  Exits 1 when a row's
numbers differ from ``jax.jit``'s.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse
import sys
import time
from pathlib import Path

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "bench"))

from hlo_collectives import parse_collectives, summarize  # noqa: E402
from models import SCHEMES, moe  # noqa: E402

import sbpc.jax  # noqa: E402

TOLERANCE = 1e-4
PROGRAMS = ("forward", "train")


# ``sequence``: the einsum dispatch with each sequence routed as one group
# (Mixtral's layer in ``llama.experts``, as MaxText routes), so that split
# sequences dispatch locally and reach their experts by all-to-alls.
DISPATCHES = (*moe.DISPATCHES, "sequence")


def _program(name: str, dispatch: str, cfg: moe.Config):
    dispatch, cfg = moe.routed(dispatch, cfg)
    if name == "forward":
        return moe.layer(dispatch, cfg)
    return moe.train_step(dispatch, cfg)


def _sharding(layout: str, mesh: Mesh) -> NamedSharding:
    """``[S(0), B]`` and the like (only dim 0 is split here) as a sharding."""
    entries = [e.strip() for e in layout.strip("[]").split(",")]
    axes = tuple(n for n, e in zip(mesh.axis_names, entries, strict=True) if e != "B")
    return NamedSharding(mesh, PartitionSpec(axes) if axes else PartitionSpec())


def _summary(compiled) -> tuple[float, dict[str, int]]:
    s = summarize(parse_collectives(compiled.as_text(), num_devices=8))
    return float(s.bytes_per_device), {k: n for k, n in s.counts.items() if n}


def bench_row(
    dim: int,
    dispatch: str,
    scheme: str,
    program: str,
    strategy: str,
    cost_model: str = "default",
) -> tuple[str, bool]:
    """One row of the table, and whether sbpc's numbers equal jax.jit's."""
    cfg = moe.config(dim, seq=dim // 8)
    params, x = moe.layer_args(cfg)
    fn = _program(program, dispatch, cfg)
    param_layouts, token_layout = moe.expert_layouts(scheme)
    out_layout = token_layout if program == "forward" else None
    start = time.perf_counter()
    dist = sbpc.jax.distribute(
        fn,
        params,
        x,
        mesh=SCHEMES[scheme],
        in_layouts=(param_layouts, token_layout),
        out_layouts=out_layout,
        strategy=strategy,
        cost_model=cost_model,
        quiet=True,
    )
    plan_s = time.perf_counter() - start
    want = jax.jit(fn)(params, x)
    got = dist(params, x)
    error = max(
        float(np.max(np.abs(np.asarray(g) - np.asarray(w))))
        for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True)
    )
    ours, our_counts = _summary(dist.lower(params, x).compile())

    names = tuple(f"d{i}" for i in range(len(SCHEMES[scheme])))
    mesh = Mesh(np.array(jax.devices()[:8]).reshape(SCHEMES[scheme]), names)
    shard = lambda layout: _sharding(layout, mesh)  # noqa: E731
    xla = jax.jit(
        fn,
        in_shardings=(jax.tree.map(shard, param_layouts), shard(token_layout)),
        out_shardings=None if out_layout is None else shard(out_layout),
    )
    theirs, their_counts = _summary(xla.lower(params, x).compile())
    a2a = "yes" if our_counts.get("all-to-all") else "no"
    row = (
        f"| {dim} | {dispatch} | {scheme} | {program} | {ours / 1024:.1f} "
        f"| {theirs / 1024:.1f} | {ours / theirs if theirs else float('inf'):.2f} "
        f"| {a2a} | {_counts(our_counts)} | {_counts(their_counts)} "
        f"| {plan_s:.1f} | {error:.1e} |"
    )
    return row, error <= TOLERANCE * max(1.0, _scale(want))


def _scale(tree) -> float:
    return max(float(np.max(np.abs(np.asarray(w)))) for w in jax.tree.leaves(tree))


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "none"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[64, 512])
    parser.add_argument("--schemes", nargs="+", default=list(SCHEMES))
    parser.add_argument("--dispatch", nargs="+", default=list(DISPATCHES))
    parser.add_argument("--programs", nargs="+", default=list(PROGRAMS))
    parser.add_argument("--strategy", default="optimal")
    parser.add_argument(
        "--cost-model",
        default="default",
        help="sbpc's cost model (e.g. 'bw=25e9:25e9' prices both of 2d's axes alike)",
    )
    args = parser.parse_args(argv)
    print(
        "| width | dispatch | scheme | program | sbpc KiB | XLA KiB | ratio "
        "| a2a | sbpc collectives | XLA collectives | plan s | max error |"
    )
    print("|" + "---|" * 12)
    ok = True
    for dim in args.dims:
        for dispatch in args.dispatch:
            for scheme in args.schemes:
                for program in args.programs:
                    row, right = bench_row(
                        dim, dispatch, scheme, program, args.strategy, args.cost_model
                    )
                    print(row if right else row + " WRONG", flush=True)
                    ok &= right
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
