"""``bench/paired_timing.py``: round-by-round ratios and their interval."""

from __future__ import annotations

import numpy as np
import paired_timing  # bench/ (conftest.py)
import pytest
from paired_timing import paired_difference, paired_interval, paired_ratio


def test_the_paired_ratio_is_the_median_of_each_rounds_ratio():
    assert paired_ratio([2.0, 4.0, 3.0], [1.0, 1.0, 2.0]) == 2.0


def test_the_paired_interval_holds_the_ratio_and_narrows_with_agreement():
    rng = np.random.default_rng(1)
    theirs = list(1.0 + 0.01 * rng.random(41))
    spread = 1.0 + 0.2 * rng.standard_normal(41)
    noisy = [t * r for t, r in zip(theirs, spread, strict=True)]
    steady = [t * 1.1 for t in theirs]
    low, high = paired_interval(noisy, theirs)
    assert low <= paired_ratio(noisy, theirs) <= high
    assert high - low > 0.02
    assert paired_interval(steady, theirs) == pytest.approx((1.1, 1.1))


def test_the_paired_difference_is_the_median_of_each_rounds_difference():
    # the load drifts between rounds (the 10 s one), the difference does not
    assert paired_difference([3.0, 12.0, 2.5], [1.0, 10.0, 1.0]) == 2.0
    assert paired_difference([1.0, 2.0], [1.0, 2.0]) == 0.0


def test_rounds_alternate_which_program_runs_first():
    calls: list[str] = []

    def program(name: str):
        return lambda: calls.append(name) or 0

    times = paired_timing.interleaved_times([program("a"), program("b")], [(), ()], 4)
    assert [len(t) for t in times] == [4, 4]
    warm = 2 * paired_timing.WARM_UP
    assert calls[:warm] == ["a", "b"] * paired_timing.WARM_UP
    assert calls[warm:] == ["a", "b", "b", "a", "a", "b", "b", "a"]


def test_a_decisive_first_batch_is_confirmed_by_more_batches(monkeypatch):
    """A first batch whose interval excludes 1 is followed by ``CONFIRM``
    more; one that does not decide anything is not."""
    runs: list[list[float]] = [[1.1] * 5, [1.0] * 5, [1.0] * 5]

    def timed(fns, args, repeats):
        return [runs.pop(0) if runs else [1.0] * repeats, [1.0] * repeats]

    monkeypatch.setattr(paired_timing, "interleaved_times", timed)
    batches = paired_timing.confirmed_times([None, None], [(), ()], 5)
    assert len(batches) == 1 + paired_timing.CONFIRM
    assert paired_timing.batch_ratios(batches) == (1.1, 1.0, 1.0)
    ours, theirs = paired_timing.pooled(batches)
    assert len(ours) == len(theirs) == 15
    assert len(paired_timing.confirmed_times([None, None], [(), ()], 5)) == 1
    # a trade waits on "measurably faster": more pairs even when undecided
    more = paired_timing.confirmed_times([None, None], [(), ()], 5, faster_needed=True)
    assert len(more) == 1 + paired_timing.CONFIRM


def test_measurably_slower_needs_the_interval_and_every_batch():
    measurably = paired_timing.measurably
    assert measurably((1.01, 1.10)) == 1
    assert measurably((1.01, 1.10), (1.06, 1.02, 1.03)) == 1
    # one batch's load spike: the others read below 1
    assert measurably((1.01, 1.10), (1.06, 0.99, 1.03)) == 0
    assert measurably((0.90, 0.97), (0.95, 0.93)) == -1
    assert measurably((0.90, 0.97), (0.95, 1.01)) == 0
    assert measurably((0.97, 1.03), (1.06,)) == 0
