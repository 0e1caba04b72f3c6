"""How long the boxing planner takes to plan every layout pair, from a cold cache.

    PYTHONPATH=. python bench/boxing_planner.py

Plans every (source, target) pair of nd_sbps for rank-3 tensors on the
hierarchy [2, 2, 2] (and, for scale, [2, 4]), once with the entries
{S(0..2), B, P(sum), P(max)} and once with P(min) too.  The first pass
includes building the step graph and one Dijkstra per source; the second
shows the cached lookup.  On [2, 2, 2, 2] (1296 layouts, 1.7M pairs) it
plans a random sample of pairs instead.
"""

from __future__ import annotations

import itertools
import random
import time

from sbpc.algebra.layout import is_even
from sbpc.algebra.sbp import B, Partial, S, Sbp
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.planner import clear_cache, plan


def layouts(entries: list[Sbp], tensor: TensorType, hierarchy: tuple[int, ...]):
    return [
        nd
        for nd in itertools.product(entries, repeat=len(hierarchy))
        if is_even(tensor.shape, nd, hierarchy)
    ]


def bench(hierarchy: tuple[int, ...], with_min: bool) -> None:
    tensor = TensorType((64, 64, 64), "f32")
    entries: list[Sbp] = [S(0), S(1), S(2), B, Partial("sum"), Partial("max")]
    if with_min:
        entries.append(Partial("min"))
    nds = layouts(entries, tensor, hierarchy)
    clear_cache()
    start = time.perf_counter()
    steps = 0
    for src in nds:
        for dst in nds:
            steps += len(plan(src, dst, tensor, hierarchy).steps)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    for src in nds:
        for dst in nds:
            plan(src, dst, tensor, hierarchy)
    warm = time.perf_counter() - start
    pairs = len(nds) ** 2
    kinds = "S,B,P(sum|max|min)" if with_min else "S,B,P(sum|max)"
    print(
        f"hierarchy {list(hierarchy)!s:<13} {kinds:<18} {len(nds):4d} layouts "
        f"{pairs:7d} pairs  cold {cold:6.2f} s ({cold / pairs * 1e6:5.1f} us/pair)  "
        f"cached {warm:5.2f} s  mean {steps / pairs:.2f} steps"
    )


def bench_sample(hierarchy: tuple[int, ...], count: int) -> None:
    tensor = TensorType((64, 64, 64), "f32")
    entries: list[Sbp] = [S(0), S(1), S(2), B, Partial("sum"), Partial("max")]
    nds = layouts(entries, tensor, hierarchy)
    rng = random.Random(0)
    todo = [(rng.choice(nds), rng.choice(nds)) for _ in range(count)]
    clear_cache()
    start = time.perf_counter()
    for src, dst in todo:
        plan(src, dst, tensor, hierarchy)
    cold = time.perf_counter() - start
    sources = len({src for src, _ in todo})
    print(
        f"hierarchy {list(hierarchy)!s:<13} {'S,B,P(sum|max)':<18} {len(nds):4d} layouts "
        f"{count:7d} random pairs ({sources} sources)  cold {cold:6.2f} s"
    )


def main() -> None:
    for with_min in (False, True):
        bench((2, 2, 2), with_min)
    bench((2, 4), True)
    bench_sample((2, 2, 2, 2), 1000)


if __name__ == "__main__":
    main()
