"""sbpc's planning time against XLA's own compile, side by side, per phase.

    python bench/planning_time.py                        # 2, 8, 16, 32 layers; dp, tp, 2d
    python bench/planning_time.py --layers 8 32 --schemes 2d --repeats 2
    python bench/planning_time.py --scanned --layers 2 --check   # lax.scan'd blocks
    python bench/planning_time.py --model flax_linen flax_nnx equinox --layers 2 8 --schemes dp 2d

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

``--model flax_linen`` (or ``flax_nnx``, ``equinox``; several run one after
the other in one process, and the summary gives the median and worst
ratio over every row) times a decoder written with that library and
trained with ``optax.adamw`` (``bench/library_models.py``) instead, its
parameters left free for sbpc's strategy to lay out (XLA is given the same
layouts).  ``flax_linen_scan`` is the flax.linen decoder with its blocks
run by ``linen.scan`` (one block in a loop body, whatever the depth).

``--scanned`` times the same step with its blocks run by ``lax.scan`` over
stacked weights (``examples/models/gpt_scanned.py``: one copy of the block,
in a ``stablehlo.while`` body, whatever the depth).  ``--check`` also runs
each row's two programs and prints the largest error of sbpc's results
against XLA's (``examples/run.py``'s ``max_error``), a row passing under
1e-4.  A row sbpc cannot plan prints sbpc's diagnostic in place of its
numbers (and the exit status is 1).

It prints the ratio sbpc / XLA (<= 1: planning costs no more than XLA's
compile), whether the plan is proven optimal (else HiGHS's gap), and the
per-phase seconds.  ``--cost-model TEXT`` plans under another cost model
(``combine=0,overhead=0``: the defaults before issue 37).  ``--cluster 0``
turns the optimal strategy's
repeated-layer clustering off (the whole core's LP, as before it).
``--repeats N`` takes the best of N runs of each side
(the machine is shared, so single timings are noisy).  ``--json PATH``
writes every row.  ``--profile DIR`` also runs each row's sbpc side once
more under ``cProfile`` and writes ``DIR/<layers>-<scheme>.prof`` (read it
with ``python -m pstats``; ``DIR/<model>-<layers>-<scheme>.prof`` with
several models): the phases say where the time goes, the profile says
which functions spend it.  The propagation table's ``improve:`` columns are
the combining search's local improvements (``sbpc.propagation.improve``)
at the latency scales after the strategy's own plan.
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

from models import gpt, gpt_scanned  # noqa: E402
from models.example import SCHEMES, Example  # noqa: E402
from run import max_error  # noqa: E402

import sbpc.jax  # noqa: E402
from sbpc.jax_backend.program_code import forget as forget_program_code  # noqa: E402
from sbpc.propagation.driver import STRATEGIES  # noqa: E402
from sbpc.propagation.optimal import Optimal  # noqa: E402

# Phases shown as columns (top level of Distributed.timing, and inside
# sbp-propagate); any other phase is folded into "other".
TOP = ("lower (jax)", "parse", "sbp-propagate", "sbp-lower-boxing", "emit (jax)")
PROPAGATE = (
    "build graph",
    "strategy optimal",
    "improve: pairwise problem",
    "improve: shrink",
    "improve: blocks",
    "settle proof",
    "price plan",
    "write back",
)
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
    scanned: bool = False
    error: float | None = None  # sbpc's results against XLA's (--check)
    model: str = "gpt"

    @property
    def ratio(self) -> float:
        return self.sbpc_s / self.xla_s


@dataclass
class Failure:
    """A row sbpc could not plan: what it said."""

    layers: int
    scheme: str
    diagnostic: str
    scanned: bool = False
    model: str = "gpt"


CHECK_TOLERANCE = 1e-4  # examples/run.py's: float reassociation only


def gpt_train(layers: int, scanned: bool = False) -> Example:
    """The GPT training example at ``layers`` decoder blocks (``scanned``: the
    blocks run by ``lax.scan``)."""
    if scanned:
        return gpt_scanned.train_example(layers)
    with gpt.Depth(layers):
        return gpt.train_example()


def cold() -> None:
    """Start a timed side with no garbage pending, JAX's caches empty and no
    emitted program's code kept (``--repeats`` runs one row's text again:
    its compile is part of each run)."""
    gc.collect()
    jax.clear_caches()
    forget_program_code()


def distribute(
    example: Example, scheme: str, strategy: str, cost_model: str = "default"
) -> sbpc.jax.Distributed:
    """sbpc's side of a row."""
    return sbpc.jax.distribute(
        example.fn,
        *example.args,
        mesh=example.mesh(scheme),
        in_layouts=example.in_layouts(scheme),
        out_layouts=example.out_layouts(scheme),
        strategy=strategy,
        cost_model=cost_model,
    )


