"""sbpc against XLA's own partitioner, side by side, on 8 simulated devices.

    python bench/vs_xla.py [--repeats N] [--only NAME ...] [--out docs/benchmarks.md]
    python bench/vs_xla.py --library flax_linen flax_nnx equinox moe_einsum \
        moe_gather moe_sequence --only --out docs/benchmarks-library.md
    python bench/vs_xla.py --library flax_linen flax_nnx equinox moe --only \
        --out docs/benchmarks-library.md      # models written with libraries

For every example model (``examples/models``) and parallelism scheme (``dp``,
``tp`` on 8 devices, ``2d`` on a 2x4 mesh) it builds two programs of the
same function with the same input and output layouts:

* **sbpc**: ``sbpc.jax.distribute`` (strategy ``optimal`` unless
  ``--strategy``), i.e. a ``jax.jit`` of sbpc's ``shard_map`` program;
* **XLA**: ``jax.jit(fn, in_shardings=..., out_shardings=...)``, the same
  ``NamedSharding``\\ s, partitioned by XLA (GSPMD/Shardy).

and measures both by the same yardsticks: collectives in the *compiled* HLO
(``bench/hlo_collectives.py``: bytes each device sends, count), median wall time
per step over repeated interleaved runs, and compile time (sbpc: its passes
plus XLA compiling the emitted program; XLA: lowering and compiling the
jit).  Both programs' outputs are checked against the unsharded function.

``--library`` adds rows of models users bring: flax linen and nnx and
equinox decoders trained with ``optax.adamw`` (``bench/library_models.py``;
parameters and state free, ``--layers`` blocks) and mixture-of-experts
layers with their experts split (``examples/models/moe.py``: ``moe_einsum``,
GShard's one-hot dispatch; ``moe_gather``, index dispatch; ``moe_sequence``,
each sequence routed as one group; width ``--moe-width``).  A row whose plan
moves more bytes than XLA's is a loss unless sbpc's report names what those
bytes buy (its ``trade:`` line) and its step is measured faster.

It writes a Markdown report with the table and a PNG plot; the ratio columns
are sbpc / XLA (< 1: sbpc better).  Rows where sbpc loses are marked.
Simulated CPU devices share two host cores: step times measure overheads
and local compute, not a network.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import jax
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "bench"))

from calibrate import calibrate_kinds, cost_model_text, scenario_text  # noqa: E402
from hlo_collectives import parse_collectives, summarize  # noqa: E402
from hlo_ops import compare  # noqa: E402
from models import EXAMPLES, SCHEMES, moe  # noqa: E402
from models.example import Example  # noqa: E402
from paired_timing import (  # noqa: E402
    batch_ratios,
    confirmed_times,
    measurably,
    paired_interval,
    paired_ratio,
    pooled,
)

import sbpc.jax  # noqa: E402

CALIBRATIONS = ("chain", "between-work", "scenarios")
BENCH_EXAMPLES = ("mlp", "mlp_train", "gpt", "gpt_train", "mixer", "mixer_train")


@dataclass
class Side:
    """One program's measurements."""

    bytes: float  # per device, sent by collectives
    collectives: int
    counts: dict[str, int]
    step_s: float
    compile_s: float
    error: float  # max relative error vs the unsharded function


@dataclass
class Row:
    example: str
    scheme: str
    sbpc: Side | None
    xla: Side | None
    note: str = ""
    paired: float = float("nan")  # median per-round step ratio sbpc / XLA
    # its 90% bootstrap interval: the spread the machine's noise leaves
    paired_interval: tuple[float, float] = (float("nan"), float("nan"))
    # each batch's paired ratio: one batch, or three when the first's
    # interval excluded 1 (``paired_timing.confirmed_times``)
    batches: tuple[float, ...] = ()
    hlo: str = ""  # compiled programs compared: "same" or what sbpc has more of
    trade: str = ""  # the plan report's ``trade:`` line: what extra bytes buy

    @property
    def same_program(self) -> bool:
        """Both compile to the same instructions: any step-time gap is noise."""
        return self.hlo == "same"

    @property
    def slower(self) -> bool:
        """sbpc's step is measurably slower than XLA's: the whole interval of
        the paired ratio lies above 1, so does every batch's ratio, and the
        two compiled programs differ (the same program cannot be slower)."""
        return (
            measurably(self.paired_interval, self.batches) > 0 and not self.same_program
        )

    @property
    def within_noise(self) -> bool:
        """The paired ratio is above 1, but not measurably (or the same
        program): the machine's noise, not a loss."""
        return self.paired > 1.0 and not self.slower

    @property
    def traded(self) -> bool:
        """More bytes than XLA, bought on purpose: the report names what they
        buy and the step is measurably faster (the whole paired interval
        lies below 1, and every batch's ratio)."""
        return bool(self.trade) and measurably(self.paired_interval, self.batches) < 0

    @property
    def byte_loss(self) -> bool:
        return self.bytes_ratio > 1.0 and not self.traded

    @property
    def bytes_ratio(self) -> float:
        assert self.sbpc and self.xla
        if self.xla.bytes == 0:
            return 1.0 if self.sbpc.bytes == 0 else float("inf")
        return self.sbpc.bytes / self.xla.bytes

    @property
    def time_ratio(self) -> float:
        assert self.sbpc and self.xla
        return self.sbpc.step_s / self.xla.step_s


