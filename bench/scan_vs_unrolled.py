"""Planning time of a scanned 12-layer GPT training step vs its unrolled twin.

The same decoder blocks, 12 of them, in two spellings:
``examples/models/gpt.py``'s Python loop over 12 parameter dicts (JAX
unrolls it: 12 copies of every op, forward and backward) and
``examples/models/gpt_scanned.py``'s ``lax.scan`` over one dict of stacked
weights (one copy of the block in a ``stablehlo.while`` body, forward and
backward).  Both are distributed data-parallel on 8 devices; the benchmark
prints, per strategy, the ops sbp-propagate plans and its wall time, and
checks that both programs compute what ``jax.jit`` computes.

    python bench/scan_vs_unrolled.py                      # all strategies
    python bench/scan_vs_unrolled.py --strategies greedy  # one
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import jax
import numpy as np
from models import gpt, gpt_scanned

from sbpc.jax import annotate, distribute
from sbpc.passes.inline import SbpInlinePass
from sbpc.passes.pipeline import default_context
from sbpc.passes.propagate import SbpPropagatePass

LAYERS = 12


def sgd_step(loss):
    def step(params, tokens, targets):
        value, grads = jax.value_and_grad(loss)(params, tokens, targets)
        return value, jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)

    return step


def _params():
    with gpt.Depth(LAYERS):
        params = gpt.init_params(0)
    return params, gpt_scanned.init_params(LAYERS, 0)


def _count_ops(module) -> int:
    return sum(1 for op in module.walk() if op.name.startswith("stablehlo."))


def plan_time(step, args, layouts, strategy: str) -> tuple[int, float]:
    """(stablehlo ops after inlining, seconds of sbp-propagate)."""
    annotated = annotate(step, *args, mesh=8, in_layouts=layouts)
    module = annotated.module
    SbpInlinePass().apply(default_context(), module)
    ops = _count_ops(module)
    start = time.perf_counter()
    SbpPropagatePass(strategy=strategy).plan_module(module)
    elapsed = time.perf_counter() - start
    return ops, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", nargs="+", default=["greedy", "bfs", "optimal"])
    parser.add_argument("--no-check", action="store_true", help="skip running them")
    options = parser.parse_args()

    params, stacked = _params()
    tokens, targets = gpt.batch(0)
    layouts = (None, "[S(0)]", "[S(0)]")
    twins = {
        "unrolled": (sgd_step(gpt.loss_fn), (params, tokens, targets)),
        "scanned": (sgd_step(gpt_scanned.loss_fn), (stacked, tokens, targets)),
    }
    print(f"{LAYERS}-layer GPT training step, data-parallel on 8 devices")
    print(f"{'strategy':<10}{'program':<10}{'ops':>8}{'plan (s)':>10}")
    for strategy in options.strategies:
        times = {}
        for name, (step, args) in twins.items():
            ops, seconds = plan_time(step, args, layouts, strategy)
            times[name] = seconds
            print(f"{strategy:<10}{name:<10}{ops:>8}{seconds:>10.3f}")
        ratio = times["unrolled"] / times["scanned"]
        print(f"{'':<10}scanned plans {ratio:.1f}x faster")
    if options.no_check:
        return
    for name, (step, args) in twins.items():
        want = jax.jit(step)(*args)
        got = distribute(step, *args, mesh=8, in_layouts=layouts)(*args)
        error = max(
            float(np.max(np.abs(np.asarray(g) - np.asarray(w))))
            for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True)
        )
        print(f"{name}: max error vs jax.jit {error:.2e}")


if __name__ == "__main__":
    main()
