"""``least_times.StepGraph``: the least seconds from many layouts at once,
as a Dijkstra per source over every step finds them."""

from __future__ import annotations

import heapq
import math
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sbpc.boxing.least_times import StepGraph

# One layout's steps: (next layout, seconds) pairs.
Steps = tuple[tuple[int, float], ...]


def reference(start: int, edges: tuple[Steps, ...]) -> list[float]:
    """Dijkstra from ``start`` over every step (the planner's before)."""
    done = [math.inf] * len(edges)
    seen = [False] * len(edges)
    heap = [(0.0, start)]
    while heap:
        time, node = heapq.heappop(heap)
        if seen[node]:
            continue
        seen[node], done[node] = True, time
        for nxt, dt in edges[node]:
            if not seen[nxt]:
                heapq.heappush(heap, (time + dt, nxt))
    return done


def graph(edges: tuple[Steps, ...]) -> StepGraph:
    """``edges`` (per layout, its steps: (next layout, seconds)) as arrays."""
    steps = [(i, j, t) for i, out in enumerate(edges) for j, t in out]
    return StepGraph(
        len(edges),
        np.array([i for i, _, _ in steps], dtype=np.int64),
        np.array([j for _, j, _ in steps], dtype=np.int64),
        np.array([t for _, _, t in steps], dtype=float),
    )


def check(edges: tuple[Steps, ...]) -> None:
    starts = list(range(len(edges)))
    got = graph(edges).least(starts)
    want = np.array([reference(s, edges) for s in starts])
    assert got.shape == (len(edges), len(edges))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


def test_free_steps_unreached_layouts_and_parallel_steps() -> None:
    """A free step beside a dear one is taken; a layout nothing reaches is
    ``inf``; the cheaper of two steps between one pair counts."""
    edges = (
        ((1, 0.0), (1, 5.0), (2, 3.0)),
        ((2, 1.0), (2, 0.5)),
        (),
        ((0, 1.0),),  # 3 reaches 0, nothing reaches 3
    )
    check(edges)
    assert graph(edges).least([0])[0].tolist() == [0.0, 0.0, 0.5, math.inf]
    assert graph(edges).least([3, 2]).tolist() == [
        [1.0, 1.0, 1.5, 0.0],
        [math.inf, math.inf, 0.0, math.inf],
    ]


def test_a_graph_without_steps_or_starts() -> None:
    assert graph(((), ())).least([1, 0]).tolist() == [
        [math.inf, 0.0],
        [0.0, math.inf],
    ]
    assert graph(((), ())).least([]).shape == (0, 2)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**31))
def test_random_graphs_match_a_dijkstra_per_source(n: int, seed: int) -> None:
    """Random step graphs with free steps, loops and parallel steps."""
    rng = random.Random(seed)
    edges = tuple(
        tuple(
            (rng.randrange(n), rng.choice([0.0, 1e-6, 2.5e-5, rng.random()]))
            for _ in range(rng.randint(0, 4))
        )
        for _ in range(n)
    )
    check(edges)
