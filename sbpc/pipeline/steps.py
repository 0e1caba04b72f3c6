"""The driver's steps: a pipelined program's tasks in the schedule's order.

One flat list, written into the emitted module as ``STEPS`` (so the
schedule a module runs can be read in it): the arguments' moves, the tasks
before the loop, the microbatch splits, the accumulators' zeros, the loop's
tasks in dispatch order (``sbpc.pipeline.schedule.simulate``) each followed
by the moves of what it made, the accumulated sums, the tasks after the
loop; and after each value's last use, a ``drop`` (so a stage holds a
microbatch's activations only while the schedule needs them).
"""

from __future__ import annotations

from collections.abc import Sequence

from .schedule import Kind, Slot, simulate
from .tasks import PipelineProgram

Step = tuple  # ("task", name, i | None), ("move", j, i | None), ("split", k),
# ("acc", a), ("sum", a), ("drop", key, i | None)


def dispatch_order(pp: PipelineProgram, schedule: str | None = None) -> list[Slot]:
    """The loop's tasks in the order the driver dispatches them (a backward
    taken as twice a forward, as for a product's two gradient products)."""
    return simulate(
        schedule or pp.schedule,
        pp.stages,
        pp.microbatches,
        lambda t: 2.0 if t.kind is Kind.BWD else 1.0,
    )


def driver_steps(
    pp: PipelineProgram,
    order: Sequence[Slot] | None = None,
    schedule: str | None = None,
) -> list[Step]:
    """Every step of one call under ``schedule`` (default: the program's),
    drops included."""
    order = dispatch_order(pp, schedule) if order is None else order
    after: dict[str, list[int]] = {}
    for j, move in enumerate(pp.transfers):
        after.setdefault(move.after, []).append(j)
    steps: list[Step] = [("move", j, None) for j in after.get("args", [])]
    names = {t.name for t in pp.tasks}
    for t in pp.tasks:
        if t.phase == "pre":
            steps.append(("task", t.name, None))
            steps += [("move", j, None) for j in after.get(t.name, [])]
    steps += [("split", k) for k in range(len(pp.splits))]
    for i in range(pp.microbatches):
        steps += [("move", j, i) for j in after.get("split", [])]
    steps += [("acc", a) for a in range(len(pp.accumulators))]
    for slot in order:
        name = f"s{slot.task.stage}.{slot.task.kind}"
        if name not in names:
            continue
        i = slot.task.microbatch
        steps.append(("task", name, i))
        steps += [("move", j, i) for j in after.get(name, [])]
    steps += [("sum", a) for a in range(len(pp.accumulators))]
    for t in pp.tasks:
        if t.phase == "post":
            steps.append(("task", t.name, None))
            steps += [("move", j, None) for j in after.get(t.name, [])]
    return _with_drops(pp, steps)


def _reads(pp: PipelineProgram, step: Step) -> list[tuple[str, int | None]]:
    what = step[0]
    if what == "task":
        task = pp.task(step[1])
        i = step[2]
        return [(k, i if k in pp.loop_keys else None) for k in task.inputs]
    if what == "move":
        move = pp.transfers[step[1]]
        i = step[2]
        return [(move.src, i if move.src in pp.loop_keys else None)]
    if what == "split":
        return [(pp.splits[step[1]].src, None)]
    return []


def _with_drops(pp: PipelineProgram, steps: list[Step]) -> list[Step]:
    """``steps`` with a drop after each value's last read (arguments,
    results and accumulators are kept)."""
    keep = {k for k, *_ in pp.args} | {k for k, *_ in pp.results}
    last: dict[tuple[str, int | None], int] = {}
    for n, step in enumerate(steps):
        for item in _reads(pp, step):
            last[item] = n
    drops: dict[int, list[tuple[str, int | None]]] = {}
    for item, n in last.items():
        if item[0] not in keep and not item[0].startswith("acc"):
            drops.setdefault(n, []).append(item)
    out: list[Step] = []
    for n, step in enumerate(steps):
        out.append(step)
        out += [("drop", k, i) for k, i in sorted(drops.get(n, []), key=str)]
    return out
