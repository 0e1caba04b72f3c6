"""Mesh axes in another order than the mesh's: ``axis_order`` and
``Placement.permuted`` / ``order_in`` (the layout ``P(("y", "x"))``)."""

from __future__ import annotations

import pytest

from sbpc.algebra.layout import block_index
from sbpc.algebra.named_axes import (
    NamedAxesError,
    axis_factors,
    axis_order,
    nd_sbp_of,
    placement_axes,
    sub_axis_names,
)
from sbpc.algebra.placement import Placement, PlacementError
from sbpc.algebra.sbp import B, Split


def test_axis_order_keeps_the_mesh_order_where_it_can() -> None:
    assert axis_order([["x", "y"], []], ["x", "y"]) == ("x", "y")
    assert axis_order([["y"], ["x"]], ["x", "y"]) == ("x", "y")
    assert axis_order([["y", "x"]], ["x", "y"]) == ("y", "x")
    assert axis_order([["x"], ["z", "y"]], ["x", "y", "z"]) == ("x", "z", "y")
    # An axis used twice is left for nd_sbp_of to report.
    assert axis_order([["x", "y"], ["y", "x"]], ["x", "y"]) == ("x", "y")


def test_permuted_transposes_the_rank_array() -> None:
    p = Placement.of_size((2, 4))
    q = p.permuted((1, 0))
    assert q.nested_ranks() == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert q.order_in(p) == (1, 0)
    assert p.order_in(p) == (0, 1)
    assert p.order_in(Placement.of_size((8,))) is None
    assert Placement("cpu", (2, 4), (1, 0, 2, 3, 4, 5, 6, 7)).order_in(p) is None
    three = Placement.of_size((2, 3, 4))
    assert three.permuted((2, 0, 1)).order_in(three) == (2, 0, 1)
    with pytest.raises(PlacementError):
        p.permuted((0, 0))


def test_y_major_pieces_are_s0_s0_on_the_permuted_placement() -> None:
    """Device (x=i, y=j) holds block j * 2 + i of P(("y", "x")) on a 2x4
    mesh: on the placement with the axes reordered, [S(0), S(0)] says so."""
    p = Placement.of_size((2, 4))
    order = axis_order([["y", "x"]], ["x", "y"])
    nd = nd_sbp_of([["y", "x"]], order)
    assert nd == (Split(0), Split(0))
    q = p.permuted(tuple(["x", "y"].index(a) for a in order))
    for i in range(2):
        for j in range(4):
            assert q.rank_at((j, i)) == p.rank_at((i, j))
            assert block_index(nd, q.hierarchy, (j, i), 0) == (j * 2 + i, 8)
    assert nd_sbp_of([["y"]], order) == (Split(0), B)


def test_sub_axes_split_the_hierarchy_into_factors() -> None:
    """``"x":(1)2`` and ``"x":(2)2`` of an axis of 4: factors 2, 2 of the
    same ranks in the same order (x = major * 2 + minor)."""
    assert axis_factors([("x", 4), ("y", 2)], [("x", 1, 2), ("x", 2, 2)]) == [
        (2, 2),
        (2,),
    ]
    assert axis_factors([("x", 8)], [("x", 2, 2)]) == [(2, 2, 2)]
    with pytest.raises(NamedAxesError, match="do not nest"):
        axis_factors([("x", 6)], [("x", 1, 2), ("x", 1, 3)])
    with pytest.raises(NamedAxesError, match="is not a sub-axis"):
        axis_factors([("x", 4)], [("x", 2, 4)])
    assert sub_axis_names("x", (2, 2)) == ["x:(1)2", "x:(2)2"]
    assert sub_axis_names("y", (2,)) == ["y"]
    p = Placement.of_size((4, 2))
    q = p.refined([(2, 2), (2,)])
    assert q.hierarchy == (2, 2, 2)
    assert q.ranks == p.ranks
    assert q.factors_in(p) == ((2, 2), (2,))
    assert p.factors_in(q) is None
    for x in range(4):
        assert q.rank_at((x // 2, x % 2, 1)) == p.rank_at((x, 1))


def test_sub_axes_out_of_mesh_order_are_refined_then_permuted() -> None:
    """``[{"y":(2)2, "x"}]`` on ``("x"=2, "y"=4)``: the mesh's placement
    refined to (x, y:(1)2, y:(2)2), then reordered; ``arrangement_in`` finds
    both, and the axes are named as Shardy does, in that order."""
    p = Placement.of_size((2, 4))
    q = p.refined([(2,), (2, 2)]).permuted((2, 0, 1))
    assert q.arrangement_in(p) == (((2,), (2, 2)), (2, 0, 1))
    assert p.arrangement_in(p) == (((2,), (4,)), (0, 1))
    assert Placement.of_size((8,)).arrangement_in(p) is None
    assert placement_axes(p, ("x", "y"), q) == ("y:(2)2", "x", "y:(1)2")
    for x in range(2):
        for y in range(4):
            assert q.rank_at((y % 2, x, y // 2)) == p.rank_at((x, y))
