"""Work the search will need, done while HiGHS solves an LP.

HiGHS releases the GIL while it runs, so the Python thread that called it
only waits: on the library decoders' 2d training steps the optimal
strategy's LPs hold 0.5-1.3 s of a row.  A search that knows what it will
need next, and that does not depend on those LPs, queues it (``queued``):
the combining search's latency-free round builds and shrinks the whole
graph's pairwise problem at latency scale 0, whatever the strategy's plan.
While work is queued, every LP (``while_solving``) runs in a helper thread
and the queued work runs in this one meanwhile.  Work in steps (a
generator: ``Ahead.in_steps``) stops when the LP ends and the next LP
takes it on; whole work runs to its end.  So the later rounds' problems,
queued at the scales the search predicts (``combining.later_scales``),
cost only the LPs' idle time when a round asks for another scale.

Only HiGHS runs in the helper and only Python here, so neither waits on the
other for the GIL.  (A Python thread beside the strategy's own Python
would: each numpy call that releases the GIL hands it over for a switch
interval, and the strategy's shrink makes thousands; building the round's
problem in such a thread made the 2-layer linen 2d row slower, 2.91 against
3.26 s: docs/planning-time.md.)  Work run while an LP solves sees nothing
queued: its own LPs run in this thread, so one LP runs beside one piece of
work however much is queued (work queued inside that work, as a core's
parts, is its own).

``Background`` is the helper thread: the LP's here, and the optimal
strategy's proof, finished beside the search (``later_proof``), which waits
for its first LP (``solving``) so that only HiGHS runs beside its Python.

Queued work must be a pure function of what exists when it is queued: done
early or when first asked for, its result is the same, so the plan is too.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Ahead(Generic[T]):
    """One piece of work, done once: while an LP runs, or when first asked.

    ``stepped``: ``work()`` is a generator of steps, its result what it
    returns.  While an LP runs it advances step by step and stops when the
    LP ends (the rest runs during the next LP, or when its result is
    asked), so work longer than one LP fills many, and work that turns out
    not to be needed costs no more than the LPs' idle time."""

    def __init__(self, work: Callable[[], T], stepped: bool = False) -> None:
        self._work: Callable[[], Any] | None = work
        self._stepped = stepped
        self._steps: Generator[None, None, T] | None = None
        self._result: T | None = None
        self._error: BaseException | None = None

    @classmethod
    def in_steps(cls, steps: Callable[[], Generator[None, None, T]]) -> Ahead[T]:
        """Work in steps (``stepped``)."""
        return cls(steps, stepped=True)  # type: ignore[arg-type]

    @property
    def done(self) -> bool:
        return self._work is None

    def step(self) -> None:
        """One step of the work (all of it when it is not in steps); an
        error is kept for ``result``: work done early must fail where its
        result is read."""
        work = self._work
        if work is None:
            return
        if not self._stepped:
            self._work = None
            try:
                self._result = work()
            except Exception as e:  # re-raised by ``result``
                self._error = e
            return
        try:
            if self._steps is None:
                self._steps = work()
            next(self._steps)
        except StopIteration as finished:
            self._work = self._steps = None
            self._result = finished.value
        except Exception as e:  # re-raised by ``result``
            self._work = self._steps = None
            self._error = e

    def run(self) -> None:
        """Do the rest of the work now, unless it is done."""
        while self._work is not None:
            self.step()

    def result(self) -> T:
        self.run()
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]


_QUEUE: ContextVar[deque[Ahead] | None] = ContextVar("idle_work", default=None)
# Called as each LP starts (``when_solving``).
_ON_SOLVE: ContextVar[Callable[[], None] | None] = ContextVar(
    "sbpc_on_solve", default=None
)


@contextmanager
def when_solving(callback: Callable[[], None]) -> Iterator[None]:
    """``callback()`` as every LP solved inside the block starts (a thread
    whose Python should not run beside its caller's says when its HiGHS,
    which runs beside anything, begins: ``later_proof``)."""
    token = _ON_SOLVE.set(callback)
    try:
        yield
    finally:
        _ON_SOLVE.reset(token)


@contextmanager
def queued(*work: Ahead) -> Iterator[None]:
    """``work`` may run during any LP solved inside the block (in order)."""
    pending = _QUEUE.get()
    mine = deque(work) if pending is None else deque([*pending, *work])
    token = _QUEUE.set(mine)
    try:
        yield
    finally:
        _QUEUE.reset(token)


def while_solving(solve: Callable[[], T]) -> T:
    """``solve()`` (an LP: HiGHS, which releases the GIL), with the queued
    work not yet done run in this thread, a step at a time, until it
    returns; one step at least.  A step of work not in steps is the whole
    work: one longer than the LP delays the return by its excess, which it
    would have cost when asked for anyway."""
    if (starting := _ON_SOLVE.get()) is not None:
        starting()
    pending = _QUEUE.get()
    while pending and pending[0].done:
        pending.popleft()
    if not pending:
        return solve()
    running = Background(solve, "sbpc-highs")
    # One step at least, even after an LP that ended at once: where the
    # work runs then does not hang on the machine's load (it is needed
    # anyway; a piece run early costs no more than one run when asked).
    first = True
    while pending and (first or running.alive()):
        first = False
        work = pending[0]
        # The work's own LPs run here, not beside yet another helper: one LP
        # beside one piece of work at a time, however many are queued (a
        # core of a hundred parts would otherwise nest a hundred deep).
        token = _QUEUE.set(None)
        try:
            work.step()
        finally:
            _QUEUE.reset(token)
        if work.done:
            pending.popleft()
    return running.result()


class Background(Generic[T]):
    """``work()`` started now in a daemon thread; ``result`` waits for it
    (and re-raises what it raised, in the caller's thread).  ``solving``
    waits until the work starts its first LP (or ends): its Python before
    that runs alone, not beside the caller's, which would only share the
    GIL with it (and wait a switch interval for it at every numpy call)."""

    def __init__(self, work: Callable[[], T], name: str = "sbpc-background") -> None:
        self._outcome: list[T] = []
        self._failure: list[BaseException] = []
        self._solving = threading.Event()

        def run() -> None:
            try:
                with when_solving(self._solving.set):
                    self._outcome.append(work())
            except BaseException as e:  # re-raised by ``result``
                self._failure.append(e)
            finally:
                self._solving.set()

        self._thread = threading.Thread(target=run, name=name, daemon=True)
        self._thread.start()

    def solving(self) -> None:
        self._solving.wait()

    def alive(self) -> bool:
        return self._thread.is_alive()

    def result(self) -> T:
        self._thread.join()
        if self._failure:
            raise self._failure[0]
        return self._outcome[0]