def profile(example: Example, scheme: str, strategy: str, path: Path) -> None:
    """One more (untimed) run of sbpc's side under cProfile, stats to ``path``."""
    profiler = cProfile.Profile()
    cold()
    profiler.runcall(distribute, example, scheme, strategy)
    profiler.dump_stats(path)


# bench/library_models.py (flax_linen_scan: flax_linen's blocks by linen.scan)
LIBRARY_MODELS = ("flax_linen", "flax_nnx", "equinox", "flax_linen_scan")


def example_for(model: str, layers: int, scanned: bool = False) -> Example:
    """``model`` (``--model``; ``--scanned``) at ``layers`` blocks."""
    if model == "gpt":
        return gpt_train(layers, scanned)
    from library_models import MODELS  # flax, equinox, optax: the test extra

    return MODELS[model](layers)


def measure(args: argparse.Namespace, model: str, layers: int, scheme: str) -> Row:
    """One row: the best of ``args.repeats`` runs of each side."""
    example = example_for(model, layers, args.scanned)
    strategy, repeats = args.strategy, args.repeats
    best: sbpc.jax.Distributed | None = None
    sbpc_s = xla_s = float("inf")
    for _ in range(repeats):
        cold()
        start = time.perf_counter()
        step = distribute(example, scheme, strategy, args.cost_model)
        seconds = time.perf_counter() - start
        if seconds < sbpc_s:
            sbpc_s, best = seconds, step
        ins, outs = step.shardings()
        in_tree = jax.tree.structure(example.args)
        out_tree = step.out_tree
        cold()
        start = time.perf_counter()
        compiled = (
            jax.jit(
                example.fn,
                in_shardings=jax.tree.unflatten(in_tree, ins),
                out_shardings=jax.tree.unflatten(out_tree, outs),
            )
            .lower(*example.args)
            .compile()
        )
        xla_s = min(xla_s, time.perf_counter() - start)
    assert best is not None and best.timing is not None
    error = None
    if args.check:
        error = max_error(best(*example.args), compiled(*example.args))
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
        scanned=args.scanned,
        error=error,
        model=model,
    )


