"""The emitter's own overhead: sbpc's program vs ``jax.jit`` on one device.

On a 1-device mesh there is nothing to communicate, so any difference in
step time between ``sbpc.jax.distribute(fn, ...)`` and ``jax.jit(fn)`` is what
the emitted program itself costs (an op written less well than JAX writes
it, a precision or type the input did not ask for).  Both run side by side
in one process, their calls interleaved so they share the machine's noise;
the ratio is sbpc's median step time over ``jax.jit``'s, and the paired
ratio the median over rounds of the two back-to-back loops' ratio (less
moved by load that drifts between rounds), with its 90% bootstrap interval
(``bench/paired_timing.py``).  Target: <= 1.02x.
The ``compiled HLO`` column compares what the two calls compile to
(``bench/hlo_ops.py``: the optimized HLO with names, metadata and the order
of parameters and constants taken out): ``same`` means one program, so any
difference in step time is the call's dispatch or the machine's noise.

    python bench/emitter_overhead.py                 # every example, small sizes
    python bench/emitter_overhead.py --size gpt125m  # GPT at 125M-class sizes
    python bench/emitter_overhead.py --donate        # training steps donate

Runs on whatever backend JAX finds (CPU here, a GPU where there is one).
Training steps are run as a training loop (the step's new parameters and
optimizer state feed the next call), so ``--donate`` (``donate_argnums`` on
both sides) measures what a real loop does.  Exits 1 when sbpc's numbers
differ from ``jax.jit``'s beyond float reordering; timings never fail it.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jax
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

from models import EXAMPLES, gpt, mixer, mlp  # noqa: E402

import sbpc.jax  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from hlo_ops import compare  # noqa: E402
from paired_timing import paired_interval, paired_ratio  # noqa: E402

# Named sizes: module constants of the example models, set for one run.
SIZES: dict[str, dict[Any, dict[str, Any]]] = {
    "small": {},
    "gpt125m": {  # the 125M-class GPT (vocab 8192, seq 256, d 768)
        gpt: dict(VOCAB=8192, SEQ=256, MODEL=768, HEADS=12, HIDDEN=3072, LAYERS=4, BATCH=8),
        mlp: dict(SIZES=(1024, 4096, 4096, 1024), CLASSES=1024, BATCH=512),
        mixer: dict(WIDTH=512, TOKEN_HIDDEN=256, CHANNEL_HIDDEN=2048, BLOCKS=8, BATCH=64),
    },
    "gpt350m": {  # d 1024 x 8 layers
        gpt: dict(VOCAB=8192, SEQ=256, MODEL=1024, HEADS=16, HIDDEN=4096, LAYERS=8, BATCH=8),
        mlp: dict(SIZES=(2048, 8192, 8192, 2048), CLASSES=1024, BATCH=1024),
        mixer: dict(WIDTH=768, TOKEN_HIDDEN=384, CHANNEL_HIDDEN=3072, BLOCKS=12, BATCH=64),
    },
}  # fmt: skip


@contextlib.contextmanager
def sized(size: str) -> Iterator[None]:
    """The example modules' size constants set to ``SIZES[size]``, then restored."""
    saved = {m: {k: getattr(m, k) for k in c} for m, c in SIZES[size].items()}
    try:
        for module, constants in SIZES[size].items():
            for k, v in constants.items():
                setattr(module, k, v)
        yield
    finally:
        for module, constants in saved.items():
            for k, v in constants.items():
                setattr(module, k, v)


def _is_train(name: str) -> bool:
    return name.endswith("_train")


def _loop(fn, args: tuple, train: bool, steps: int):
    """``steps`` calls; a training step's parameters and state feed the next."""
    out = None
    for _ in range(steps):
        out = fn(*args)
        if train:
            _, params, opt = out
            args = (params, opt, *args[2:])
    jax.block_until_ready(out)
    return out, args


def _error(got, want) -> float:
    """Largest |got - want| over all leaves, relative to each leaf's scale."""
    errs = [
        float(np.max(np.abs(np.asarray(g, np.float64) - np.asarray(w, np.float64))))
        / max(1.0, float(np.max(np.abs(np.asarray(w, np.float64)))))
        for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True)
    ]
    return max(errs, default=0.0)


def compiled_comparison(dist: sbpc.jax.Distributed, jit_fn: Any, args: tuple) -> str:
    """``same`` when sbpc's call compiles to the program ``jax.jit``'s does
    (``bench/hlo_ops.py``), else what sbpc's has more (+) or fewer (-) of."""
    ours = dist.lower(*args).compile().as_text()
    theirs = jit_fn.lower(*args).compile().as_text()
    return compare(ours, theirs)


