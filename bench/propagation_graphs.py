"""Benchmark of the propagation strategies on transformer-like graphs.

    PYTHONPATH=. python bench/propagation_graphs.py [--sizes 1000,10000,50000]

For every size: a plain decoder stack (series-parallel, solved exactly by
the shrinking alone) and the same stack with two DenseNet-like skips per
layer (treewidth 3: the series/leaf shrinking leaves a core; the label
pruning then removes it on these graphs, so a "no-prune" row shows HiGHS on
that core, and at 1k a "no-shrink" row the ILP on the whole graph).  Prints greedy,
BFS (two layers configured Megatron-style) and optimal times, the graph size
before and after shrinking, and the cost ratios.  Times are wall-clock on
this machine; costs are modeled seconds (``RingCost`` on a 2 x 4 mesh:
25 GB/s and 10 us between nodes, 300 GB/s and 2 us inside; 100 TFLOP/s).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sbpc.propagation.driver import propagate
from sbpc.propagation.optimal import Optimal
from sbpc.testing.synthetic_graphs import RingCost, transformer_graph

OPS_PER_LAYER = 17


def row(
    size: int,
    skips: int,
    hierarchy: tuple[int, ...],
    time_limit: float,
    shrink: bool = True,
    prune: bool = True,
) -> dict:
    layers = max((size - 2) // (OPS_PER_LAYER + skips), 1)
    t0 = time.perf_counter()
    g = transformer_graph(layers, hierarchy, configure=2, dense_skips=skips)
    t_build = time.perf_counter() - t0
    cost = RingCost(hierarchy, bandwidth=(25e9, 300e9), latency=(1e-5, 2e-6))
    ops = sum(1 for _ in g.ops())
    t0 = time.perf_counter()
    pg = propagate(g, cost.time, "greedy")
    t_greedy = time.perf_counter() - t0
    t0 = time.perf_counter()
    pb = propagate(g, cost.time, "bfs")
    t_bfs = time.perf_counter() - t0
    t0 = time.perf_counter()
    po = propagate(
        g,
        cost.time,
        Optimal(shrink_graph=shrink, prune_labels=prune),
        time_limit=time_limit,
    )
    t_opt = time.perf_counter() - t0
    s = po.stats
    return {
        "graph": ("dense" if skips else "plain")
        + ("" if shrink else " no-shrink")
        + ("" if prune or not shrink else " no-prune"),
        "ops": ops,
        "nodes": len(g.nodes),
        "edges": len(g.edges),
        "build s": t_build,
        "greedy s": t_greedy,
        "bfs s": t_bfs,
        "optimal s": t_opt,
        "shrink s": s["seconds_shrink"],
        "highs s": s.get("seconds_highs", 0.0),
        "core": f"{s['core_nodes']}/{s['core_factors']}",
        "ilp cols": s.get("ilp_columns", 0),
        "proven": f"{s['proven']} ({s['gap']:.1e})",
        "opt/greedy": po.total_time / pg.total_time,
        "opt/bfs": po.total_time / pb.total_time,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--skips", default="0,2", help="dense skips per layer to try")
    args = parser.parse_args()
    hierarchy = (2, 4)
    rows = []
    for size in (int(x) for x in args.sizes.split(",")):
        for skips in (int(x) for x in args.skips.split(",")):
            rows.append(row(size, skips, hierarchy, args.time_limit))
            print_row(rows[-1], header=len(rows) == 1)
            if skips:  # the ILP at scale: the core the label pruning removes
                rows.append(row(size, skips, hierarchy, args.time_limit, prune=False))
                print_row(rows[-1], header=False)
            if size <= 1000:  # the ILP on the whole graph
                rows.append(row(size, skips, hierarchy, args.time_limit, shrink=False))
                print_row(rows[-1], header=False)


def print_row(r: dict, header: bool) -> None:
    cells = []
    for k, v in r.items():
        if isinstance(v, float):
            v = f"{v:.3f}" if "/" in k else f"{v:.2f}"
        cells.append(str(v))
    if header:
        print("| " + " | ".join(r) + " |")
        print("|" + "---|" * len(r))
    print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
