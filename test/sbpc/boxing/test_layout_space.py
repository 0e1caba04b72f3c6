"""The planner's limit on a tensor's layout space: ``candidate_layouts``
counts (rank + 4) ** mesh dims layouts, and ``check_layout_space`` refuses a
tensor beyond ``MAX_LAYOUTS`` before anything builds their graph."""

from __future__ import annotations

import pytest

from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.planner import (
    MAX_LAYOUTS,
    BoxingError,
    LayoutSpaceError,
    candidate_layouts,
    check_layout_space,
)


def test_the_limit_counts_the_candidate_layouts() -> None:
    tensor = TensorType((4, 4), "f32")
    assert len(candidate_layouts(tensor, (2, 2, 2))) == 6**3
    check_layout_space(tensor, (2, 2, 2))  # 216 layouts: planned


def test_more_layouts_than_the_limit_are_refused() -> None:
    tensor = TensorType((4, 4, 4, 4), "f32")
    check_layout_space(tensor, (2, 2, 2, 2))  # 8**4 = 4096 <= MAX_LAYOUTS
    with pytest.raises(LayoutSpaceError, match="has 32768 layouts") as err:
        check_layout_space(tensor, (2, 2, 2, 2, 2))
    assert f"({MAX_LAYOUTS})" in str(err.value)
    # Not a BoxingError: the pass prices a BoxingError as an impossible
    # change (inf), but this one must stop the planning.
    assert not isinstance(err.value, BoxingError)