def max_error(got, want) -> float:
    """Largest |got - want| / max(1, |want|) over all leaves."""

    def leaf(g, w) -> float:
        g64, w64 = np.asarray(g, np.float64), np.asarray(w, np.float64)
        scale = max(1.0, float(np.max(np.abs(w64), initial=0)))
        return float(np.max(np.abs(g64 - w64), initial=0)) / scale

    return max(jax.tree.leaves(jax.tree.map(leaf, got, want)), default=0.0)


def _hlo_side(compiled) -> tuple[float, int, dict[str, int]]:
    summary = summarize(parse_collectives(compiled.as_text(), num_devices=8))
    counts = {k: n for k, n in summary.counts.items() if n}
    return float(summary.bytes_per_device), summary.total, counts


def bench_one(
    name: str,
    example: Example,
    scheme: str,
    strategy: str,
    repeats: int,
    cost_model: str,
) -> Row:
    want = jax.jit(example.fn)(*example.args)

    start = time.perf_counter()
    try:
        dist = example.distribute(scheme, strategy=strategy, cost_model=cost_model)
    except sbpc.jax.SbpcError as e:
        return Row(name, scheme, None, None, f"sbpc failed: {str(e).splitlines()[0]}")
    placed = dist.place(*example.args)
    sbpc_compiled = dist.step.lower(*placed).compile()
    sbpc_compile_s = time.perf_counter() - start
    got = jax.tree_util.tree_unflatten(
        dist.out_tree, list(_tuple(sbpc_compiled(*placed)))
    )

    in_shardings, out_shardings = dist.shardings()
    start = time.perf_counter()
    xla_fn = jax.jit(
        lambda *flat: jax.tree.leaves(
            example.fn(*jax.tree_util.tree_unflatten(dist.in_tree, flat)[0])
        ),
        in_shardings=tuple(in_shardings),
        out_shardings=list(out_shardings),
    )
    xla_placed = tuple(
        jax.device_put(x, s)
        for x, s in zip(dist.flatten(*example.args), in_shardings, strict=True)
    )
    xla_compiled = xla_fn.lower(*xla_placed).compile()
    xla_compile_s = time.perf_counter() - start
    xla_got = jax.tree_util.tree_unflatten(
        dist.out_tree, list(xla_compiled(*xla_placed))
    )

    s_bytes, s_count, s_counts = _hlo_side(sbpc_compiled)
    x_bytes, x_count, x_counts = _hlo_side(xla_compiled)
    trade = trade_line(dist.report) if s_bytes > x_bytes else ""
    batches = confirmed_times(
        [sbpc_compiled, xla_compiled],
        [placed, xla_placed],
        repeats,
        faster_needed=bool(trade),  # a trade holds only if measured faster
    )
    sbpc_times, xla_times = pooled(batches)
    sbpc_step, xla_step = float(np.median(sbpc_times)), float(np.median(xla_times))
    return Row(
        name,
        scheme,
        Side(
            s_bytes, s_count, s_counts, sbpc_step, sbpc_compile_s, max_error(got, want)
        ),
        Side(
            x_bytes,
            x_count,
            x_counts,
            xla_step,
            xla_compile_s,
            max_error(xla_got, want),
        ),
        paired=paired_ratio(sbpc_times, xla_times),
        paired_interval=paired_interval(sbpc_times, xla_times),
        batches=batch_ratios(batches),
        hlo=compare(sbpc_compiled.as_text(), xla_compiled.as_text()),
        trade=trade,
    )


def trade_line(report: str) -> str:
    """What the plan's report says its extra bytes buy ("" if nothing)."""
    for line in report.splitlines():
        if line.startswith("trade: "):
            return line.removeprefix("trade: ")
    return ""


