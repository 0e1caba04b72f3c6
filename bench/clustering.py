"""The optimal strategy with and without repeated-layer clustering, interleaved.

    python bench/clustering.py --layers 8 --repeats 3

The GPT example's Adam training step (``2d`` on 2x4, as
``bench/planning_time.py``) planned by ``sbpc.jax.distribute`` with
``Optimal(cluster=False)`` (the whole core's LP) and ``Optimal()``
(``docs/planning-time.md``), under the model without combining (one solve
each), one after the other in one process, the order
alternating between repeats, the edge-price cache emptied before each run.
Prints one JSON line per run: seconds of ``distribute``, of the strategy
and of each of its phases, the plan's objective, and whether it is proven
(with its gap).  Compare the sides with medians; nothing here is asserted.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse
import json
import sys
import time

import planning_time as bench  # bench/ is on the path when run as a script

from sbpc.passes import propagate as propagate_pass
from sbpc.propagation.driver import STRATEGIES
from sbpc.propagation.optimal import Optimal

# The optimal strategy's own solve, once: the default model's combining
# search would refine its plan with local improvements (docs/passes.md).
PLAIN_MODEL = "combine=0,overhead=0"


def run(layers: int, cluster: bool) -> dict:
    """One timed ``distribute`` with clustering on or off."""
    saved = STRATEGIES[Optimal.name]
    STRATEGIES[Optimal.name] = Optimal(cluster=cluster)
    try:
        bench.cold()
        propagate_pass._padded_times.cache_clear()
        started = time.perf_counter()
        step = bench.distribute(
            bench.gpt_train(layers), "2d", Optimal.name, PLAIN_MODEL
        )
        seconds = time.perf_counter() - started
    finally:
        STRATEGIES[Optimal.name] = saved
    timing = step.timing
    assert timing is not None
    stats = step.plans[0].plan.stats
    strategy = ("sbp-propagate", f"strategy {Optimal.name}")
    return {
        "layers": layers,
        "cluster": cluster,
        "distribute_s": seconds,
        "strategy_s": timing.seconds(*strategy),
        "phases": {name: timing.seconds(*strategy, name) for name in bench.OPTIMAL},
        "objective": stats.get("objective"),
        "proven": stats.get("proven"),
        "gap": stats.get("gap"),
        "cluster_outcome": stats.get("cluster"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, nargs="+", default=[8])
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    for layers in args.layers:
        for repeat in range(args.repeats):
            order = (False, True) if repeat % 2 == 0 else (True, False)
            for cluster in order:
                print(json.dumps(run(layers, cluster)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
