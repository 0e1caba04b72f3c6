"""Parse vs. propagate vs. box on transformer-like modules of 1k, 10k and 50k ops.

Generates StableHLO text of stacked MLP/layernorm blocks (each block: two
matmuls with their weights, bias broadcasts, a GELU-like chain, a residual
add and a layernorm-like reduction), annotated for a 2x4 mesh with the batch
split.  Prints, side by side in one run, the time to parse the module, to
run the ``sbp-propagate`` pass with each strategy (the pass alone: building
its graph, its own check of the annotations, the strategy, writing the plan
back), and to run ``sbp-lower-boxing``, with the ratio of each to parsing;
and the time of xDSL's verifier on the module (``module.verify()``, which
``sbpc-opt`` runs after parsing and ``run_passes`` after the passes: counted
apart, as ``sbpc-opt --timing`` counts it).  Every timed step runs with
Python's cyclic garbage collector held off, as ``sbpc-opt`` runs
(``sbpc.collector``), after a collection of what earlier steps left.

    python bench/pipeline_scaling.py            # 1k and 10k ops
    python bench/pipeline_scaling.py --big      # also 50k ops
    python bench/pipeline_scaling.py --repeats 3 --strategies greedy,bfs
    python bench/pipeline_scaling.py --clock cpu   # this process's CPU time

A small module goes through every pass first (one-time costs: imports, rule
tables), and each time is the best of ``--repeats`` runs on a fresh parse.
"""

from __future__ import annotations

import argparse
import gc
import math
import time

from xdsl.passes import PassPipeline

from sbpc.collector import collector_paused
from sbpc.passes.pipeline import default_context, parse_module, run_passes
from sbpc.passes.universe import SBPC_UNIVERSE

D, H, ROWS = 64, 256, 32
OPS_PER_BLOCK = 17


def block(i: int, x: str) -> tuple[list[str], list[str], str]:
    """One block's weight arguments, ops, and its output value."""
    t, th = f"tensor<{ROWS}x{D}xf32>", f"tensor<{ROWS}x{H}xf32>"
    args = [
        f"%w1_{i}: tensor<{D}x{H}xf32>",
        f"%b1_{i}: tensor<{H}xf32>",
        f"%w2_{i}: tensor<{H}x{D}xf32>",
    ]
    p = f"%l{i}_"
    ops = [
        f"{p}0 = stablehlo.dot_general {x}, %w1_{i}, contracting_dims = [1] x [0] : ({t}, tensor<{D}x{H}xf32>) -> {th}",
        f"{p}1 = stablehlo.broadcast_in_dim %b1_{i}, dims = [1] : (tensor<{H}xf32>) -> {th}",
        f"{p}2 = stablehlo.add {p}0, {p}1 : {th}",
        f"{p}3 = stablehlo.multiply {p}2, {p}2 : {th}",
        f"{p}4 = stablehlo.multiply {p}3, {p}2 : {th}",
        f"{p}5 = stablehlo.add {p}2, {p}4 : {th}",
        f"{p}6 = stablehlo.tanh {p}5 : {th}",
        f"{p}7 = stablehlo.multiply {p}2, {p}6 : {th}",
        f"{p}8 = stablehlo.dot_general {p}7, %w2_{i}, contracting_dims = [1] x [0] : ({th}, tensor<{H}x{D}xf32>) -> {t}",
        f"{p}9 = stablehlo.add {x}, {p}8 : {t}",
        f"{p}c = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
        f"{p}10 = stablehlo.reduce({p}9 init: {p}c) applies stablehlo.add across dimensions = [1] : ({t}, tensor<f32>) -> tensor<{ROWS}xf32>",
        f"{p}11 = stablehlo.broadcast_in_dim {p}10, dims = [0] : (tensor<{ROWS}xf32>) -> {t}",
        f"{p}12 = stablehlo.subtract {p}9, {p}11 : {t}",
        f"{p}13 = stablehlo.multiply {p}12, {p}12 : {t}",
        f"{p}14 = stablehlo.exponential {p}13 : {t}",
        f"{p}15 = stablehlo.multiply {p}12, {p}14 : {t}",
    ]
    return args, ops, f"{p}15"


