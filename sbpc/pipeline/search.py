"""``auto``: stages, microbatches and schedule chosen together with the layouts.

Each candidate (a stage count dividing the stage axis, a microbatch count)
is planned whole: cut, each stage's layouts by the strategy, boxed, priced
(``sbpc.pipeline.cost``) under both schedules (the schedule changes neither
the tasks nor their layouts, only their order, the bubble and the
activations in flight).  The candidate kept is the fastest modelled step
whose every stage fits the memory budget; "no pipeline" (one stage, one
microbatch, the plain plan) is a candidate too.  A candidate that cannot be
planned (a stage count with too few layers, a microbatch count the batch
does not divide, a stage plan over the budget) is listed with why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .cost import PipelineCost
from .units import nbytes, seconds

# Microbatch counts tried (those the batch does not divide are skipped).
MICROBATCHES = (1, 2, 4, 8, 16, 32)


@dataclass(frozen=True)
class Candidate:
    """One configuration's outcome: modelled step time and peak memory per
    device (None: it could not be planned, ``why``)."""

    stages: int
    microbatches: int
    schedule: str | None  # None: no pipeline
    step_time: float | None = None
    peak_memory: float | None = None
    why: str = ""

    @property
    def pipelined(self) -> bool:
        return self.schedule is not None

    def label(self) -> str:
        if not self.pipelined:
            return "no pipeline"
        return f"{self.stages} stage(s) x {self.microbatches} microbatch(es), {self.schedule}"


@dataclass(frozen=True)
class SearchResult:
    best: Candidate | None
    candidates: list[Candidate]

    def table(self, budget: float | None = None) -> str:
        """One line per candidate, the chosen one marked."""
        lines = [
            "pipeline search"
            + (f" (memory budget {nbytes(budget)} per device)" if budget else "")
            + ":"
        ]
        for c in self.candidates:
            mark = "*" if c == self.best else " "
            if c.step_time is None:
                lines.append(f"{mark} {c.label():48} not planned: {c.why}")
                continue
            assert c.peak_memory is not None
            fits = "" if not c.why else f"  ({c.why})"
            lines.append(
                f"{mark} {c.label():48} step {seconds(c.step_time):10} memory "
                f"{nbytes(c.peak_memory)}{fits}"
            )
        return "\n".join(lines)


def stage_counts(axis: int, limit: int | None = None) -> list[int]:
    """Stage counts a stage axis of ``axis`` positions can hold."""
    return [
        s for s in range(1, axis + 1) if axis % s == 0 and (limit is None or s <= limit)
    ]


def search(
    stages: Iterable[int],
    microbatches: Iterable[int],
    schedules: Sequence[str],
    plain: Callable[[], tuple[float, float]],
    pipelined: Callable[[int, int], dict[str, PipelineCost]],
    budget: float | None,
) -> SearchResult:
    """The fastest candidate that fits ``budget``.

    ``plain()``: the unpipelined plan's (step time, peak memory);
    ``pipelined(s, m)``: the costs per schedule (raising ``ValueError``
    with the reason when it cannot be planned).
    """
    found: list[Candidate] = []
    try:
        t, mem = plain()
        found.append(Candidate(1, 1, None, t, mem, _over(mem, budget)))
    except ValueError as e:
        found.append(Candidate(1, 1, None, why=str(e).splitlines()[0]))
    for s in stages:
        for m in microbatches:
            if s == 1 and m == 1:
                continue  # the plain plan
            try:
                costs = pipelined(s, m)
            except ValueError as e:
                for schedule in schedules:
                    found.append(Candidate(s, m, schedule, why=str(e).splitlines()[0]))
                continue
            for schedule in schedules:
                c = costs[schedule]
                found.append(
                    Candidate(
                        s,
                        m,
                        schedule,
                        c.step_time,
                        c.peak_memory,
                        _over(c.peak_memory, budget),
                    )
                )
    fits = [c for c in found if c.step_time is not None and not c.why]
    best = min(fits, key=lambda c: (c.step_time, c.peak_memory)) if fits else None
    return SearchResult(best, found)


def _over(memory: float, budget: float | None) -> str:
    if budget is not None and memory > budget:
        return f"over the budget by {nbytes(memory - budget)}"
    return ""
