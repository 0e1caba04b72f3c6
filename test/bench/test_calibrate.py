"""``bench/calibrate.py``'s fit of the per-launch overhead (no timing asserts:
the fit is checked on made-up times)."""

from __future__ import annotations

import calibrate  # bench/calibrate.py (test/bench/conftest.py)
import pytest

from sbpc.boxing.cost_model import CostModel


def test_intercept_is_the_overhead_and_slope_the_round() -> None:
    rings = (2, 4, 8)
    seconds = [3e-4 + (n - 1) * 2e-5 for n in rings]
    overhead, latency = calibrate.fit_overhead(rings, seconds)
    assert overhead == pytest.approx(3e-4)
    assert latency == pytest.approx(2e-5)


def test_fit_is_never_negative() -> None:
    # Longer rings measured faster (noise): no negative latency, all overhead.
    overhead, latency = calibrate.fit_overhead((2, 4, 8), [7e-4, 6e-4, 5e-4])
    assert latency == 0.0
    assert overhead == pytest.approx(6e-4)
    # Every collective free but the rounds: no overhead.
    overhead, latency = calibrate.fit_overhead((2, 8), [1e-5, 7e-5])
    assert overhead == pytest.approx(0.0, abs=1e-12)
    assert latency == pytest.approx(1e-5)


def test_half_extent_is_the_intercept_over_the_slope() -> None:
    """Products of m rows at flops * m / (m + 10) take c * (m + 10)."""
    rows = (8, 16, 32, 64)
    assert calibrate.fit_half_extent(rows, [3e-6 * (m + 10) for m in rows]) == (
        pytest.approx(10.0)
    )
    # time proportional to the rows: every product at the full rate
    assert calibrate.fit_half_extent(rows, [3e-6 * m for m in rows]) == pytest.approx(
        0.0, abs=1e-9
    )
    # fewer rows measured slower than more (noise): no negative half, no crash
    assert calibrate.fit_half_extent(rows, [4e-5, 3e-5, 2e-5, 1e-5]) == 0.0


def test_the_rows_products_are_dependent_products_of_the_measured_shape() -> None:
    fn, x = calibrate._rows_product(16)
    text = fn.lower(x).compile().as_text()
    assert f"f32[16,{calibrate.PRODUCT}]" in text
    assert " dot(" in text and "while" in text  # one product per loop trip


def test_cost_model_text_parses() -> None:
    values = {"bw": 3e8, "lat": 2e-5, "overhead": 3e-4, "flops": 5e9, "hbm": 5e8}
    model = CostModel.parse(calibrate.cost_model_text(values))
    assert model.links[0].overhead == pytest.approx(3e-4)
    assert model.links[0].latency == pytest.approx(2e-5)


def test_scenarios_text_is_the_chain_with_the_between_work_collectives() -> None:
    chain = {"bw": 3e8, "lat": 2e-5, "overhead": 3e-5, "flops": 5e9, "hbm": 5e8}
    between = {**chain, "lat": 1e-5, "overhead": 7e-5, "hbm": 9e9}
    text = calibrate.scenarios_text(chain, between)
    assert text.endswith("|lat=1e-05,overhead=7e-05")
    model = CostModel.parse(text + ",bw=4e8")  # the scenario's own bandwidth
    (other,) = model.scenarios
    assert model.links[0].overhead == pytest.approx(3e-5)
    assert other.links[0].overhead == pytest.approx(7e-5)
    assert other.links[0].latency == pytest.approx(1e-5)
    assert other.links[0].bandwidth == pytest.approx(4e8)
    assert other.device == model.device  # the chain's memory rate


def test_both_kinds_share_one_windows_bandwidth_and_device() -> None:
    both = calibrate.calibrate_kinds(1, ("chain", "between-work"))
    assert set(both) == {"chain", "between-work"}
    for key in ("bw", "flops", "hbm"):
        assert both["chain"][key] == both["between-work"][key] > 0
    for values in both.values():
        assert set(values) == {"bw", "lat", "overhead", "flops", "hbm", "flops_half"}
        assert values["flops_half"] >= 0
        model = CostModel.parse(calibrate.cost_model_text(values))
        assert model.device.half_extent == pytest.approx(values["flops_half"], 1e-2)
    assert both["chain"]["flops_half"] == both["between-work"]["flops_half"]


def test_each_value_is_its_median_over_the_windows() -> None:
    windows = [
        {"hbm": 1.7e9, "overhead": 7e-5},
        {"hbm": 2.5e9, "overhead": 6e-5},
        {"hbm": 2.0e9, "overhead": 9e-5},
    ]
    assert calibrate.median_values(windows) == {"hbm": 2.0e9, "overhead": 7e-5}
    with pytest.raises(ValueError, match="at least one window"):
        calibrate.median_values([])


def test_the_measured_step_differs_from_its_reference_only_by_its_collectives() -> None:
    """What ``between_work_collective_seconds`` times: the same blocks of work, with and
    without a dependent all-gather after each."""

    def compiled(gather: bool) -> str:
        fn, args = calibrate._step(4, gather)
        return fn.lower(*args).compile().as_text()

    with_gathers, without = compiled(True), compiled(False)
    assert (
        with_gathers.count("all-gather-start(") + with_gathers.count("all-gather(")
        == calibrate.CHAIN
    )
    assert "all-gather" not in without
    assert with_gathers.count(" dot(") == without.count(" dot(") == calibrate.CHAIN


def test_the_cpu_sim_preset_is_a_calibration_plus_memory() -> None:
    """Refreshing ``cpu-sim`` (docs/machines.md) is pasting what
    ``calibrate.py`` prints, with ``mem=`` appended: the preset has exactly
    those keys."""
    from sbpc.boxing.machines import CPU_SIM

    measured = {"bw": 1e9, "lat": 1e-5, "overhead": 3e-5, "flops": 2e10, "hbm": 4e9}
    measured["flops_half"] = 8.0
    text = calibrate.cost_model_text(measured)
    keys = {item.partition("=")[0] for item in CPU_SIM.split(",")}
    assert keys == {*measured, "mem"}
    assert CostModel.parse(text + ",mem=3e9").memory_capacity == 3e9


def test_products_are_timed_in_the_same_rounds(monkeypatch) -> None:
    """Every row count and the dispatch-only call are timed together, round
    by round (one ``interleaved_times`` call), so the load's drift between
    row counts cannot bend the line; each row count's time is its median
    less the dispatch's, per product."""
    dispatch, half, per_row = 2e-4, 10.0, 1e-7
    calls: list[int] = []

    def interleaved(fns, args, repeats):
        calls.append(len(fns))
        rows = (0, *calibrate.ROWS)
        noise = [1.0, 3.0, 1.0]  # one slow round in three: the median drops it
        return [
            [
                dispatch * k
                + (calibrate.PRODUCT_REPS * per_row * (m + half) * k if m else 0)
                for k in noise
            ]
            for m in rows
        ]

    monkeypatch.setattr(calibrate, "interleaved_times", interleaved)
    seconds = calibrate.half_extent_seconds(rounds=3)()
    assert calls == [len(calibrate.ROWS) + 1]
    assert calibrate.fit_half_extent(calibrate.ROWS, seconds) == pytest.approx(half)
