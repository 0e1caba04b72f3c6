"""Plan for a machine known only within a range: the least worst regret.

A calibration brackets what a collective costs inside a step: a chain of
back-to-back collectives prices it low, collectives timed between blocks of
work price it high (docs/collective-overhead.md), and the real cost moves
between the two from minute to minute.  Two plans whose modeled times differ
by a few percent under one bracket end can swap under the other, and the
search would decide on noise.  Given several *scenarios* (cost models of one
machine that differ in their links, ``CostModel.scenarios``), the search
plans under each, prices every plan it found under every scenario, and keeps
the plan whose *worst regret* is least: its time over the best plan's time in
the scenario where that ratio is largest.  A plan a little slower in one
scenario beats one much slower in another; a plan best in all of them has no
regret and is kept.  Ties go to the plan cheapest in the first (nominal)
scenario, then to the earlier plan.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ScenarioChoice:
    """The plan kept (``index``), and every plan's price and worst regret."""

    index: int
    times: tuple[tuple[float, ...], ...]  # per plan, per scenario (seconds)
    regrets: tuple[float, ...]  # per plan: its largest time / best time - 1

    @property
    def nominal_best(self) -> int:
        """The plan cheapest in the first scenario (earlier on ties)."""
        return min(range(len(self.times)), key=lambda i: self.times[i][0])

    def note(self) -> str | None:
        """One line saying why the kept plan is not the nominal scenario's
        cheapest (None when it is)."""
        best = self.nominal_best
        if self.times[best][0] == self.times[self.index][0]:
            return None
        return (
            f"kept a plan modeled at {self.times[self.index][0] * 1e6:.1f} us over "
            f"one at {self.times[best][0] * 1e6:.1f} us: at worst "
            f"{self.regrets[self.index]:.1%} slower than the best plan across "
            f"{len(self.times[0])} scenarios, against {self.regrets[best]:.1%}"
        )


def regret(time: float, best: float) -> float:
    """How much slower ``time`` is than ``best``, as a share of ``best``."""
    if time <= best:
        return 0.0
    return time / best - 1 if best > 0 else math.inf


def least_worst_regret(times: Sequence[Sequence[float]]) -> ScenarioChoice:
    """The plan (row of ``times``: its seconds in each scenario) whose worst
    regret across the scenarios (columns) is least."""
    if not times or not times[0]:
        raise ValueError("a choice across scenarios needs plans and scenarios")
    width = len(times[0])
    if any(len(row) != width for row in times):
        raise ValueError("every plan needs a time in every scenario")
    bests = [min(row[s] for row in times) for s in range(width)]
    regrets = tuple(
        max(regret(row[s], bests[s]) for s in range(width)) for row in times
    )
    index = min(range(len(times)), key=lambda i: (regrets[i], times[i][0]))
    return ScenarioChoice(
        index, tuple(tuple(float(t) for t in row) for row in times), regrets
    )
