"""Pipeline schedules: the order each stage runs its microbatches in.

A stage ``s`` runs ``F(s, i)``, the forward of microbatch ``i``, and
``B(s, i)``, its backward.  ``F(s, i)`` needs ``F(s-1, i)``; ``B(s, i)``
needs ``B(s+1, i)`` and ``F(s, i)`` (whose activations it uses: they are
*in flight* from the end of ``F(s, i)`` to the end of ``B(s, i)``).

- ``gpipe`` (Huang et al., 2019): every stage runs all forwards, then all
  backwards.  Stage ``s`` holds ``m`` microbatches in flight.
- ``1f1b`` (PipeDream-Flush, Narayanan et al., 2021): stage ``s`` runs
  ``s_count - 1 - s`` forwards, then alternates one forward and one
  backward, then the remaining backwards.  It holds at most
  ``s_count - s`` microbatches in flight.

Both idle ``(s - 1) / (m + s - 1)`` of the step with equal stages (the
*bubble*).  ``simulate`` runs a schedule on per-task times and transfer
delays: each stage runs its tasks in its order, a task starts when its
stage is free and its inputs have arrived.  The result is the timeline the
report draws, the step's makespan, and the global order in which the
emitted program dispatches the tasks (JAX runs each device's work in
dispatch order).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

SCHEDULES = ("gpipe", "1f1b")


class Kind(StrEnum):
    FWD = "fwd"
    BWD = "bwd"


@dataclass(frozen=True)
class Task:
    """One task of the loop: stage, forward or backward, microbatch."""

    stage: int
    kind: Kind
    microbatch: int

    def __str__(self) -> str:
        return f"{'F' if self.kind is Kind.FWD else 'B'}{self.stage}.{self.microbatch}"


@dataclass(frozen=True)
class Slot:
    """A task placed on the timeline (seconds from the loop's start)."""

    task: Task
    start: float
    end: float


def stage_order(schedule: str, stages: int, microbatches: int, s: int) -> list[Task]:
    """Stage ``s``'s tasks in the order it runs them."""
    m = microbatches
    fwd = [Task(s, Kind.FWD, i) for i in range(m)]
    bwd = [Task(s, Kind.BWD, i) for i in range(m)]
    if schedule == "gpipe":
        return fwd + bwd
    if schedule != "1f1b":
        raise ValueError(f"unknown schedule '{schedule}', expected one of {SCHEDULES}")
    warmup = min(stages - 1 - s, m)
    order = fwd[:warmup]
    for i in range(m - warmup):
        order += [fwd[warmup + i], bwd[i]]
    return order + bwd[m - warmup :]


def dependencies(task: Task, stages: int) -> list[Task]:
    """The tasks ``task`` needs the results of."""
    s, i = task.stage, task.microbatch
    if task.kind is Kind.FWD:
        return [Task(s - 1, Kind.FWD, i)] if s > 0 else []
    deps = [Task(s, Kind.FWD, i)]
    if s < stages - 1:
        deps.append(Task(s + 1, Kind.BWD, i))
    return deps


def simulate(
    schedule: str,
    stages: int,
    microbatches: int,
    duration: Callable[[Task], float] = lambda t: 1.0,
    delay: Callable[[Task, Task], float] = lambda a, b: 0.0,
) -> list[Slot]:
    """The timeline: every task's start and end, in dispatch order (each
    next task is the one that can start first; ties go to the lower stage)."""
    orders = [stage_order(schedule, stages, microbatches, s) for s in range(stages)]
    nxt = [0] * stages
    free = [0.0] * stages
    done: dict[Task, float] = {}
    out: list[Slot] = []
    total = sum(len(o) for o in orders)
    while len(out) < total:
        best: tuple[float, int] | None = None
        for s in range(stages):
            if nxt[s] >= len(orders[s]):
                continue
            task = orders[s][nxt[s]]
            deps = dependencies(task, stages)
            if any(d not in done for d in deps):
                continue
            start = max([free[s], *(done[d] + delay(d, task) for d in deps)])
            if best is None or start < best[0]:
                best = (start, s)
        if best is None:
            raise ValueError(f"schedule '{schedule}' deadlocks")  # never for ours
        start, s = best
        task = orders[s][nxt[s]]
        end = start + duration(task)
        out.append(Slot(task, start, end))
        done[task] = end
        free[s] = end
        nxt[s] += 1
    return out


def makespan(slots: Sequence[Slot]) -> float:
    return max((slot.end for slot in slots), default=0.0)


def in_flight(schedule: str, stages: int, microbatches: int, s: int) -> int:
    """The most microbatches stage ``s`` holds activations of at once."""
    held = peak = 0
    for task in stage_order(schedule, stages, microbatches, s):
        if task.kind is Kind.FWD:
            held += 1
            peak = max(peak, held)
        else:
            held -= 1
    return peak


def bubble(stages: int, microbatches: int) -> float:
    """The idle share of a GPipe or 1F1B step with equal stages."""
    return (stages - 1) / (microbatches + stages - 1)
