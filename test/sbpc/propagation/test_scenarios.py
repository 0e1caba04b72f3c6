"""The least-worst-regret choice across cost-model scenarios."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sbpc.propagation.scenarios import least_worst_regret, regret

# rows: plans; columns: scenarios (seconds)
TIMES = st.integers(1, 4).flatmap(
    lambda width: st.lists(
        st.lists(st.floats(1e-6, 1.0, allow_nan=False), min_size=width, max_size=width),
        min_size=1,
        max_size=6,
    )
)


def test_a_small_loss_beats_a_large_one():
    """The MLP's two plans: data parallel 812 us in both scenarios, the
    hybrid 780 us with a cheap launch and 870 us with a dear one."""
    choice = least_worst_regret([[780e-6, 870e-6], [812e-6, 812e-6]])
    assert choice.index == 1
    assert choice.nominal_best == 0
    assert choice.regrets[0] == pytest.approx(870 / 812 - 1)
    assert choice.regrets[1] == pytest.approx(812 / 780 - 1)
    assert choice.note() == (
        "kept a plan modeled at 812.0 us over one at 780.0 us: at worst 4.1% "
        "slower than the best plan across 2 scenarios, against 7.1%"
    )


def test_a_plan_best_everywhere_has_no_regret():
    choice = least_worst_regret([[3.0, 3.0], [2.0, 2.5], [2.2, 2.6]])
    assert choice.index == 1 and choice.regrets[1] == 0.0
    assert choice.note() is None


def test_ties_go_to_the_nominal_scenarios_cheapest_then_the_first():
    assert least_worst_regret([[2.0, 1.0], [1.0, 2.0]]).index == 1
    assert least_worst_regret([[1.0, 1.0], [1.0, 1.0]]).index == 0


def test_regret_of_a_free_plan():
    assert regret(0.0, 0.0) == 0.0
    assert regret(1.0, 0.0) == math.inf
    assert regret(1.0, 2.0) == 0.0
    assert least_worst_regret([[1.0], [0.0]]).index == 1


@pytest.mark.parametrize("times", [[], [[]], [[1.0, 2.0], [1.0]]])
def test_bad_tables_are_errors(times):
    with pytest.raises(ValueError, match=r"plans and scenarios|every scenario"):
        least_worst_regret(times)


@given(TIMES)
def test_the_kept_plans_worst_regret_is_least(times):
    choice = least_worst_regret(times)
    worst = [
        max(t / min(r[s] for r in times) - 1 for s, t in enumerate(row))
        for row in times
    ]
    assert choice.regrets == pytest.approx(worst, abs=1e-12)
    assert all(choice.regrets[choice.index] <= w for w in choice.regrets)


@given(TIMES)
def test_one_scenario_is_the_plain_cheapest(times):
    nominal = [[row[0]] for row in times]
    choice = least_worst_regret(nominal)
    assert nominal[choice.index][0] == min(r[0] for r in nominal)
    assert choice.note() is None
