"""``sbp-propagate``'s table pricing agrees with its pair-by-pair pricing,
including free results, layouts the planner rejects and kept layouts."""

from __future__ import annotations

import math

import numpy as np

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, P, S
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing import planner
from sbpc.boxing.cost_model import CostModel
from sbpc.passes.propagate import price_table


def one_by_one(src, dst, tensor, placement, model) -> float:
    """What the pass's ``edge_cost`` and ``EdgeCosts.time`` answer together."""
    if dst is None or src == dst:
        return 0.0
    try:
        return planner.plan(src, dst, tensor, placement, model).time
    except planner.BoxingError:
        return math.inf


def test_price_table_matches_pair_pricing() -> None:
    placement = Placement.of_size((2, 4))
    model = CostModel.parse("default")
    tensor = TensorType((8, 6), "f32")  # dim 1 splits unevenly over 4
    uneven = (B, S(1))  # pieces of 2, 2, 1, 1 (padded)
    srcs = [(S(0), B), (B, B), (P, S(0)), uneven, (S(0), S(0))]
    dsts = [(B, B), None, uneven, (S(0), B), (B, S(0)), (P, P)]
    got = price_table(srcs, dsts, tensor, placement, model)
    want = np.array(
        [[one_by_one(s, d, tensor, placement, model) for d in dsts] for s in srcs]
    )
    assert got.shape == (len(srcs), len(dsts))
    # float sums of the steps' exact times (``planner.time_rows``): within a
    # few units in the last place of the plan's exact sum
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    assert (np.isinf(got) == np.isinf(want)).all()
    assert got[3, 2] == 0.0  # keeping a layout is free
    assert math.isfinite(got[0, 2])  # uneven layouts are reachable
    assert (got[:, 1] == 0).all()  # a free result takes anything
