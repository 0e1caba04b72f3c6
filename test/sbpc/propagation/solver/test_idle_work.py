"""Queued work runs while an LP solves, once, and fails where it is read."""

from __future__ import annotations

import threading
import time

import pytest

from sbpc.propagation.solver.idle_work import Ahead, Background, queued, while_solving

WAIT = 10.0  # seconds a test's "LP" waits for the queued work before failing


def test_queued_work_runs_in_this_thread_while_the_solve_runs_in_another() -> None:
    """The "LP" can only finish once the queued work has run: it waits for
    it (and would time out were the work left until after it)."""
    ran = threading.Event()
    threads: dict[str, threading.Thread] = {}

    def work() -> int:
        threads["work"] = threading.current_thread()
        ran.set()
        return 7

    def solve() -> bool:
        threads["solve"] = threading.current_thread()
        return ran.wait(WAIT)

    ahead = Ahead(work)
    with queued(ahead):
        assert while_solving(solve) is True
    assert ahead.done and ahead.result() == 7
    assert threads["work"] is threading.current_thread()
    assert threads["solve"] is not threading.current_thread()


def test_with_nothing_queued_the_solve_runs_here() -> None:
    here = threading.current_thread()
    assert while_solving(lambda: threading.current_thread()) is here
    done = Ahead(lambda: 1)
    done.run()
    with queued(done):  # done work is not waited for: nothing left to do
        assert while_solving(lambda: threading.current_thread()) is here


def test_work_runs_once_whoever_asks_first() -> None:
    calls: list[int] = []
    ahead = Ahead(lambda: calls.append(1) or len(calls))
    assert ahead.result() == 1
    with queued(ahead):
        while_solving(lambda: None)
    assert ahead.result() == 1 and calls == [1]


def test_queued_work_in_order_and_only_inside_the_block() -> None:
    order: list[str] = []
    last = threading.Event()
    first = Ahead(lambda: order.append("a"))
    second = Ahead(lambda: (order.append("b"), last.set()))
    with queued(first), queued(second):
        assert while_solving(lambda: last.wait(WAIT))
    assert order == ["a", "b"]
    later = Ahead(lambda: order.append("c"))
    with queued(later):
        pass
    while_solving(lambda: None)  # outside the block: nothing is queued
    assert not later.done


def test_an_error_of_work_done_early_is_raised_where_its_result_is_read() -> None:
    def broken() -> int:
        raise ValueError("broken work")

    ahead = Ahead(broken)
    with queued(ahead):
        assert while_solving(lambda: 3) == 3  # the LP's own answer stands
    ahead.run()  # not again, not raised here
    with pytest.raises(ValueError, match="broken work"):
        ahead.result()


def test_an_error_of_the_solve_reaches_the_caller() -> None:
    def failing() -> None:
        raise RuntimeError("HiGHS failed")

    with queued(Ahead(lambda: None)), pytest.raises(RuntimeError, match="HiGHS"):
        while_solving(failing)


def test_many_queued_pieces_whose_work_solves_nest_one_deep() -> None:
    """A core of many parts queues each part, and each part's work solves
    an LP of its own: those run in this thread (no helper beside a helper),
    so the depth and the threads stay bounded however many are queued."""
    depth = {"now": 0, "most": 0}
    live = {"now": 0, "most": 0}
    lock = threading.Lock()

    def lp() -> None:
        with lock:
            live["now"] += 1
            live["most"] = max(live["most"], live["now"])
        threading.Event().wait(0.001)
        with lock:
            live["now"] -= 1

    def part() -> None:
        depth["now"] += 1
        depth["most"] = max(depth["most"], depth["now"])
        while_solving(lp)
        depth["now"] -= 1

    parts = [Ahead(part) for _ in range(2000)]  # past the recursion limit
    with queued(*parts[1:]):
        parts[0].run()
    for ahead in parts:
        ahead.result()
    assert all(ahead.done for ahead in parts)
    assert depth["most"] == 2  # the first part, and one run during its LP
    assert live["most"] <= 2


def test_a_piece_runs_even_when_the_lp_ends_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where queued work runs does not hang on the machine's load: an LP
    that is over before this thread looks (here: every thread reads as
    ended) still gets one piece run, and only one."""
    monkeypatch.setattr(threading.Thread, "is_alive", lambda self: False)
    first, second = Ahead(lambda: 1), Ahead(lambda: 2)
    with queued(first, second):
        assert while_solving(lambda: 5) == 5
    assert first.done and not second.done


def test_the_helpers_result_and_error_reach_the_caller() -> None:
    assert Background(lambda: 41 + 1).result() == 42

    def broken() -> int:
        raise ValueError("in the helper")

    with pytest.raises(ValueError, match="in the helper"):
        Background(broken).result()


def test_the_caller_waits_for_the_helpers_first_lp_not_its_end() -> None:
    """``Background.solving`` returns once the work starts an LP
    (``while_solving``), the LP still running; and once work without one
    ends."""
    release = threading.Event()

    def work() -> bool:
        return while_solving(lambda: release.wait(5))

    helper = Background(work)
    helper.solving()
    assert not release.is_set()  # the LP is still running
    release.set()
    assert helper.result() is True  # it ran to the end, released, not timed out
    quick = Background(lambda: 3)
    quick.solving()
    assert quick.result() == 3


STEPS = 5_000  # steps of a test's stepped work: far more than one "LP" lasts
# Each step sleeps this long (and so lets the "LP"'s thread take the GIL
# and end: a busy step would hold it for a switch interval).
STEP_SECONDS = 2e-4


def test_work_in_steps_stops_when_the_lp_ends_and_the_rest_runs_when_asked() -> None:
    """The "LP" ends once three steps have run: the work stops soon after
    (it would run all its steps were it run whole), the next LP takes it
    on from there, and its result is the whole work's."""
    taken: list[int] = []
    third = threading.Event()

    def steps():
        for k in range(STEPS):
            taken.append(k)
            if k == 2:
                third.set()
            time.sleep(STEP_SECONDS)
            yield
        return sum(taken)

    ahead = Ahead.in_steps(steps)
    with queued(ahead):
        assert while_solving(lambda: third.wait(WAIT)) is True
        first = len(taken)
        assert 3 <= first < STEPS and not ahead.done
        # the next LP ends at once: one step at least, from where it stopped
        while_solving(lambda: None)
    assert taken[: first + 1] == list(range(first + 1))
    assert ahead.result() == sum(range(STEPS)) and ahead.done
    assert taken == list(range(STEPS))  # every step once


def test_an_error_of_a_step_is_raised_where_the_result_is_read() -> None:
    def steps():
        yield
        raise ValueError("step")

    ahead = Ahead.in_steps(steps)
    with queued(ahead):
        while_solving(lambda: None)  # the first step only
        assert not ahead.done
        while_solving(lambda: None)  # the failing one
    assert ahead.done
    with pytest.raises(ValueError, match="step"):
        ahead.result()


def test_stepped_work_queued_after_a_piece_runs_once_the_piece_is_done() -> None:
    """Pieces run in order: a stepped piece behind a whole one starts once
    the whole one is done, within the same LP."""
    order: list[str] = []
    release = threading.Event()

    def steps():
        order.append("steps")
        release.set()
        yield
        return 2

    whole, stepped = Ahead(lambda: order.append("whole") or 1), Ahead.in_steps(steps)
    with queued(whole, stepped):
        while_solving(lambda: release.wait(WAIT))
    assert order == ["whole", "steps"]
    assert whole.result() == 1 and stepped.result() == 2
