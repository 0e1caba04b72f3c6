"""Loops in the plain graph: a carried value, a body, a tied yield.

The graph of ``passes/bridge/regions.py`` without IR: every strategy must
give the carry and its yield one layout (a tied edge makes any other choice
infinite), and body edges cost their weight (the trip count) times the
change.
"""

from __future__ import annotations

import math

import pytest

from sbpc.algebra.sbp import B, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.driver import propagate
from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import EdgeTensor, SbpGraph

T = TensorType((8, 16))
LAYOUTS = [(B,), (S(0),), (S(1),)]


def _price(src, dst, tensor) -> float:
    """Any change costs its bytes (a plain stand-in for the boxing planner)."""
    return float(tensor.nbytes)


def _loop(trips: float, body_layout) -> tuple[SbpGraph, int, int]:
    """arg [S(0)] -> carry -> body op pinned to ``body_layout`` -> tied yield."""
    g = SbpGraph((4,))
    x = g.add_argument("%x", T, layout=(S(0),))
    identity = [Signature((nd,), (nd,)) for nd in LAYOUTS]
    (carry,) = g.add_op("carry", [x], [T], identity)
    (y,) = g.add_op(
        "body",
        [carry],
        [T],
        identity,
        fixed=Signature((body_layout,), (body_layout,)),
        edge_weights=[trips],
    )
    g.add_op(
        "yield",
        [y, carry],
        [],
        [Signature((nd, nd), ()) for nd in LAYOUTS],
        edge_weights=[trips, 1.0],
        tied=(1,),
    )
    g.add_result("out", carry, [(S(0),)])
    return g, g.values[carry].producer, len(g.nodes) - 2


@pytest.mark.parametrize("strategy", ["greedy", "bfs", "optimal"])
def test_carry_and_yield_agree(strategy: str) -> None:
    g, carry, yield_node = _loop(10.0, (S(1),))
    plan = propagate(g, _price, strategy)
    assert plan.signatures[carry].outputs[0] == plan.signatures[yield_node].inputs[0]
    assert math.isfinite(plan.comm_time)


def test_optimal_moves_the_loop_to_the_bodys_layout() -> None:
    """Ten iterations of restoring [S(0)] cost more than changing the layout
    once before and once after the loop."""
    g, carry, _ = _loop(10.0, (S(1),))
    plan = propagate(g, _price, "optimal")
    assert plan.signatures[carry].outputs[0] == (S(1),)
    assert plan.comm_time == 2 * T.nbytes


def test_weighted_and_tied_edges_are_priced_by_edge_costs() -> None:
    costs = EdgeCosts(_price)
    weighted = EdgeTensor(T.shape, T.element, weight=3.0)
    tied = EdgeTensor(T.shape, T.element, tied=True)
    assert costs.time((B,), (S(0),), weighted) == 3 * T.nbytes
    assert costs.time((B,), (S(0),), tied) == math.inf
    assert costs.time((S(0),), (S(0),), tied) == 0.0
