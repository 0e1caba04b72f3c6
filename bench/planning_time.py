"""sbpc's planning time against XLA's own compile, side by side, per phase.

    python bench/planning_time.py                        # 2, 8, 16, 32 layers; dp, tp, 2d
    python bench/planning_time.py --layers 8 32 --schemes 2d --repeats 2

The GPT example's Adam training step (``examples/models/gpt.py``) at several
depths and under each parallelism scheme (``dp``, ``tp`` on 8 devices,
``2d`` on a 2x4 mesh), strategy ``optimal`` (``--strategy``).  For each it
times, in one process and one after the other:

* **sbpc**: ``sbpc.jax.distribute`` (JAX lowering, parse, ``sbp-inline``,
  ``sbp-propagate``, ``sbp-lower-boxing``, verify, emit, load), with the
  breakdown of its ``Distributed.timing``;
* **XLA**: ``jax.jit(fn, in_shardings=...).lower(...).compile()`` with the
  ``NamedSharding``\\ s sbpc's plan gives the arguments (XLA's partitioner
  and compiler on the same layouts).

and prints the ratio sbpc / XLA (<= 1: planning costs no more than XLA's
compile), whether the plan is proven optimal (else HiGHS's gap), and the
per-phase seconds.  ``--cluster 0`` turns the optimal strategy's
repeated-layer clustering off (the whole core's LP, as before it).
``--repeats N`` takes the best of N runs of each side
(the machine is shared, so single timings are noisy).  ``--json PATH``
writes every row.  ``--profile DIR`` also runs each row's sbpc side once
more under ``cProfile`` and writes ``DIR/<layers>-<scheme>.prof`` (read it
with ``python -m pstats``): the phases say where the time goes, the profile
says which functions spend it.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse
import cProfile
import gc
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import jax

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))

from models import gpt  # noqa: E402
from models.example import SCHEMES, Example  # noqa: E402

import sbpc.jax  # noqa: E402
from sbpc.propagation.driver import STRATEGIES  # noqa: E402
from sbpc.propagation.optimal import Optimal  # noqa: E402

# Phases shown as columns (top level of Distributed.timing, and inside
# sbp-propagate); any other phase is folded into "other".
TOP = ("lower (jax)", "parse", "sbp-propagate", "sbp-lower-boxing", "emit (jax)")
PROPAGATE = ("build graph", "strategy optimal", "price plan", "write back")
OPTIMAL = (
    "pairwise problem",
    "shrink",
    "find layers",
    "window lp",
    "residual",
    "replicate",
    "ilp build",
    "lp relaxation",
    "ilp solve",
)


@dataclass
class Row:
    layers: int
    scheme: str
    ops: int
    sbpc_s: float
    xla_s: float
    proven: bool
    gap: float
    core_nodes: int
    phases: dict[str, float] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        return self.sbpc_s / self.xla_s


def gpt_train(layers: int) -> Example:
    """The GPT training example at ``layers`` decoder blocks."""
    saved, gpt.LAYERS = gpt.LAYERS, layers  # read by init_params and param_roles
    try:
        return gpt.train_example()
    finally:
        gpt.LAYERS = saved


def cold() -> None:
    """Start a timed side with no garbage pending and JAX's caches empty."""
    gc.collect()
    jax.clear_caches()


def distribute(example: Example, scheme: str, strategy: str) -> sbpc.jax.Distributed:
    """sbpc's side of a row."""
    return sbpc.jax.distribute(
        example.fn,
        *example.args,
        mesh=example.mesh(scheme),
        in_layouts=example.in_layouts(scheme),
        out_layouts=example.out_layouts(scheme),
        strategy=strategy,
    )


def profile(example: Example, scheme: str, strategy: str, path: Path) -> None:
    """One more (untimed) run of sbpc's side under cProfile, stats to ``path``."""
    profiler = cProfile.Profile()
    cold()
    profiler.runcall(distribute, example, scheme, strategy)
    profiler.dump_stats(path)


