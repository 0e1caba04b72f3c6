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


def test_tuples_priced_again_and_lists_read_again() -> None:
    """A tuple's positions are remembered by identity (the combining search
    prices one graph's tuples at every latency scale): priced again, under
    another latency scale, it gives that scale's prices; a list is read
    each time, so one changed after it was priced is priced as it is now."""
    placement = Placement.of_size((2, 4))
    tensor = TensorType((8, 8), "f32")
    srcs = ((S(0), B), (B, S(1)), (P, B))
    dsts = ((B, B), None, (S(1), S(0)))
    for scale in (1.0, 0.5, 0.0):
        model = CostModel.parse("default").with_latency_scale(scale)
        want = np.array(
            [[one_by_one(s, d, tensor, placement, model) for d in dsts] for s in srcs]
        )
        for _ in range(2):
            got = price_table(srcs, dsts, tensor, placement, model)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    model = CostModel.parse("default")
    layouts = [(S(0), B), (B, B)]
    first = price_table(layouts, layouts, tensor, placement, model)
    layouts[1] = (P, B)
    again = price_table(layouts, layouts, tensor, placement, model)
    want = np.array(
        [[one_by_one(s, d, tensor, placement, model) for d in layouts] for s in layouts]
    )
    np.testing.assert_allclose(again, want, rtol=1e-12, atol=0)
    assert not np.array_equal(first, again)
