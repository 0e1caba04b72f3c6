"""``bench/paired_timing.py``: round-by-round ratios and their interval."""

from __future__ import annotations

import numpy as np
import pytest
from paired_timing import paired_interval, paired_ratio  # bench/ (conftest.py)


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
