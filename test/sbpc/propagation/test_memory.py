"""The memory model: live intervals under the program order, local bytes."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from sbpc.algebra.sbp import B, NdSbp, P, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.graph import OpNode, SbpGraph, SinkNode
from sbpc.propagation.memory import (
    critical_steps,
    live_bytes,
    live_intervals,
    local_bytes,
    peak_memory,
)
from sbpc.testing.synthetic_graphs import random_graph

T = TensorType((8, 8))  # 256 bytes


def unary(nd):
    return [Signature((nd,), (nd,))]


def test_local_bytes() -> None:
    assert local_bytes(T, (S(0), S(1)), (2, 4)) == 32
    assert local_bytes(T, (S(0), B), (2, 4)) == 128
    assert local_bytes(T, (P, B), (2, 4)) == 256


def test_intervals_and_peak() -> None:
    g = SbpGraph((4,))
    x = g.add_argument("x", T)  # live from step 0 to its last use (step 1)
    (a,) = g.add_op("a", [x], [T], unary((S(0),)))  # step 0
    (b,) = g.add_op("b", [x], [T], unary((B,)))  # step 1
    (c,) = g.add_op("c", [a], [T], unary((S(0),)))  # step 2, a dies here
    g.add_op("dead", [b], [T], unary((B,)))  # step 3, result never used
    g.add_result("c", c)  # c lives to the last step
    intervals, steps = live_intervals(g)
    assert steps == 4
    assert [(iv.start, iv.end) for iv in intervals] == [
        (0, 1),
        (0, 2),
        (1, 3),
        (2, 3),
        (3, 3),
    ]
    assert critical_steps(intervals) == [1, 2, 3]

    def layout(v):
        value = g.values[v]
        node = g.nodes[value.producer]
        return node.out_layout(0, value.index)

    # step 0: x(B)=256 + a=64; step 1: x + a + b = 576; step 2: a + b + c = 384;
    # step 3: b + c + dead = 576.
    assert peak_memory(g, layout) == 576


def test_graph_without_ops() -> None:
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(S(0),))
    g.add_result("x", x)
    assert live_intervals(g)[1] == 1
    assert peak_memory(g, lambda v: (S(0),)) == 64


def _step_by_step(
    graph: SbpGraph, layout_of: Callable[[int], NdSbp]
) -> tuple[list[float], list[tuple[int, int]]]:
    """The memory model read literally: at each step, the bytes of every
    value whose definition has run and whose last use has not passed."""
    ops = [n.id for n in graph.nodes if isinstance(n, OpNode)]
    steps = max(len(ops), 1)
    step_of = {node: t for t, node in enumerate(ops)}
    live_at = []
    for value in graph.values:
        born = step_of.get(value.producer, 0)
        users = [graph.edges[e].dst for e in value.uses]
        dies = max(
            [born]
            + [
                steps - 1 if isinstance(graph.nodes[u], SinkNode) else step_of[u]
                for u in users
            ]
        )
        live_at.append((born, dies))
    return [
        math.fsum(
            local_bytes(v.tensor, layout_of(v.id), graph.hierarchy)
            for v, (born, dies) in zip(graph.values, live_at, strict=True)
            if born <= t <= dies
        )
        for t in range(steps)
    ], live_at


@pytest.mark.parametrize("seed", range(12))
def test_live_ranges_and_bytes_agree_with_the_model_read_literally(seed: int) -> None:
    rng = np.random.default_rng(seed)
    hierarchy = (2, 4) if seed % 2 else (4,)
    g = random_graph(rng, hierarchy, n_ops=int(rng.integers(1, 30)))
    options = [int(rng.integers(len(n.options))) for n in g.nodes]

    def layout_of(v: int) -> NdSbp:
        value = g.values[v]
        return g.nodes[value.producer].out_layout(options[value.producer], value.index)

    expected, ranges = _step_by_step(g, layout_of)
    intervals, steps = live_intervals(g)
    assert steps == len(expected)
    assert [(iv.start, iv.end) for iv in intervals] == ranges
    assert live_bytes(g, layout_of) == pytest.approx(expected, rel=1e-12)
    assert peak_memory(g, layout_of) == pytest.approx(max(expected), rel=1e-12)
