"""The main job: compile a JAX-exported MLP for a 2x4 mesh and check its numbers.

Steps: parse the annotated StableHLO (``examples/mlp_annotated.mlir``), run
``sbp-inline``, ``sbp-propagate`` (each strategy) and ``sbp-lower-boxing``,
print the chosen plan's modeled communication and the boxed IR of the
greedy plan, then run the boxed program on 8 virtual devices with the numpy
simulator and compare with the unsharded program.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from sbpc.dialects import sbp as sbp_dialect
from sbpc.passes.pipeline import parse_module, run_passes
from sbpc.passes.program_of import main_function, program_of
from sbpc.program import CollectiveInstr
from sbpc.simulator import evaluate_whole, simulate

SOURCE = Path(__file__).resolve().parent / "mlp_annotated.mlir"


def main() -> int:
    text = SOURCE.read_text()
    ok = True
    for strategy in ("greedy", "bfs", "optimal"):
        start = time.perf_counter()
        module = parse_module(text, name=str(SOURCE))
        run_passes(
            module, f"sbp-inline,sbp-propagate{{strategy={strategy}}},sbp-lower-boxing"
        )
        compile_s = time.perf_counter() - start
        program = program_of(module, main_function(module))
        steps = [i for i in program.body if isinstance(i, CollectiveInstr)]
        comm = [s for s in steps if not s.kind.startswith("local")]
        rng = np.random.default_rng(0)
        inputs = [
            rng.standard_normal(program.types[a.value].shape).astype(np.float32)
            for a in program.args
        ]
        start = time.perf_counter()
        got = simulate(program, inputs, rng)
        run_s = time.perf_counter() - start
        want = evaluate_whole(program, inputs)
        err = max(float(np.max(np.abs(g - w))) for g, w in zip(got, want, strict=True))
        ok &= err < 1e-3
        print(
            f"{strategy:8s} compile {compile_s * 1e3:7.1f} ms   boxing steps {len(steps):3d} "
            f"(communicating {len(comm):2d})   simulate {run_s * 1e3:7.1f} ms   "
            f"max |sharded - unsharded| = {err:.2e}"
        )
        if strategy == "greedy":
            greedy_module = module
    print("\nboxed IR (greedy):\n")
    print(greedy_module)
    layouts = [
        sbp_dialect.get_nd_sbp_arg_attr(main_function(greedy_module), i)
        for i in range(len(main_function(greedy_module).args))
    ]
    print(
        "argument layouts:", ", ".join(f"[{', '.join(map(str, nd))}]" for nd in layouts)
    )
    print("numbers match the unsharded program" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
