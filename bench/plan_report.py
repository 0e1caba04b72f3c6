"""Time to draw a plan: the HTML report of decoder stacks of growing depth.

    python bench/plan_report.py [--layers 2,8,24,48] [--no-collapse-up-to 24]

For every depth: the greedy plan of ``transformer_graph`` (17 ops a layer)
on a 2 x 4 mesh, then the report's parts timed apart: the view (boxing
collectives of every change, memory over time, repeated-layer detection),
Graphviz's layout (``dot`` to SVG) and matplotlib's memory plot, with the
nodes drawn and the page size; once with repeated layers collapsed (the
default above 200 ops) and, up to ``--no-collapse-up-to`` layers, once with
every op drawn.  Wall-clock on this machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sbpc.propagation.driver import propagate
from sbpc.propagation.report.dot import plan_graph, render_svg
from sbpc.propagation.report.html import format_html, memory_svg
from sbpc.propagation.report.view import plan_view
from sbpc.testing.synthetic_graphs import RingCost, transformer_graph


def measure(plan, collapse_above: int | None) -> dict:
    t0 = time.perf_counter()
    view = plan_view(plan, "stack", collapse_above=collapse_above)
    t1 = time.perf_counter()
    render_svg(plan_graph(view))
    t2 = time.perf_counter()
    memory_svg(view)
    t3 = time.perf_counter()
    page = format_html([view])
    return {
        "view": t1 - t0,
        "dot": t2 - t1,
        "memory": t3 - t2,
        "nodes": len(view.nodes),
        "kib": len(page) / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", default="2,8,24,48")
    parser.add_argument("--no-collapse-up-to", type=int, default=24)
    args = parser.parse_args()
    ring = RingCost((2, 4))
    print(
        f"{'layers':>6} {'ops':>5} {'collapse':>8} {'nodes':>6} {'view s':>7} "
        f"{'dot s':>7} {'memory s':>8} {'page KiB':>9}"
    )
    for layers in (int(n) for n in args.layers.split(",")):
        g = transformer_graph(layers, (2, 4))
        plan = propagate(g, ring.time, "greedy", edge_bytes=ring.bytes)
        ops = len(list(g.ops()))
        modes = [("auto", 200)]
        if layers <= args.no_collapse_up_to:
            modes.append(("off", None))
        for name, above in modes:
            r = measure(plan, above)
            print(
                f"{layers:>6} {ops:>5} {name:>8} {r['nodes']:>6} {r['view']:>7.2f} "
                f"{r['dot']:>7.2f} {r['memory']:>8.2f} {r['kib']:>9.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
