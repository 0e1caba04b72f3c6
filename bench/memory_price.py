"""The memory price against the exact budgeted program, side by side.

    PYTHONPATH=. python bench/memory_price.py [--layers 2 4] [--shares 0.9 0.7 0.5 0.3]

On ``transformer_graph(layers, (2, 4))`` (``RingCost`` on 2 x 4) under a
share of the unbudgeted plan's peak, three plans of the optimal strategy:

- **exact**: the budgeted integer program (``memory_rows``; the path of
  graphs of at most ``price_above`` nodes);
- **price**: the memory price's plan as the search leaves it, relinked,
  not crossed (``memory_price.search`` and ``relink``);
- **crossed**: the same plans crossed in the budgeted program cut to their
  labels (``crossover``, the default since session 15).

Per row: each plan's modelled cost over the exact program's, its planning
seconds, and what the crossover did.  Every plan fits its budget (the
exact model, ``plan_memory``), or the row says it does not.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sbpc.propagation.driver import propagate
from sbpc.propagation.graph import PropagationError
from sbpc.propagation.optimal import Optimal
from sbpc.propagation.solver import memory_price
from sbpc.propagation.solver.crossover import Crossed
from sbpc.testing.synthetic_graphs import RingCost, transformer_graph

PRICED = Optimal(price_above=0)
EXACT = Optimal(price_above=10**9)


def _not_crossed(*_, **__) -> Crossed:
    return Crossed(None, 0, 0, "off")


def _plan(g, cost, strategy: Optimal, budget: float, crossed: bool = True):
    started = time.perf_counter()
    try:
        if crossed:
            plan = propagate(g, cost, strategy, memory_budget=budget)
        else:
            with mock.patch.object(memory_price, "crossover", _not_crossed):
                plan = propagate(g, cost, strategy, memory_budget=budget)
    except PropagationError as e:
        return None, time.perf_counter() - started, str(e).splitlines()[0]
    seconds = time.perf_counter() - started
    fits = "" if plan.peak_memory <= budget else " OVER THE BUDGET"
    return plan, seconds, fits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--shares", type=float, nargs="+", default=[0.9, 0.7, 0.5, 0.3])
    args = parser.parse_args()
    print(
        f"{'layers':>6} {'share':>5} {'exact s':>8} {'price':>7} {'s':>5} "
        f"{'crossed':>7} {'s':>5}  crossover"
    )
    for layers in args.layers:
        g = transformer_graph(layers, (2, 4), dense_skips=1)
        cost = RingCost((2, 4)).time
        free = propagate(g, cost, "optimal")
        for share in args.shares:
            budget = share * free.peak_memory
            exact, t_exact, why = _plan(g, cost, EXACT, budget)
            if exact is None:
                print(f"{layers:6} {share:5} exact: {why}")
                continue
            price, t_price, p_note = _plan(g, cost, PRICED, budget, crossed=False)
            crossed, t_crossed, c_note = _plan(g, cost, PRICED, budget)
            if price is None or crossed is None:
                print(f"{layers:6} {share:5} price: {p_note or c_note}")
                continue
            base = exact.total_time
            did = crossed.stats.get("memory_price_crossover", "-")
            print(
                f"{layers:6} {share:5} {t_exact:8.2f} "
                f"{price.total_time / base:7.3f} {t_price:5.2f} "
                f"{crossed.total_time / base:7.3f} {t_crossed:5.2f}  "
                f"{did}{p_note}{c_note}{why}"
            )


if __name__ == "__main__":
    main()
