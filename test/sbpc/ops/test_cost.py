"""Compute costs: local work under each signature, priced by the device roofline."""

from __future__ import annotations

import math

import pytest

from sbpc.algebra.sbp import B, P, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.cost_model import CostModel
from sbpc.ops.cost import compute_costs, local_work
from sbpc.ops.registry import nd_signatures
from sbpc.ops.spec import OpSpec

DOT = OpSpec(
    "stablehlo.dot_general",
    (TensorType((8, 16), "f32"), TensorType((16, 24), "f32")),
    (TensorType((8, 24), "f32"),),
    {
        "lhs_batching_dimensions": (),
        "rhs_batching_dimensions": (),
        "lhs_contracting_dimensions": (1,),
        "rhs_contracting_dimensions": (0,),
    },
)
ADD = OpSpec(
    "stablehlo.add",
    (TensorType((8, 16), "f32"), TensorType((8, 16), "f32")),
    (TensorType((8, 16), "f32"),),
)


def sig(ins, outs) -> Signature:
    return Signature(tuple((x,) for x in ins), tuple((x,) for x in outs))


def test_contraction_flops_and_bytes_follow_the_local_shapes() -> None:
    flops, nbytes = local_work(DOT, sig([B, B], [B]), (4,))
    assert flops == 2 * 8 * 24 * 16
    assert nbytes == 4 * (8 * 16 + 16 * 24 + 8 * 24)
    # rows split: a quarter of the work; contracted dim split: a quarter too
    assert local_work(DOT, sig([S(0), B], [S(0)]), (4,))[0] == flops / 4
    assert local_work(DOT, sig([S(1), S(0)], [P]), (4,))[0] == flops / 4


def test_other_ops_cost_one_flop_per_local_result_element_and_no_traffic() -> None:
    assert local_work(ADD, sig([B, B], [B]), (4,)) == (128.0, 0.0)
    assert local_work(ADD, sig([S(1), S(1)], [S(1)]), (4,)) == (32.0, 0.0)


def test_roofline_and_replicated_work_costs_more() -> None:
    model = CostModel.parse("flops=1e9,hbm=1e9")
    candidates = nd_signatures(DOT, (2, 2))
    costs = compute_costs(DOT, candidates, (2, 2), model)
    assert len(costs) == len(candidates)
    replicated = candidates.index(Signature(((B, B), (B, B)), ((B, B),)))
    assert costs[replicated] == pytest.approx(
        max(2 * 8 * 24 * 16 / 1e9, 4 * (8 * 16 + 16 * 24 + 8 * 24) / 1e9)
    )
    assert min(costs) < costs[replicated]
    # memoized: the same op on the same hierarchy is priced once
    assert compute_costs(DOT, candidates, (2, 2), model) is costs


def test_uneven_signatures_cost_their_largest_piece() -> None:
    """8 rows over 3 are pieces of 3, 3, 2: priced as 3 rows, like 9 over 3."""
    model = CostModel()
    costs = compute_costs(ADD, [sig([S(0), S(0)], [S(0)])], (3,), model)
    t9 = TensorType((9, 16), "f32")
    add9 = OpSpec("stablehlo.add", (t9, t9), (t9,))
    assert costs == compute_costs(add9, [sig([S(0), S(0)], [S(0)])], (3,), model)
    assert math.isfinite(costs[0])