def table(rows: list[Row]) -> str:
    head = (
        "| model | layers | scheme | ops | sbpc s | XLA s | sbpc/XLA | optimal | error | "
        + " | ".join(TOP)
        + " | other |"
    )
    lines = [head, "|" + " ---: |" * (head.count("|") - 1)]
    for r in rows:
        proof = "proven" if r.proven else f"gap {r.gap:.2%}"
        error = "-" if r.error is None else f"{r.error:.1e}"
        cells = [f"{r.phases[name]:.2f}" for name in (*TOP, "other")]
        lines.append(
            f"| {r.model} | {r.layers} | {r.scheme} | {r.ops} | {r.sbpc_s:.2f} "
            f"| {r.xla_s:.2f} | {r.ratio:.2f} | {proof} | {error} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines)


def propagate_table(rows: list[Row]) -> str:
    names = [f"propagate/{n}" for n in PROPAGATE] + [f"optimal/{n}" for n in OPTIMAL]
    head = "| model | layers | scheme | core nodes | " + " | ".join(names) + " |"
    lines = [head, "|" + " ---: |" * (head.count("|") - 1)]
    for r in rows:
        cells = [f"{r.phases.get(n, 0.0):.2f}" for n in names]
        lines.append(
            f"| {r.model} | {r.layers} | {r.scheme} | {r.core_nodes} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines)


def summary(rows: list[Row]) -> str:
    """The median and worst sbpc/XLA over ``rows`` (issue 37's measure), and
    both sides' seconds summed: XLA's compile of the same rows moves by a
    fifth between runs on this machine, and every ratio with it, so a change
    to sbpc is read in its own seconds."""
    ratios = sorted(r.ratio for r in rows)
    mid = len(ratios) // 2
    median = ratios[mid] if len(ratios) % 2 else (ratios[mid - 1] + ratios[mid]) / 2
    return (
        f"sbpc/XLA over {len(rows)} rows: median {median:.2f}, worst {ratios[-1]:.2f}"
        f" (summed: sbpc {sum(r.sbpc_s for r in rows):.2f} s, "
        f"XLA {sum(r.xla_s for r in rows):.2f} s)"
    )


def run_rows(args: argparse.Namespace) -> tuple[list[Row], list[Failure]]:
    """Every (model, layers, scheme) row asked for, measured in turn; those
    sbpc cannot plan are failures with its diagnostic."""
    rows: list[Row] = []
    failures: list[Failure] = []
    for model in args.model:
        for layers in args.layers:
            for scheme in args.schemes:
                try:
                    row = measure(args, model, layers, scheme)
                except sbpc.jax.SbpcError as e:
                    failures.append(
                        Failure(layers, scheme, str(e), args.scanned, model)
                    )
                    print(
                        f"{model} {layers} layers {scheme}: sbpc: {e}", file=sys.stderr
                    )
                    continue
                rows.append(row)
                if args.profile:
                    name = f"{layers}-{scheme}.prof"
                    if len(args.model) > 1:
                        name = f"{model}-{name}"
                    profile(
                        example_for(model, layers, args.scanned),
                        scheme,
                        args.strategy,
                        args.profile / name,
                    )
                print(
                    f"{model} {layers} layers {scheme}: sbpc {row.sbpc_s:.2f} s, "
                    f"XLA {row.xla_s:.2f} s, ratio {row.ratio:.2f}",
                    file=sys.stderr,
                    flush=True,
                )
    return rows, failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, nargs="+", default=[2, 8, 16, 32])
    parser.add_argument(
        "--schemes", nargs="+", choices=sorted(SCHEMES), default=["dp", "tp", "2d"]
    )
    parser.add_argument("--strategy", default="optimal")
    parser.add_argument(
        "--cost-model",
        default="default",
        help="sbp-propagate's cost model (e.g. 'combine=0,overhead=0': the "
        "defaults before combining and the launch cost were on)",
    )
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--cluster",
        type=int,
        choices=(0, 1),
        default=1,
        help="0: strategy optimal solves the whole core's LP (no clustering)",
    )
    parser.add_argument(
        "--scanned", action="store_true", help="the blocks run by lax.scan"
    )
    parser.add_argument(
        "--check", action="store_true", help="compare sbpc's results with XLA's"
    )
    parser.add_argument(
        "--model",
        nargs="+",
        choices=("gpt", *LIBRARY_MODELS),
        default=["gpt"],
        help="the GPT example (default), or a decoder written with flax.linen, "
        "flax.nnx or equinox and trained with optax (bench/library_models.py; "
        "parameters left free for sbpc to lay out); several: one after the other",
    )
    parser.add_argument("--json", metavar="PATH", help="write every row as JSON")
    parser.add_argument(
        "--profile",
        metavar="DIR",
        type=Path,
        help="also profile sbpc's side of each row: DIR/<layers>-<scheme>.prof",
    )
    args = parser.parse_args(argv)
    if args.scanned and args.model != ["gpt"]:
        parser.error("--scanned is the GPT example's (--model gpt)")
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    saved = STRATEGIES[Optimal.name]
    if not args.cluster:
        STRATEGIES[Optimal.name] = Optimal(cluster=False)
    try:
        rows, failures = run_rows(args)
    finally:
        STRATEGIES[Optimal.name] = saved
    blocks = "run by lax.scan" if args.scanned else "unrolled"
    models = ", ".join(
        "gpt: GPT Adam" if m == "gpt" else f"{m}: optax.adamw" for m in args.model
    )
    print(f"training steps ({models}), blocks {blocks}, strategy {args.strategy}")
    print(table(rows))
    print()
    print(propagate_table(rows))
    if rows:
        print()
        print(summary(rows))
    for failed in failures:
        print(
            f"\n{failed.model} {failed.layers} layers {failed.scheme}: sbpc: "
            f"{failed.diagnostic}"
        )
    wrong = [r for r in rows if r.error is not None and r.error >= CHECK_TOLERANCE]
    for r in wrong:
        print(
            f"\n{r.model} {r.layers} layers {r.scheme}: MISMATCH, error {r.error:.2e}"
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                [asdict(r) | {"ratio": r.ratio} for r in rows]
                + [asdict(f) for f in failures],
                indent=1,
            )
        )
    return 1 if failures or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