def bench_one(name: str, repeats: int, steps: int, donate: bool) -> dict[str, Any]:
    example = EXAMPLES[name]()
    train = _is_train(name)
    donated = (0, 1) if donate and train else ()
    replicated = jax.tree.map(lambda _: "[B]", example.args)
    start = time.perf_counter()
    dist = sbpc.jax.distribute(
        example.fn,
        *example.args,
        mesh=1,
        in_layouts=replicated,
        out_layouts=None,
        strategy="greedy",
        donate_argnums=donated,
    )
    plan_s = time.perf_counter() - start
    sbpc_fn = dist  # the callable with fn's signature
    jit_fn = jax.jit(example.fn, donate_argnums=donated)

    def fresh() -> tuple:
        return tuple(jax.tree.map(jax.numpy.asarray, example.args))

    hlo = compiled_comparison(dist, jit_fn, fresh())
    want, _ = _loop(jit_fn, fresh(), train, 1)
    got, _ = _loop(sbpc_fn, fresh(), train, 1)
    error = _error(got, want)
    # Warm loops, then interleaved timed loops of `steps` calls each.
    args = {"sbpc": fresh(), "jit": fresh()}
    fns = {"sbpc": sbpc_fn, "jit": jit_fn}
    for key in fns:
        _, args[key] = _loop(fns[key], args[key], train, 2)
    times: dict[str, list[float]] = {k: [] for k in fns}
    for i in range(repeats):
        # Each side goes first every other round (ABBA), so neither always
        # runs right after the other has warmed or loaded the machine.
        for key in ("sbpc", "jit") if i % 2 == 0 else ("jit", "sbpc"):
            t0 = time.perf_counter()
            _, args[key] = _loop(fns[key], args[key], train, steps)
            times[key].append((time.perf_counter() - t0) / steps)
    sbpc_s, jit_s = (float(np.median(times[k])) for k in ("sbpc", "jit"))
    # The two loops of a round ran back to back: their ratio cancels the
    # load that drifts between rounds on a shared machine.
    paired = paired_ratio(times["sbpc"], times["jit"])
    low, high = paired_interval(times["sbpc"], times["jit"])
    return {
        "name": name,
        "sbpc_ms": sbpc_s * 1e3,
        "jit_ms": jit_s * 1e3,
        "ratio": sbpc_s / jit_s,
        "paired": paired,
        "paired_low": low,
        "paired_high": high,
        "plan_s": plan_s,
        "error": error,
        "hlo": hlo,
    }


def table(rows: list[dict[str, Any]], size: str, donate: bool) -> str:
    device = jax.devices()[0]
    lines = [
        f"emitter overhead on {device.platform} ({device.device_kind}), "
        f"1-device mesh, size {size}, donate {'on' if donate else 'off'}",
        "",
        "| example | sbpc step (ms) | jax.jit step (ms) | ratio | paired ratio "
        "| 90% interval | rel. error | compiled HLO |",
        "| --- | ---: | ---: | ---: | ---: | --- | ---: | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['name']} | {r['sbpc_ms']:.3f} | {r['jit_ms']:.3f} | "
            f"{r['ratio']:.3f}x | {r['paired']:.3f}x | "
            f"{r['paired_low']:.3f}-{r['paired_high']:.3f} | {r['error']:.1e} | "
            f"{r['hlo']} |"
        )
    worst = max((r["ratio"] for r in rows), default=float("nan"))
    paired = max((r["paired"] for r in rows), default=float("nan"))
    low = max((r["paired_low"] for r in rows), default=float("nan"))
    lines += [
        "",
        f"worst ratio {worst:.3f}x, worst paired ratio {paired:.3f}x, "
        f"highest interval low end {low:.3f}x (target <= 1.02x)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("examples", nargs="*", default=list(EXAMPLES))
    parser.add_argument("--size", choices=list(SIZES), default="small")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--steps", type=int, default=5, help="calls per timed loop")
    parser.add_argument("--donate", action="store_true")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.examples) - set(EXAMPLES))
    if unknown:
        parser.error(
            f"unknown example(s) {', '.join(unknown)}; known: {', '.join(EXAMPLES)}"
        )
    rows = []
    with sized(args.size):
        for name in args.examples:
            rows.append(bench_one(name, args.repeats, args.steps, args.donate))
            r = rows[-1]
            print(
                f"{name}: {r['ratio']:.3f}x (planned in {r['plan_s']:.1f} s)",
                flush=True,
            )
    print()
    print(table(rows, args.size, args.donate))
    # Adam steps differ from jax.jit by float reordering only (the bench of
    # vs_xla.py uses the same bound); forward passes much less.
    bad = [r for r in rows if r["error"] > (2e-2 if _is_train(r["name"]) else 1e-3)]
    for r in bad:
        print(f"MISMATCH {r['name']}: relative error {r['error']:.2e}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