def _tolerance(name: str) -> float:
    """The error that float reordering alone can cause: a training step's Adam
    update moves each parameter by about +-LR whatever its gradient's size,
    so a near-zero gradient whose sign flips moves it by 2 LR (2e-3)."""
    return 2.1e-3 if name.endswith("_train") else 1e-4


def _tuple(x):
    return x if isinstance(x, tuple | list) else (x,)


# --------------------------------------------------------------------- report


def _kib(b: float) -> str:
    return f"{b / 1024:.1f}"


def _counts(c: dict[str, int]) -> str:
    short = {
        "all-gather": "AG",
        "all-reduce": "AR",
        "reduce-scatter": "RS",
        "all-to-all": "A2A",
        "collective-permute": "CP",
    }
    return " ".join(f"{short.get(k, k)}{n}" for k, n in sorted(c.items())) or "-"


def _interval(r: Row) -> str:
    low, high = r.paired_interval
    text = f"{r.paired:.2f} ({low:.2f}-{high:.2f})"
    if len(r.batches) > 1:  # confirmed: each batch's ratio
        text += " [" + " ".join(f"{b:.2f}" for b in r.batches) + "]"
    return text


def brief(hlo: str) -> str:
    """``compare``'s verdict in a table cell: ``same ...`` as it is, else
    how many instructions sbpc's program has more and fewer of."""
    if hlo.startswith("same"):
        return hlo
    counts = [int(word) for word in hlo.split()[::2]]
    more, fewer = sum(n for n in counts if n > 0), -sum(n for n in counts if n < 0)
    return f"differs: +{more} -{fewer} instructions"


def table(rows: list[Row]) -> str:
    head = (
        "| example | scheme | sbpc KiB | XLA KiB | bytes ratio | sbpc colls | XLA colls "
        "| sbpc step ms | XLA step ms | time ratio | paired ratio | compiled HLO "
        "| sbpc compile s | XLA compile s | max rel err sbpc / XLA | verdict |\n"
        "|---|---|---:|---:|---:|---|---|---:|---:|---:|---:|---|---:|---:|---|---|\n"
    )
    lines = []
    for r in rows:
        if r.sbpc is None or r.xla is None:
            lines.append(
                f"| {r.example} | {r.scheme} | "
                + " | ".join(["-"] * 13)
                + f" | {r.note} |"
            )
            continue
        s, x = r.sbpc, r.xla
        losses = []
        if r.byte_loss:
            losses.append("more bytes")
        if r.slower:
            losses.append("slower")
        verdict = "LOSS: " + ", ".join(losses) if losses else "ok"
        if not losses and r.within_noise:
            verdict = "ok (within noise)"
        if not losses and r.bytes_ratio > 1.0 and r.traded:
            verdict = f"ok (trade: {r.trade}; measured faster)"
        lines.append(
            f"| {r.example} | {r.scheme} | {_kib(s.bytes)} | {_kib(x.bytes)} | "
            f"{r.bytes_ratio:.2f} | {s.collectives} ({_counts(s.counts)}) | "
            f"{x.collectives} ({_counts(x.counts)}) | {s.step_s * 1e3:.2f} | "
            f"{x.step_s * 1e3:.2f} | {r.time_ratio:.2f} | {_interval(r)} | {brief(r.hlo)} | "
            f"{s.compile_s:.2f} | "
            f"{x.compile_s:.2f} | {s.error:.1e} / {x.error:.1e} | {verdict} |"
        )
    return head + "\n".join(lines) + "\n"


