"""``sbpc.timing``: the phase tree, the module-level ``phase`` and the table."""

from __future__ import annotations

import re
import threading
import time

from sbpc.timing import Timer, active_timer, phase


def test_phases_nest_accumulate_and_keep_first_entry_order() -> None:
    timer = Timer()
    with timer.activate():
        with phase("parse"):
            time.sleep(0.002)
        for _ in range(3):
            with phase("pass"), phase("inner"):
                time.sleep(0.001)
        with phase("parse"):  # a second entry adds to the first row
            pass
    timer.stop()
    rows = timer.rows()
    assert [(d, n) for d, n, _ in rows] == [(0, "parse"), (0, "pass"), (1, "inner")]
    assert timer.root.children["pass"].count == 3
    assert timer.root.children["parse"].count == 2
    assert timer.seconds("pass", "inner") >= 0.003
    assert timer.seconds("pass") >= timer.seconds("pass", "inner")
    assert timer.seconds("no such phase") == 0.0
    assert timer.total >= timer.seconds("parse") + timer.seconds("pass")
    d = timer.to_dict()
    assert d["name"] == "Total" and d["children"][1]["children"][0]["count"] == 3


def test_phase_without_an_active_timer_records_nothing() -> None:
    assert active_timer() is None
    with phase("anything") as node:
        assert node is None
    timer = Timer()
    with timer.activate():
        assert active_timer() is timer
    assert active_timer() is None
    assert timer.rows() == []


def test_an_exception_still_closes_the_phase() -> None:
    timer = Timer()
    with timer.activate():
        try:
            with phase("fails"):
                raise ValueError("boom")
        except ValueError:
            pass
        with phase("after"):
            pass
    # "after" is a sibling of "fails", not its child
    assert [(d, n) for d, n, _ in timer.rows()] == [(0, "fails"), (0, "after")]


def test_the_active_timer_is_per_thread() -> None:
    timer = Timer()
    seen: list[object] = []
    with timer.activate():
        t = threading.Thread(target=lambda: seen.append(active_timer()))
        t.start()
        t.join()
    assert seen == [None]


def test_format_is_mlir_opt_timing_table() -> None:
    timer = Timer()
    with timer.activate():
        with phase("parse"):
            pass
        with phase("sbp-propagate"), phase("build graph"):
            pass
    timer.stop()
    text = timer.format()
    lines = text.splitlines()
    assert "... Execution time report ..." in lines[1]
    assert re.fullmatch(r"  Total Execution Time: \d+\.\d{4} seconds", lines[3])
    assert lines[5] == "  ----Wall Time----  ----Name----"
    row = r"  +\d+\.\d{4} \( *\d+\.\d%\)  "
    assert re.fullmatch(row + "parse", lines[6])
    assert re.fullmatch(row + "sbp-propagate", lines[7])
    assert re.fullmatch(row + "  build graph", lines[8])
    assert re.fullmatch(r"  +\d+\.\d{4} \(100\.0%\)  Total", lines[9])


def test_a_running_phase_reports_its_time_so_far() -> None:
    timer = Timer()
    with timer.phase("outer"):
        time.sleep(0.01)
        [(depth, name, seconds)] = timer.rows()
        assert (depth, name) == (0, "outer") and seconds >= 0.01
    assert timer.seconds("outer") >= 0.01
    assert timer.root.children["outer"].opened is None
