"""GPipe and 1F1B: per-stage orders, activations in flight, the bubble."""

from __future__ import annotations

import pytest

from sbpc.pipeline.schedule import (
    Kind,
    Task,
    bubble,
    dependencies,
    in_flight,
    makespan,
    simulate,
    stage_order,
)


def names(tasks: list[Task]) -> list[str]:
    return [str(t) for t in tasks]


def test_gpipe_runs_every_forward_then_every_backward() -> None:
    assert names(stage_order("gpipe", 2, 3, 0)) == [
        "F0.0", "F0.1", "F0.2", "B0.0", "B0.1", "B0.2",
    ]  # fmt: skip


def test_1f1b_warms_up_then_alternates() -> None:
    # Stage 0 of 4: three forwards in flight before its first backward.
    assert names(stage_order("1f1b", 4, 6, 0)) == [
        "F0.0", "F0.1", "F0.2",
        "F0.3", "B0.0", "F0.4", "B0.1", "F0.5", "B0.2",
        "B0.3", "B0.4", "B0.5",
    ]  # fmt: skip
    # The last stage runs each microbatch's backward right after its forward.
    assert names(stage_order("1f1b", 4, 3, 3)) == [
        "F3.0", "B3.0", "F3.1", "B3.1", "F3.2", "B3.2",
    ]  # fmt: skip


@pytest.mark.parametrize(("stages", "micro"), [(2, 4), (4, 8), (4, 2), (3, 5)])
def test_activations_in_flight(stages: int, micro: int) -> None:
    for s in range(stages):
        assert in_flight("gpipe", stages, micro, s) == micro
        assert in_flight("1f1b", stages, micro, s) == min(stages - s, micro)


@pytest.mark.parametrize("schedule", ["gpipe", "1f1b"])
@pytest.mark.parametrize(("stages", "micro"), [(2, 4), (4, 8), (3, 1)])
def test_equal_stages_idle_the_bubble(schedule: str, stages: int, micro: int) -> None:
    """Forward 1, backward 2: the step takes 3 (m + s - 1); each stage is
    busy 3m of it, idle (s - 1) / (m + s - 1)."""
    slots = simulate(
        schedule, stages, micro, lambda t: 1.0 if t.kind is Kind.FWD else 2.0
    )
    span = makespan(slots)
    assert span == pytest.approx(3 * (micro + stages - 1))
    assert 1 - 3 * micro / span == pytest.approx(bubble(stages, micro))


@pytest.mark.parametrize("schedule", ["gpipe", "1f1b"])
def test_the_simulated_order_respects_every_dependency(schedule: str) -> None:
    slots = simulate(schedule, 3, 4, delay=lambda a, b: 0.25)
    end = {s.task: s.end for s in slots}
    seen: set[Task] = set()
    for slot in slots:  # dispatch order
        for d in dependencies(slot.task, 3):
            assert d in seen
            assert slot.start >= end[d] + 0.25 - 1e-12
        seen.add(slot.task)


def test_an_unknown_schedule_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown schedule 'zigzag'"):
        stage_order("zigzag", 2, 2, 0)
