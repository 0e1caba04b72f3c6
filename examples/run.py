"""Compile an example model with sbpc and run it sharded on simulated devices.

    python examples/run.py gpt_train --scheme 2d --strategy optimal

Distributes the example with ``sbpc.jax.distribute`` under a parallelism
scheme (``dp``, ``tp``: 8 devices; ``2d``: a 2x4 mesh), runs it, and checks
its numbers against ``jax.jit`` of the unsharded function.  ``--report``
prints the plan; ``--mlir PATH`` writes the boxed module.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import argparse
import sys
import time

import jax
import numpy as np
from models import EXAMPLES, SCHEMES

import sbpc.jax


def max_error(got, want) -> float:
    """Largest |got - want| over all leaves, relative to max(1, |want|)."""
    errors = jax.tree.map(
        lambda g, w: float(
            np.max(
                np.abs(np.asarray(g, np.float64) - np.asarray(w, np.float64)), initial=0
            )
            / max(1.0, float(np.max(np.abs(np.asarray(w, np.float64)), initial=0)))
        ),
        got,
        want,
    )
    return max(jax.tree.leaves(errors), default=0.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("example", choices=sorted(EXAMPLES))
    parser.add_argument("--scheme", choices=sorted(SCHEMES), default="2d")
    parser.add_argument(
        "--strategy", choices=("greedy", "bfs", "optimal"), default="optimal"
    )
    parser.add_argument("--report", action="store_true", help="print the plan")
    parser.add_argument("--mlir", metavar="PATH", help="write the boxed module")
    args = parser.parse_args(argv)

    example = EXAMPLES[args.example]()
    start = time.perf_counter()
    try:
        step = example.distribute(args.scheme, strategy=args.strategy)
    except sbpc.jax.SbpcError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    compile_s = time.perf_counter() - start
    got = step(*example.args)
    want = jax.jit(example.fn)(*example.args)
    error = max_error(got, want)
    totals = step.plans[0].plan
    if args.report:
        print(step.report)
    if args.mlir:
        with open(args.mlir, "w") as out:
            out.write(step.mlir)
    mesh = "x".join(map(str, example.mesh(args.scheme)))
    print(
        f"{args.example} ({args.scheme} on {mesh}, {args.strategy}): sbpc compile "
        f"{compile_s:.2f} s, modeled communication {totals.comm_time * 1e6:.1f} us; "
        f"max relative error vs jax.jit {error:.2e}"
    )
    ok = error < 1e-4
    print("numbers match" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
