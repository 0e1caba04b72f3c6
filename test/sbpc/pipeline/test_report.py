"""The pipeline's text report and HTML timeline."""

from __future__ import annotations

import pytest

from sbpc.algebra.placement import Placement
from sbpc.pipeline.cost import PipelineCost, StageCost
from sbpc.pipeline.report import format_pipeline, html_section, timeline_svg
from sbpc.pipeline.schedule import Kind, simulate


def two_stages(schedule: str) -> PipelineCost:
    stages = [
        StageCost(0, pre=1e-3, fwd=1e-3, bwd=2e-3, post=2e-3, ops=10, stash=2**20,
                  plan_peak=2**30, in_flight=4 if schedule == "gpipe" else 2),
        StageCost(1, fwd=1e-3, bwd=2e-3, ops=12, stash=2**20, plan_peak=2**30),
    ]  # fmt: skip
    slots = simulate(schedule, 2, 4, lambda t: 1e-3 if t.kind is Kind.FWD else 2e-3)
    return PipelineCost(schedule, 4, stages, slots, {("s0.fwd", 1): 5e-6})


def test_the_step_is_before_plus_loop_plus_after() -> None:
    c = two_stages("1f1b")
    assert c.loop_time == pytest.approx(3e-3 * (4 + 2 - 1))
    assert c.step_time == pytest.approx(1e-3 + c.loop_time + 2e-3)
    assert c.bubble == pytest.approx(1 / 5)  # (s - 1) / (m + s - 1)
    assert c.peak_memory == 2**30 + 2**20  # stage 0: one more in flight


def test_the_text_lists_each_stage_and_the_other_schedule() -> None:
    text = format_pipeline(
        two_stages("1f1b"),
        [Placement.of_size(2), Placement.from_nested("cpu", [2, 3])],
        two_stages("gpipe"),
    )
    lines = text.splitlines()
    assert lines[0].startswith("pipeline: 2 stage(s) x 4 microbatch(es), schedule 1f1b")
    assert "bubble 20.0%; equal stages: 20.0%" in lines[0]
    assert lines[2].split()[:3] == ["0", "2", "10"]
    assert lines[2].split()[-3:] == ["2", "1", "GiB"]
    assert "move per microbatch: s0.fwd -> stage 1: 5 us" in text
    assert lines[-1].startswith("under gpipe: step 18 ms, peak memory 1 GiB")


def test_the_timeline_has_a_box_per_task() -> None:
    svg = timeline_svg(two_stages("gpipe"))
    assert svg.count("<rect") == 2 * 2 * 4
    assert "F0.0" in svg and "B1.3" in svg
    assert html_section(two_stages("gpipe"), [Placement.of_size(2)] * 2).startswith(
        '<section id="pipeline">'
    )