def module_text(n_ops: int) -> str:
    blocks = max(1, n_ops // OPS_PER_BLOCK)
    args = [f"%x: tensor<{ROWS}x{D}xf32> {{sbp.nd_sbp = #sbp.nd<[S(0), B]>}}"]
    body: list[str] = []
    x = "%x"
    for i in range(blocks):
        a, ops, x = block(i, x)
        args += a
        body += ops
    return (
        "module attributes {sbp.placement = #sbp.placement<cpu, [[0, 1, 2, 3], [4, 5, 6, 7]]>} {\n"
        f"  func.func @main({', '.join(args)}) -> tensor<{ROWS}x{D}xf32> {{\n"
        + "".join(f"    {op}\n" for op in body)
        + f"    return {x} : tensor<{ROWS}x{D}xf32>\n  }}\n}}\n"
    )


# Wall time, or (``--clock cpu``) this process's CPU time: on a machine
# shared with other jobs, less of their load shows in it.
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCKS["wall"]


def timed(fn, *args) -> float:
    gc.collect()
    with collector_paused():
        start = clock()
        fn(*args)
        return clock() - start


def apply(module, spec: str, ctx) -> None:
    """The passes of ``spec`` alone (no module verification around them)."""
    PassPipeline.parse_spec(SBPC_UNIVERSE.all_passes, spec).apply(ctx, module)


def best_pass_time(text: str, spec: str, ctx, repeats: int) -> float:
    """Best time of the passes ``spec`` over fresh parses of ``text``."""
    best = math.inf
    for _ in range(repeats):
        module = parse_module(text, ctx)
        best = min(best, timed(apply, module, spec, ctx))
    return best


def best_boxing_time(text: str, strategy: str, ctx, repeats: int) -> float:
    """Best time of ``sbp-lower-boxing`` after ``strategy``'s propagation."""
    best = math.inf
    for _ in range(repeats):
        module = parse_module(text, ctx)
        run_passes(module, f"sbp-propagate{{strategy={strategy}}}", ctx)
        best = min(best, timed(apply, module, "sbp-lower-boxing", ctx))
    return best


def best_verify_time(text: str, ctx, repeats: int) -> float:
    """Best time of xDSL's ``module.verify()`` on a fresh parse of ``text``."""
    return min(timed(parse_module(text, ctx).verify) for _ in range(repeats))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--big", action="store_true", help="also run 50k ops")
    ap.add_argument(
        "--strategies", default="greedy,bfs,optimal", help="comma-separated list"
    )
    ap.add_argument("--repeats", type=int, default=1, help="best of this many runs")
    ap.add_argument(
        "--clock", choices=sorted(CLOCKS), default="wall", help="what a time is"
    )
    args = ap.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    sizes = [1_000, 10_000] + ([50_000] if args.big else [])
    strategies = args.strategies.split(",")
    ctx = default_context()
    repeats = max(1, args.repeats)
    warm = parse_module(module_text(100), ctx)  # one-time costs, untimed
    run_passes(warm, "sbp-propagate,sbp-lower-boxing", ctx)
    header = f"{'ops':>7} {'parse s':>8}" + "".join(
        f" {s + ' s':>11} {'/parse':>7}" for s in strategies
    )
    header += f" {'boxing s':>9} {'/parse':>7} {'verify s':>9} {'/parse':>7}"
    print(header)
    for n in sizes:
        text = module_text(n)
        parse_s = min(timed(parse_module, text, ctx) for _ in range(repeats))
        row = f"{n:>7} {parse_s:8.2f}"
        for strategy in strategies:
            s = best_pass_time(
                text, f"sbp-propagate{{strategy={strategy}}}", ctx, repeats
            )
            row += f" {s:11.2f} {s / parse_s:7.2f}"
        boxing_s = best_boxing_time(text, strategies[0], ctx, repeats)
        row += f" {boxing_s:9.2f} {boxing_s / parse_s:7.2f}"
        verify_s = best_verify_time(text, ctx, repeats)
        row += f" {verify_s:9.2f} {verify_s / parse_s:7.2f}"
        print(row, flush=True)


if __name__ == "__main__":
    main()
