"""Progress lines: shown only on a terminal and not when quiet; a line per
phase with its time; the ILP's running gap from HiGHS's callback."""

from __future__ import annotations

import io
import re
import time

import pytest

from sbpc.propagation import progress
from sbpc.propagation.driver import propagate
from sbpc.propagation.optimal import Optimal
from sbpc.propagation.progress import Progress, reporting
from sbpc.testing.synthetic_graphs import RingCost, transformer_graph


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_quiet_unless_a_terminal() -> None:
    pipe = io.StringIO()
    assert not Progress.for_terminal(stream=pipe).enabled
    assert not Progress.for_terminal(quiet=True, stream=Terminal()).enabled
    shown = Progress.for_terminal(stream=Terminal())
    assert shown.enabled
    silent = Progress.for_terminal(stream=pipe)
    with silent.phase("work"):
        silent.update("busy", force=True)
    assert pipe.getvalue() == ""


def test_a_line_per_phase_with_its_time() -> None:
    out = Terminal()
    shown = Progress.for_terminal(stream=out)
    with shown.phase("sbp-inline"):
        pass
    shown.done("optimal: shrink", 1.25, "core of 3 nodes")
    lines = out.getvalue().split("\n")
    assert lines[0].startswith("\r\x1b[Ksbpc: sbp-inline ...\r\x1b[Ksbpc: sbp-inline ")
    assert lines[0].endswith(" s")
    assert lines[1].startswith("sbpc: optimal: shrink (core of 3 nodes) ")
    assert lines[1].endswith("    1.25 s")
    assert lines[2] == ""


def test_a_failing_phase_leaves_no_done_line() -> None:
    out = Terminal()
    shown = Progress.for_terminal(stream=out)
    with pytest.raises(ValueError), shown.phase("sbp-propagate"):
        raise ValueError("no plan")
    assert out.getvalue().endswith("\r\x1b[K")
    assert "\n" not in out.getvalue()


def test_updates_are_throttled(monkeypatch: pytest.MonkeyPatch) -> None:
    out = Terminal()
    shown = Progress.for_terminal(stream=out)
    shown.update("one", force=True)
    shown.update("two")  # within UPDATE_EVERY of the first: dropped
    assert "two" not in out.getvalue()
    monkeypatch.setattr(progress, "UPDATE_EVERY", 0.0)
    shown.update("three")
    assert out.getvalue().endswith("sbpc: three")


def test_current_is_silent_by_default_and_scoped() -> None:
    assert not progress.current().enabled
    shown = Progress(Terminal(), enabled=True)
    with reporting(shown):
        assert progress.current() is shown
    assert not progress.current().enabled


def test_optimal_reports_its_phases_while_highs_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(progress, "UPDATE_EVERY", 0.02)
    # a core HiGHS must work on (no shrinking), stopped by the time limit
    g = transformer_graph(6, (2, 4), dense_skips=2)
    cost = RingCost((2, 4), bandwidth=(25e9, 300e9), latency=(1e-5, 2e-6))
    out = Terminal()
    with reporting(Progress.for_terminal(stream=out)):
        plan = propagate(
            g, cost.time, Optimal(shrink_graph=False, lp_first=False), time_limit=0.5
        )
    text = out.getvalue()
    assert "sbpc: optimal: pairwise problem (155 nodes)" in text
    assert "sbpc: optimal: shrink (core of 155 nodes)" in text
    running = [
        p for p in text.split("\r\x1b[K") if p.startswith("sbpc: optimal: ILP of")
    ]
    assert running, text  # the ticker rewrote the running line while HiGHS ran
    assert all(
        re.fullmatch(r"sbpc: optimal: ILP of \d+ columns \.\.\. [\d.]+ s.*", p)
        for p in running
    ), running
    status = plan.stats["status"]
    assert re.search(
        rf"sbpc: optimal: ILP \({re.escape(status)}, gap [^)]+\) +[\d.]+ s\n", text
    )
    assert text.endswith("\n")  # the ticker stopped with the ILP's line


class _Event:
    def __init__(self, gap: float, nodes: int) -> None:
        self.data_out = type("Out", (), {"mip_gap": gap, "mip_node_count": nodes})


class _FakeHighs:
    """HiGHS's callback registry, called by hand."""

    def __init__(self) -> None:
        self.callbacks: list = []
        self.cbMipInterrupt = self

    def subscribe(self, fn) -> None:
        self.callbacks.append(fn)


def test_the_solvers_gap_reaches_the_running_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(progress, "UPDATE_EVERY", 0.01)
    out = Terminal()
    shown = Progress.for_terminal(stream=out)
    highs = _FakeHighs()
    shown.watch_highs(highs, "optimal: ILP of 10 columns")
    (callback,) = highs.callbacks
    callback(_Event(0.0241, 310))
    deadline = time.monotonic() + 5
    while "gap 2.41%, 310 nodes" not in out.getvalue() and time.monotonic() < deadline:
        time.sleep(0.01)
    shown.done("optimal: ILP", 1.0, "Optimal, gap 0%")
    text = out.getvalue()
    assert "sbpc: optimal: ILP of 10 columns ... " in text
    assert "gap 2.41%, 310 nodes" in text
    assert re.search(
        r"\r\x1b\[Ksbpc: optimal: ILP \(Optimal, gap 0%\) +1\.00 s\n$", text
    )
    size = len(text)
    time.sleep(0.05)
    assert len(out.getvalue()) == size  # done stopped the ticker


def test_optimal_prints_nothing_without_a_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    g = transformer_graph(2, (2, 2), seq=64, hidden=32, ffn=64)
    ring = RingCost((2, 2))
    propagate(g, ring.time, "optimal", edge_bytes=ring.bytes)
    assert capsys.readouterr().err == ""


def test_optimal_reports_the_lp_relaxation_it_solves_first() -> None:
    g = transformer_graph(2, (2, 4))
    cost = RingCost((2, 4), bandwidth=(25e9, 300e9), latency=(1e-5, 2e-6))
    out = Terminal()
    with reporting(Progress.for_terminal(stream=out)):
        plan = propagate(g, cost.time, Optimal(shrink_graph=False))
    text = out.getvalue()
    lp = re.search(r"sbpc: optimal: LP relaxation \((.*?)\) +[\d.]+ s\n", text)
    assert lp, text
    status = plan.stats["status"]
    proven = status in (
        "Optimal (integral LP relaxation)",
        "Optimal (rounded LP relaxation)",
    )
    assert lp.group(1) == (
        f"{status.split()[1][1:]}: a proven optimum"
        if proven
        else "not integral: ILP next"
    )
    assert ("sbpc: optimal: ILP (" in text) != proven