def plot(rows: list[Row], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    done = [r for r in rows if r.sbpc and r.xla]
    labels = [f"{r.example}\n{r.scheme}" for r in done]
    x = np.arange(len(done))
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(max(8, len(done) * 0.7), 7), sharex=True
    )
    width = 0.4
    top.bar(x - width / 2, [r.sbpc.bytes / 1024 for r in done], width, label="sbpc")
    top.bar(x + width / 2, [r.xla.bytes / 1024 for r in done], width, label="XLA")
    top.set_ylabel("KiB sent per device")
    top.set_yscale("symlog")
    top.legend()
    top.set_title("Collective bytes per step (compiled HLO)")
    bottom.bar(
        x,
        [r.paired for r in done],
        color=["tab:gray" if r.same_program else "tab:green" for r in done],
    )
    bottom.axhline(1.0, color="black", linewidth=0.8)
    bottom.set_ylabel("step time sbpc / XLA (paired; gray: same program)")
    bottom.set_xticks(x, labels, fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_report(
    rows: list[Row], out: Path, strategy: str, repeats: int, cost_model: str
) -> None:
    png = out.with_suffix(".png")
    plot(rows, png)
    done = [r for r in rows if r.sbpc and r.xla]
    byte_losses = [r for r in done if r.byte_loss]
    trades = [r for r in done if r.bytes_ratio > 1.0 and r.traded]
    time_losses = [r for r in done if r.slower]
    at_most_one = [r for r in done if r.paired <= 1.0]
    noise = [r for r in done if r.within_noise]
    same_noise = [r for r in noise if r.same_program]
    failed = [r for r in rows if not (r.sbpc and r.xla)]
    scenario_note = (
        "; after `|`, a second scenario of the same machine: the latency and "
        "launch cost of a collective timed between blocks of work instead of "
        "in a chain, and the search keeps the plan whose worst regret across "
        "the two is least"
        if "|" in cost_model
        else ""
    )
    text = f"""# sbpc vs XLA's partitioner

Produced by `python bench/vs_xla.py` (strategy `{strategy}`, {repeats} timed
steps per program, interleaved, each side first every other round) on {jax.device_count()} simulated CPU devices,
JAX {jax.__version__}. Do not edit by hand: rerun the benchmark.

sbpc plans with the cost model of the machine it runs on, measured at the
start of the run by `bench/calibrate.py`: `{cost_model}` (link bytes/s,
latency per ring round and fixed seconds per collective launch, one device's
flop/s and memory bytes/s, and `flops_half`: the rows at which a product
runs at half that flop rate; `combine=1`:
the search prices latency once per group of independent collectives that
sbpc's emitter runs as one, see docs/performance.md{scenario_note}). With its
default GPU-cluster model sbpc would plan for NVLink and 50 Tflop/s devices.

Each row compiles one example (`examples/models`) under one scheme with the
same input and output layouts twice: by sbpc (`sbpc.jax.distribute`) and by
XLA (`jax.jit` with the same `in_shardings`/`out_shardings`). Bytes are what
each device sends in the collectives of the *compiled* HLO (ring algorithms:
all-gather and reduce-scatter (g-1)/g of the full buffer, all-reduce twice
that, all-to-all (g-1)/g, collective-permute the buffer), summed over the
step; ratios are sbpc / XLA. Schemes: `dp` batch split over 8 devices, `tp`
Megatron-style weights over 8, `2d` both on a 2x4 mesh. Step times on
simulated devices share two host cores: they measure per-op overhead and
local compute, not a network. The time ratio is of the two medians; the
paired ratio is the median over rounds of the two back-to-back steps' ratio
(load that drifts between rounds cancels), with its 90% bootstrap interval
in brackets. `compiled HLO` compares the two compiled programs' dataflow
(`bench/hlo_ops.py`: names, metadata, channel ids, the order of independent
instructions and the spelling of replica groups taken out): `same` means
they are one program, so a gap in their
step times is noise; otherwise it counts the instructions sbpc's program
has more (+) and fewer (-) of. A row is a loss of time only when the whole
interval lies above 1.00 and the programs differ; a paired ratio above 1.00
that is not is marked "within noise".

{table(rows)}
![bytes and step time]({png.name})

## Summary

- rows: {len(rows)}; compiled by both: {len(done)}; sbpc failed: {len(failed)}
- sbpc moves no more bytes than XLA on {len(done) - len(byte_losses) - len(trades)} of {len(done)} rows; more, for what its report's `trade:` line names and measured faster, on {len(trades)}
- paired step ratio <= 1.00 on {len(at_most_one)} of {len(done)} rows; above 1.00
  but within noise on {len(noise)} (of which the same compiled program: {len(same_noise)});
  measurably slower on {len(time_losses)}
"""
    if byte_losses or time_losses or failed:
        text += "\n## Where sbpc loses\n\n"
        for r in byte_losses:
            text += f"- {r.example}/{r.scheme}: {r.bytes_ratio:.2f}x XLA's bytes\n"
        for r in time_losses:
            text += (
                f"- {r.example}/{r.scheme}: step {_interval(r)}x XLA's (paired), "
                f"compiled HLO: {r.hlo}\n"
            )
        for r in failed:
            text += f"- {r.example}/{r.scheme}: {r.note}\n"
        text += "\nCauses are discussed in docs/performance.md.\n"
    out.write_text(text)


def calibrated_cost_model(calibration: str) -> str:
    """This machine's cost model (``bench/calibrate.py``), its latency and
    per-launch overhead priced once per group of collectives the emitter
    combines (``combine=1``: the search sees combining).  ``scenarios``: the
    chain's collectives, with the between-work ones as a second scenario
    (the search keeps the plan of least worst regret across the two)."""
    kinds = ("chain", "between-work") if calibration == "scenarios" else (calibration,)
    measured = calibrate_kinds(kinds=kinds)
    for kind, values in measured.items():
        print(f"measured on this machine ({kind}): {cost_model_text(values)}")
    nominal = cost_model_text(measured[kinds[0]]) + ",combine=1"
    if calibration != "scenarios":
        return nominal
    return nominal + "|" + scenario_text(measured["between-work"])


LIBRARY = (
    "flax_linen",
    "flax_nnx",
    "equinox",
    "moe_einsum",
    "moe_gather",
    "moe_sequence",
)


def examples(args: argparse.Namespace) -> list[tuple[str, Callable[[], Example]]]:
    """(row name, builder) of every example asked for, in order."""
    out = [
        (name, EXAMPLES[name])
        for name in (BENCH_EXAMPLES if args.only is None else args.only)
    ]
    for name in args.library:
        if name.startswith("moe_"):
            dispatch = name.removeprefix("moe_")
            build = partial(moe.train_example, dispatch, args.moe_width)
        else:
            from library_models import MODELS  # flax, equinox, optax: test extra

            build = partial(MODELS[name], args.layers)
        out.append((f"{name}_train", build))  # training steps: their tolerance
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        nargs="*",
        choices=sorted(EXAMPLES),
        default=None,
        help="these examples (none: only the --library rows)",
    )
    parser.add_argument(
        "--library",
        nargs="+",
        choices=LIBRARY,
        default=[],
        help="rows of models written with libraries and of MoE layers",
    )
    parser.add_argument(
        "--layers", type=int, default=1, help="library decoders' blocks"
    )
    parser.add_argument("--moe-width", type=int, default=512)
    parser.add_argument(
        "--verbose", action="store_true", help="print the instructions that differ"
    )
    parser.add_argument(
        "--schemes", nargs="+", choices=sorted(SCHEMES), default=["dp", "tp", "2d"]
    )
    parser.add_argument(
        "--strategy", choices=("greedy", "bfs", "optimal"), default="optimal"
    )
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument(
        "--cost-model",
        default="calibrate",
        help="sbp-propagate cost model text, 'default' (GPU cluster) or "
        "'calibrate' (measure this machine first; the default)",
    )
    parser.add_argument(
        "--calibration",
        choices=CALIBRATIONS,
        default=None,
        help="how 'calibrate' measures collectives (bench/calibrate.py): in a "
        "chain (the default), between blocks of work, or both as two scenarios",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    args = parser.parse_args(argv)
    if args.calibration and args.cost_model != "calibrate":
        parser.error("--calibration measures the cost model: not with --cost-model")
    if jax.device_count() < 8:
        print("needs 8 devices: set XLA_FLAGS=--xla_force_host_platform_device_count=8")
        return 2
    cost_model = args.cost_model
    if cost_model == "calibrate":
        cost_model = calibrated_cost_model(args.calibration or "chain")
        print(f"cost model: {cost_model}", flush=True)
    rows = []
    for name, build in examples(args):
        for scheme in args.schemes:
            row = bench_one(
                name, build(), scheme, args.strategy, args.repeats, cost_model
            )
            rows.append(row)
            if row.sbpc and row.xla:
                print(
                    f"{name:12s} {scheme:3s} bytes sbpc {_kib(row.sbpc.bytes):>8s} KiB "
                    f"XLA {_kib(row.xla.bytes):>8s} KiB ({row.bytes_ratio:.2f}x)  "
                    f"step {row.sbpc.step_s * 1e3:7.2f} / {row.xla.step_s * 1e3:7.2f} ms "
                    f"({row.time_ratio:.2f}x, paired {_interval(row)}x, "
                    f"{row.hlo if args.verbose else brief(row.hlo)})  err {row.sbpc.error:.1e}/{row.xla.error:.1e}",
                    flush=True,
                )
            else:
                print(f"{name:12s} {scheme:3s} {row.note}", flush=True)
    write_report(rows, args.out, args.strategy, args.repeats, cost_model)
    print(f"wrote {args.out} and {args.out.with_suffix('.png')}")
    # Wrong numbers fail the run; float reordering (Adam's first step
    # amplifies it, XLA's own partitioning shows the same) does not.
    bad = [
        r
        for r in rows
        if r.sbpc
        and r.xla
        and r.sbpc.error > max(_tolerance(r.example), 2 * r.xla.error)
    ]
    for r in bad:
        print(f"WRONG NUMBERS: {r.example}/{r.scheme}: error {r.sbpc.error:.1e}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
