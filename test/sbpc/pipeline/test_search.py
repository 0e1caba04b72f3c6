"""The search keeps the fastest candidate that fits the budget."""

from __future__ import annotations

from sbpc.pipeline.cost import PipelineCost, StageCost
from sbpc.pipeline.schedule import simulate
from sbpc.pipeline.search import search, stage_counts


def cost(
    schedule: str, stages: int, micro: int, per: float, mem: float
) -> PipelineCost:
    slots = simulate(schedule, stages, micro, lambda t: per)
    st = [StageCost(s, fwd=per, bwd=per, plan_peak=mem) for s in range(stages)]
    return PipelineCost(schedule, micro, st, slots)


def test_stage_counts_divide_the_axis() -> None:
    assert stage_counts(8) == [1, 2, 4, 8]
    assert stage_counts(6, limit=3) == [1, 2, 3]


def test_the_fastest_candidate_under_the_budget_wins() -> None:
    def pipelined(s: int, m: int) -> dict[str, PipelineCost]:
        if m == 3:
            raise ValueError("3 microbatches do not divide the batch dim 0")
        per = 1.0 / (s * m)
        mem = 10.0 / s  # more stages: fewer weights per device
        return {sch: cost(sch, s, m, per, mem) for sch in ("gpipe", "1f1b")}

    result = search(
        [1, 2], [1, 3, 4], ("gpipe", "1f1b"), lambda: (3.0, 12.0), pipelined, 6.0
    )
    best = result.best
    assert best is not None and best.pipelined and best.stages == 2
    assert best.peak_memory is not None and best.peak_memory <= 6.0
    table = result.table(6.0)
    assert "no pipeline" in table and "over the budget" in table
    assert "not planned: 3 microbatches do not divide" in table
    assert table.count("\n* ") == 1


def test_nothing_fits() -> None:
    result = search([1], [1], ("1f1b",), lambda: (1.0, 5.0), lambda s, m: {}, 1.0)
    assert result.best is None
    assert "over the budget by 4 B" in result.table(1.0)


def test_no_budget_takes_the_fastest_even_without_a_pipeline() -> None:
    result = search(
        [2],
        [2],
        ("gpipe",),
        lambda: (0.5, 9.0),
        lambda s, m: {"gpipe": cost("gpipe", s, m, 1.0, 1.0)},
        None,
    )
    assert result.best is not None and not result.best.pipelined
