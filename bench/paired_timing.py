"""Two programs' step times compared round by round.

On a shared machine the load drifts between rounds of a benchmark by more
than the differences it looks for; two calls that ran back to back saw the
same load.  So the benchmarks compare their two sides by the median of each
round's ratio, and say how far the machine's noise leaves that median
uncertain (a bootstrap interval), instead of asserting a ratio a rerun
would flip.
"""

from __future__ import annotations

import numpy as np


def paired_ratio(ours: list[float], theirs: list[float]) -> float:
    """Median over rounds of the two back-to-back calls' ratio: load that
    drifts between rounds cancels."""
    return float(np.median(np.asarray(ours) / np.asarray(theirs)))


def paired_interval(
    ours: list[float], theirs: list[float], level: float = 0.9, resamples: int = 2000
) -> tuple[float, float]:
    """A bootstrap ``level`` interval of ``paired_ratio``: the rounds
    resampled with replacement (fixed seed), the median of each resample."""
    ratios = np.asarray(ours) / np.asarray(theirs)
    rng = np.random.default_rng(0)
    picks = rng.integers(0, len(ratios), size=(resamples, len(ratios)))
    medians = np.median(ratios[picks], axis=1)
    tail = (1.0 - level) / 2
    low, high = np.quantile(medians, [tail, 1.0 - tail])
    return float(low), float(high)
