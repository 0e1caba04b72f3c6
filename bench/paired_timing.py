"""Two programs' step times compared round by round.

On a shared machine the load drifts between rounds of a benchmark by more
than the differences it looks for; two calls that ran back to back saw the
same load.  So the benchmarks compare their two sides by the median of each
round's ratio, and say how far the machine's noise leaves that median
uncertain (a bootstrap interval), instead of asserting a ratio a rerun
would flip.
"""

from __future__ import annotations

import gc
import time

import jax
import numpy as np

WARM_UP = 5  # untimed rounds before the timed ones
# Batches timed after a first batch whose interval excludes 1.  One 20-round
# batch of two 1 ms steps whose programs do the same work put its whole 90%
# interval above 1 in two runs of three (``mlp`` tp, 1.06 (1.01-1.10)); the
# next batches of the same two programs read 0.97-1.02 (docs/performance.md).
CONFIRM = 2


def paired_ratio(ours: list[float], theirs: list[float]) -> float:
    """Median over rounds of the two back-to-back calls' ratio: load that
    drifts between rounds cancels."""
    return float(np.median(np.asarray(ours) / np.asarray(theirs)))


def interleaved_times(fns, args, repeats: int) -> list[list[float]]:
    """Seconds per call of each fn, ``repeats`` rounds of one call each.

    Both run in every round, and each goes first every other round (ABBA),
    so neither always runs right after the other has warmed the caches or
    loaded the machine (with a fixed order the first program read 5-13%
    slower on rows where both compile to the same HLO)."""
    for _ in range(WARM_UP):  # compiled moments ago: threads, caches, pages
        for fn, a in zip(fns, args, strict=True):
            jax.block_until_ready(fn(*a))
    gc.collect()  # what compiling left, not collected inside a timed call
    times: list[list[float]] = [[] for _ in fns]
    order = list(range(len(fns)))
    for i in range(repeats):
        for k in order if i % 2 == 0 else order[::-1]:
            start = time.perf_counter()
            jax.block_until_ready(fns[k](*args[k]))
            times[k].append(time.perf_counter() - start)
    return times


def median_seconds(fn, *args, repeats: int = 15) -> float:
    """Median seconds of ``repeats`` calls, after one untimed (compiling) call."""
    jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def paired_difference(ours: list[float], theirs: list[float]) -> float:
    """Median over rounds of the two back-to-back calls' difference (seconds
    ``ours`` takes beyond ``theirs``): what one program adds to the other."""
    return float(np.median(np.asarray(ours) - np.asarray(theirs)))


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


def confirmed_times(
    fns, args, repeats: int, confirm: int = CONFIRM, faster_needed: bool = False
) -> list[list[list[float]]]:
    """Batches of ``interleaved_times``: one of ``repeats`` rounds, then, if
    its paired interval excludes 1 (a verdict would follow from it), or
    ``faster_needed`` (a verdict waits on the first program being measured
    faster: a trade of bytes), ``confirm`` more, each timed apart, so that
    a verdict rests on more pairs and on more than one stretch of the
    machine's load."""
    batches = [interleaved_times(fns, args, repeats)]
    low, high = paired_interval(*batches[0][:2])
    if low > 1.0 or high < 1.0 or faster_needed:
        batches += [interleaved_times(fns, args, repeats) for _ in range(confirm)]
    return batches


def pooled(batches: list[list[list[float]]]) -> list[list[float]]:
    """Every batch's rounds, per program, in one list each."""
    return [[t for b in batches for t in b[k]] for k in range(len(batches[0]))]


def batch_ratios(batches: list[list[list[float]]]) -> tuple[float, ...]:
    """Each batch's paired ratio of the first program to the second."""
    return tuple(paired_ratio(b[0], b[1]) for b in batches)


def measurably(interval: tuple[float, float], ratios: tuple[float, ...] = ()) -> int:
    """+1: measurably slower (the whole interval above 1 and every batch's
    ratio above 1), -1: measurably faster (the mirror), 0: neither.  A load
    spike in one batch moves its rounds, not the next batch's."""
    low, high = interval
    if low > 1.0 and all(r > 1.0 for r in ratios):
        return 1
    if high < 1.0 and all(r < 1.0 for r in ratios):
        return -1
    return 0
