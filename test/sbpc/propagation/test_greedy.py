"""OneFlow's greedy derivation: order value first, copy cost next, then order."""

from __future__ import annotations

import math

import pytest

from sbpc.algebra.sbp import B, NdSbp, P, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.driver import propagate
from sbpc.propagation.graph import PropagationError, SbpGraph
from sbpc.propagation.plan import Plan


def derive(*args, **kwargs):
    """The strategy's own choice (OneFlow), without the driver's local
    improvement (``improve.py``), which these tests are not about."""
    return propagate(*args, improve=False, **kwargs)


T = TensorType((8, 8))


def cost(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
    """Bytes-like price: gathering a split is 1, reducing a partial 2, else 0."""
    price = 0.0
    for a, b in zip(src, dst, strict=True):
        if a in (b, B) or b == P:
            continue
        price += 2.0 if a == P else 1.0
    return price * tensor.nbytes


def two_input_graph(**op_kwargs) -> SbpGraph:
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(S(0),))
    y = g.add_argument("y", T, layout=(S(1),))
    w = g.add_argument("w", T, layout=(S(0),))
    cands = [
        # Matches x (order value -10) but gathers y: copy cost 1 * 256.
        Signature(((S(0),), (B,), (B,)), ((S(0),),)),
        # Matches nothing, two all_to_alls at 0.25 * 256 each.
        Signature(((S(1),), (S(0),), (B,)), ((P,),)),
    ]
    (z,) = g.add_op("op", [x, y, w], [T], cands, **op_kwargs)
    g.add_result("z", z)
    return g


def cheap_a2a(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
    if (src[0], dst[0]) in {(S(0), S(1)), (S(1), S(0))}:
        return 0.25 * tensor.nbytes
    return cost(src, dst, tensor)


def test_order_value_ranks_before_copy_cost() -> None:
    plan = derive(two_input_graph(), cheap_a2a, "greedy")
    # OneFlow keeps the matching input even though the other is cheaper.
    assert plan.signature_of("op").inputs[:2] == ((S(0),), (B,))
    assert plan.comm_time == 2 * 256


def test_constrained_op_ranks_by_copy_cost_only() -> None:
    # Any user constraint makes OneFlow's order value 0 for every candidate.
    # (Empty constraints are no constraint.)
    plan = derive(
        two_input_graph(result_layouts={}, operand_layouts={}), cheap_a2a, "greedy"
    )
    assert plan.signature_of("op").inputs[:2] == ((S(0),), (B,))
    plan = derive(two_input_graph(operand_layouts={2: (B,)}), cheap_a2a, "greedy")
    assert plan.signature_of("op").inputs[:2] == ((S(1),), (S(0),))
    assert plan.comm_time == 256 + 2 * 0.25 * 256


def test_copy_cost_then_candidate_order() -> None:
    g = SbpGraph((4,))
    x = g.add_argument("x", T)  # free: B, as OneFlow's variables
    cands = [
        Signature(((S(0),),), ((S(0),),)),
        Signature(((S(1),),), ((S(1),),)),
        Signature(((B,),), ((B,),)),
    ]
    (y,) = g.add_op("relu", [x], [T], cands)
    g.add_result("y", y)
    plan = derive(g, cost, "greedy")
    assert plan.layout_of("x") == (B,)
    assert plan.signature_of("relu") == cands[2]  # order value -10 wins
    # Without the matching candidate, slicing B is free for both splits: first wins.
    g2 = SbpGraph((4,))
    x = g2.add_argument("x", T)
    (y,) = g2.add_op("relu", [x], [T], cands[:2])
    plan = derive(g2, cost, "greedy")
    assert plan.signature_of("relu") == cands[0]


RELU_SPLIT_OR_B = [Signature(((S(0),),), ((S(0),),)), Signature(((B,),), ((B,),))]


def relu_plan(devices: int, result: NdSbp) -> Plan:
    """Greedy's plan of ``relu`` on an ``S(0)`` argument, its result wanted
    in ``result``."""
    g = SbpGraph((devices,))
    x = g.add_argument("x", T, layout=(S(0),))
    (y,) = g.add_op("relu", [x], [T], RELU_SPLIT_OR_B)
    g.add_result("y", y, result)
    return derive(g, cost, "greedy")


def test_result_layout_is_paid_not_chosen() -> None:
    plan = relu_plan(4, (B,))
    assert plan.signature_of("relu") == RELU_SPLIT_OR_B[0]
    [change] = plan.changes
    assert (change.src, change.dst, change.time) == ((S(0),), (B,), T.nbytes)


def test_infinite_candidates_are_dropped_and_all_infinite_is_an_error() -> None:
    def no_gather(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
        return math.inf if (src, dst) == ((S(1),), (B,)) else cost(src, dst, tensor)

    plan = derive(two_input_graph(), no_gather, "greedy")
    assert plan.signature_of("op").inputs[:2] == ((S(1),), (S(0),))

    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(S(1),))
    g.add_op("relu", [x], [T], [Signature(((B,),), ((B,),))])
    with pytest.raises(PropagationError, match=r"op 'relu'.*finite cost"):
        derive(g, no_gather, "greedy")


def test_single_device_is_free_and_broadcast() -> None:
    plan = relu_plan(1, (P,))
    assert plan.signature_of("relu") == RELU_SPLIT_OR_B[1]
    assert plan.total_time == 0
    assert plan.stats == {"single_device": True}
