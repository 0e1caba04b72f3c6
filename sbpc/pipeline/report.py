"""A pipelined plan for people: the text summary and the HTML timeline.

The text lists each stage's ops, modelled times (per microbatch in the
loop), stash, microbatches in flight and memory per device, the moves
between stages, the step time and the bubble, under the schedule chosen and
the other one.  The HTML section draws the loop's schedule as a timeline,
one row per stage, one box per task (forward blue, backward green), the
moves as the gaps they cause.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from sbpc.algebra.placement import Placement

from .cost import PipelineCost
from .schedule import Kind, bubble
from .units import nbytes, seconds


def format_pipeline(
    cost: PipelineCost,
    placements: Sequence[Placement],
    other: PipelineCost | None = None,
) -> str:
    """The text summary (``other``: the same plan under the other schedule)."""
    s, m = len(cost.stages), cost.microbatches
    lines = [
        f"pipeline: {s} stage(s) x {m} microbatch(es), schedule {cost.schedule}: "
        f"step {seconds(cost.step_time)} (loop {seconds(cost.loop_time)}, bubble "
        f"{cost.bubble:.1%}; equal stages: {bubble(s, m):.1%}), peak memory "
        f"{nbytes(cost.peak_memory)} per device",
        "stage  devices  ops    fwd/mb     bwd/mb     before     after      "
        "stash/mb   in flight  memory",
    ]
    for st, p in zip(cost.stages, placements, strict=True):
        lines.append(
            f"{st.stage:<6} {len(p.ranks):<8} {st.ops:<6} {seconds(st.fwd):<10} "
            f"{seconds(st.bwd):<10} {seconds(st.pre):<10} {seconds(st.post):<10} "
            f"{nbytes(st.stash):<10} {st.in_flight:<10} {nbytes(st.memory)}"
        )
    for (after, stage), took in sorted(cost.transfer.items()):
        lines.append(f"move per microbatch: {after} -> stage {stage}: {seconds(took)}")
    if other is not None:
        lines.append(
            f"under {other.schedule}: step {seconds(other.step_time)}, peak memory "
            f"{nbytes(other.peak_memory)} per device"
        )
    return "\n".join(lines)


def timeline_svg(cost: PipelineCost, width: int = 900, row: int = 28) -> str:
    """The loop's schedule: one row per stage, one box per task."""
    span = cost.loop_time or 1.0
    left = 70
    scale = (width - left - 10) / span
    height = row * len(cost.stages) + 30
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="11">'
    ]
    for st in cost.stages:
        y = 10 + st.stage * row
        out.append(f'<text x="4" y="{y + row * 0.6:.1f}">stage {st.stage}</text>')
    for slot in cost.slots:
        t = slot.task
        x = left + slot.start * scale
        w = max(1.0, (slot.end - slot.start) * scale)
        y = 10 + t.stage * row
        fill = "#6fa8dc" if t.kind is Kind.FWD else "#93c47d"
        label = html.escape(str(t))
        out.append(
            f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row - 6}" '
            f'fill="{fill}" stroke="#333"><title>{label}: '
            f"{seconds(slot.start)} - {seconds(slot.end)}</title></rect>"
        )
        if w > 24:
            out.append(f'<text x="{x + 3:.1f}" y="{y + row * 0.55:.1f}">{label}</text>')
    axis_y = 10 + len(cost.stages) * row + 12
    out.append(
        f'<text x="{left}" y="{axis_y}">0</text>'
        f'<text x="{width - 80}" y="{axis_y}">{seconds(span)}</text>'
    )
    out.append("</svg>")
    return "".join(out)


def html_section(
    cost: PipelineCost,
    placements: Sequence[Placement],
    other: PipelineCost | None = None,
) -> str:
    """The pipeline's part of the HTML report: the summary and the timeline."""
    return (
        '<section id="pipeline"><h2>Pipeline schedule</h2><pre>'
        + html.escape(format_pipeline(cost, placements, other))
        + "</pre>"
        + timeline_svg(cost)
        + "</section>"
    )