def measure(layers: int, scheme: str, strategy: str, repeats: int) -> Row:
    example = gpt_train(layers)
    best: sbpc.jax.Distributed | None = None
    sbpc_s = xla_s = float("inf")
    for _ in range(repeats):
        cold()
        start = time.perf_counter()
        step = distribute(example, scheme, strategy)
        seconds = time.perf_counter() - start
        if seconds < sbpc_s:
            sbpc_s, best = seconds, step
        ins, outs = step.shardings()
        in_tree = jax.tree.structure(example.args)
        out_tree = step.out_tree
        cold()
        start = time.perf_counter()
        jax.jit(
            example.fn,
            in_shardings=jax.tree.unflatten(in_tree, ins),
            out_shardings=jax.tree.unflatten(out_tree, outs),
        ).lower(*example.args).compile()
        xla_s = min(xla_s, time.perf_counter() - start)
    assert best is not None and best.timing is not None
    stats = best.plans[0].plan.stats
    timing = best.timing
    phases = {name: timing.seconds(name) for name in TOP}
    for name in PROPAGATE:
        phases[f"propagate/{name}"] = timing.seconds("sbp-propagate", name)
    for name in OPTIMAL:
        phases[f"optimal/{name}"] = timing.seconds(
            "sbp-propagate", "strategy optimal", name
        )
    phases["other"] = timing.total - sum(phases[name] for name in TOP)
    return Row(
        layers,
        scheme,
        ops=len(best.plans[0].plan.signatures),
        sbpc_s=sbpc_s,
        xla_s=xla_s,
        proven=bool(stats.get("proven", True)),
        gap=float(stats.get("gap", 0.0)),
        core_nodes=int(stats.get("core_nodes", 0)),
        phases=phases,
    )


def table(rows: list[Row]) -> str:
    head = (
        "| layers | scheme | ops | sbpc s | XLA s | sbpc/XLA | optimal | "
        + " | ".join(TOP)
        + " | other |"
    )
    lines = [head, "|" + " ---: |" * (head.count("|") - 1)]
    for r in rows:
        proof = "proven" if r.proven else f"gap {r.gap:.2%}"
        cells = [f"{r.phases[name]:.2f}" for name in (*TOP, "other")]
        lines.append(
            f"| {r.layers} | {r.scheme} | {r.ops} | {r.sbpc_s:.2f} | {r.xla_s:.2f} "
            f"| {r.ratio:.2f} | {proof} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines)


def propagate_table(rows: list[Row]) -> str:
    names = [f"propagate/{n}" for n in PROPAGATE] + [f"optimal/{n}" for n in OPTIMAL]
    head = "| layers | scheme | core nodes | " + " | ".join(names) + " |"
    lines = [head, "|" + " ---: |" * (head.count("|") - 1)]
    for r in rows:
        cells = [f"{r.phases.get(n, 0.0):.2f}" for n in names]
        lines.append(
            f"| {r.layers} | {r.scheme} | {r.core_nodes} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines)


def run_rows(args: argparse.Namespace) -> list[Row]:
    """Every (layers, scheme) row asked for, measured in turn."""
    rows: list[Row] = []
    for layers in args.layers:
        for scheme in args.schemes:
            row = measure(layers, scheme, args.strategy, args.repeats)
            rows.append(row)
            if args.profile:
                profile(
                    gpt_train(layers),
                    scheme,
                    args.strategy,
                    args.profile / f"{layers}-{scheme}.prof",
                )
            print(
                f"{layers} layers {scheme}: sbpc {row.sbpc_s:.2f} s, XLA "
                f"{row.xla_s:.2f} s, ratio {row.ratio:.2f}",
                file=sys.stderr,
                flush=True,
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, nargs="+", default=[2, 8, 16, 32])
    parser.add_argument(
        "--schemes", nargs="+", choices=sorted(SCHEMES), default=["dp", "tp", "2d"]
    )
    parser.add_argument("--strategy", default="optimal")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--cluster",
        type=int,
        choices=(0, 1),
        default=1,
        help="0: strategy optimal solves the whole core's LP (no clustering)",
    )
    parser.add_argument("--json", metavar="PATH", help="write every row as JSON")
    parser.add_argument(
        "--profile",
        metavar="DIR",
        type=Path,
        help="also profile sbpc's side of each row: DIR/<layers>-<scheme>.prof",
    )
    args = parser.parse_args(argv)
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    saved = STRATEGIES[Optimal.name]
    if not args.cluster:
        STRATEGIES[Optimal.name] = Optimal(cluster=False)
    try:
        rows = run_rows(args)
    finally:
        STRATEGIES[Optimal.name] = saved
    print(table(rows))
    print()
    print(propagate_table(rows))
    if args.json:
        Path(args.json).write_text(
            json.dumps([asdict(r) | {"ratio": r.ratio} for r in rows], indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
