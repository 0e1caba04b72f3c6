"""The layout rules both sbp verifiers apply."""

from __future__ import annotations

import re

import pytest
from xdsl.dialects.builtin import TensorType, f32

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, S
from sbpc.dialects.sbp.checks import InvalidLayout, check_layout, placement_text

TYPE = TensorType(f32, [8, 6])
MESH = Placement.from_nested("cuda", [[0, 1], [2, 3]])


def test_a_fitting_layout_passes() -> None:
    check_layout((S(0), S(1)), TYPE, MESH, "layout")
    check_layout((S(1),), TYPE, None, "layout")  # no placement: axes only


@pytest.mark.parametrize(
    ("nd", "message"),
    [
        (
            (S(2), B),
            "layout [S(2), B] splits dimension 2, but tensor<8x6xf32> has rank 2",
        ),
        (
            (S(0),),
            "layout [S(0)] has 1 entry, but the placement (cuda, 2x2) has 2 "
            "hierarchy dimensions",
        ),
    ],
)
def test_a_misfit_says_why(nd, message) -> None:
    with pytest.raises(InvalidLayout, match=re.escape(message)):
        check_layout(nd, TYPE, MESH, "layout")


def test_placement_text() -> None:
    assert placement_text(MESH) == "#sbp.placement<cuda, [[0, 1], [2, 3]]>"
    assert placement_text(None) == "no placement"
