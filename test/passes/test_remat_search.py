"""``sbp-remat``'s search for the fewest recomputed layers (``layers=auto``).

``fewest_fitting`` must give the count bisection gives (the least that
fits, for peaks that do not grow with the count) whatever the peaks' shape,
and on the near-linear peaks of repeated layers ask for fewer of them (each
is a whole propagation).  ``unbounded_memory`` lifts a cost model's ``mem=``
and keeps the rest.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sbpc.boxing.cost_model import CostModel
from sbpc.passes.remat import LIFTED_MEMORY, fewest_fitting, ladder, unbounded_memory


def bisected(peak, most: int, budget: float) -> int:
    """The search ``layers=auto`` ran before: 0, all, then bisection."""
    if most == 0 or peak(0) <= budget:
        return 0
    if peak(most) > budget:
        return most
    over, fit = 0, most
    while fit - over > 1:
        middle = (over + fit) // 2
        if peak(middle) <= budget:
            fit = middle
        else:
            over = middle
    return fit


@given(
    st.lists(st.floats(0, 1e3, allow_nan=False), min_size=1, max_size=40),
    st.floats(0, 2e4, allow_nan=False),
)
def test_the_same_count_as_bisection(drops: list[float], budget: float) -> None:
    peaks = [2e4 - sum(drops[:k]) for k in range(len(drops) + 1)]  # not growing
    most = len(drops)
    assert fewest_fitting(peaks.__getitem__, most, budget) == bisected(
        peaks.__getitem__, most, budget
    )


@pytest.mark.parametrize("budget", [70.0, 200.0, 333.0, 460.0])
def test_near_linear_peaks_take_fewer_propagations(budget: float) -> None:
    # a 32-layer step: each recomputed layer frees 13 units, the recompute's
    # own working set costs 5 once any layer is recomputed
    def peak(k: int) -> float:
        return 480.0 - 13.0 * k + (5.0 if k else 0.0)

    asked: list[int] = []

    def counted(k: int) -> float:
        asked.append(k)
        return peak(k)

    got = fewest_fitting(counted, 32, budget)
    assert got == bisected(peak, 32, budget)
    assert len(set(asked)) <= 5 < 7  # bisection: 0, 32 and five more


def test_unbounded_memory_lifts_mem_and_keeps_the_rest() -> None:
    for text in ("h100-sxm", "h100-sxm,mem=1e15", "mem=5e6,flops=1e12", "default"):
        lifted = CostModel.parse(unbounded_memory(text))
        assert lifted.memory_capacity == LIFTED_MEMORY
        kept = CostModel.parse(text)
        assert lifted.device.flops == kept.device.flops
        assert lifted.links == kept.links
    assert unbounded_memory("mem=5e6|overhead=7e-5").endswith("|overhead=7e-5")


def test_the_dots_ladder_recomputes_least_first() -> None:
    """``layers=auto policy=dots``: ``dots`` on more and more layers, then
    whole layers over ``dots``; ``full``: whole leading layers only."""
    assert ladder(2, "full") == [{0: "full"}, {0: "full", 1: "full"}]
    assert ladder(2, "dots") == [
        {0: "dots"},
        {0: "dots", 1: "dots"},
        {0: "full", 1: "dots"},
        {0: "full", 1: "full"},
    ]
