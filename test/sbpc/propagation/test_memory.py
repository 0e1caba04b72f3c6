"""The memory model: live intervals under the program order, local bytes."""

from __future__ import annotations

from sbpc.algebra.sbp import B, P, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.graph import SbpGraph
from sbpc.propagation.memory import (
    critical_steps,
    live_intervals,
    local_bytes,
    peak_memory,
)

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
