"""Progress of long work on a terminal: a line per phase with its elapsed
time, and the ILP solver's running gap while it searches.

Drivers decide whether anyone is watching (``for_terminal``: standard error
is a terminal and the user did not ask for quiet) and install a
``Progress`` for the duration of a run (``reporting``); the code doing the
work asks ``current()`` and reports phases to it.  The default is silent,
so library use, tests and pipes print nothing.

Shape of the output (the ``...`` line is rewritten in place while it runs)::

    sbpc: sbp-inline                              0.01 s
    sbpc: optimal: pairwise problem (54 nodes)    0.58 s
    sbpc: optimal: ILP of 1204 columns ... 3.1 s, gap 2.41%, 310 nodes
    sbpc: optimal: ILP (optimal, gap 0%)           4.02 s
    sbpc: sbp-propagate                            4.75 s
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TextIO

# Seconds between two rewrites of a running line (the solver calls back far
# more often).
UPDATE_EVERY = 0.5


class Progress:
    """Reports phases to ``stream`` when ``enabled``; otherwise does nothing."""

    def __init__(self, stream: TextIO | None = None, enabled: bool = False) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self._live = False  # a running line is on screen, without its newline
        self._last_update = -math.inf
        self._lock = threading.Lock()  # the ticker thread writes too
        self._ticker: tuple[threading.Event, threading.Thread] | None = None

    @staticmethod
    def for_terminal(quiet: bool = False, stream: TextIO | None = None) -> Progress:
        """On when ``stream`` (standard error) is a terminal and not ``quiet``."""
        stream = stream if stream is not None else sys.stderr
        tty = getattr(stream, "isatty", None)
        return Progress(stream, enabled=not quiet and bool(tty and tty()))

    def _write(self, text: str) -> None:
        with self._lock:
            self.stream.write(text)
            self.stream.flush()

    def update(self, text: str, force: bool = False) -> None:
        """Rewrite the running line (at most every ``UPDATE_EVERY`` s)."""
        if not self.enabled:
            return
        now = time.perf_counter()
        if not force and now - self._last_update < UPDATE_EVERY:
            return
        self._last_update = now
        self._write(f"\r\x1b[Ksbpc: {text}")
        self._live = True

    def done(self, name: str, seconds: float, detail: str = "") -> None:
        """One finished phase: its line, replacing any running line."""
        if not self.enabled:
            return
        self._stop_ticker()
        what = f"{name} ({detail})" if detail else name
        prefix = "\r\x1b[K" if self._live else ""
        self._write(f"{prefix}sbpc: {what:<44} {seconds:8.2f} s\n")
        self._live = False
        self._last_update = -math.inf

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time the body; show ``name ...`` while it runs, then its line (no
        line when the body fails)."""
        started = time.perf_counter()
        self.update(f"{name} ...", force=True)
        try:
            yield
        except BaseException:
            self.clear()  # the error says what happened; no "done" line
            raise
        self.done(name, time.perf_counter() - started)

    def clear(self) -> None:
        """Erase the running line, if one is shown."""
        self._stop_ticker()
        if self.enabled and self._live:
            self._write("\r\x1b[K")
            self._live = False

    def ticking(self, line: Callable[[], str]) -> None:
        """Rewrite the running line with ``line()`` every ``UPDATE_EVERY``
        seconds, from a thread, until the next ``done`` or ``clear`` (for
        work in native code that holds no Python loop, such as HiGHS)."""
        if not self.enabled:
            return
        self._stop_ticker()
        stop = threading.Event()

        def run() -> None:
            while not stop.wait(UPDATE_EVERY):
                self.update(line(), force=True)

        thread = threading.Thread(target=run, name="sbpc-progress", daemon=True)
        self._ticker = (stop, thread)
        thread.start()

    def _stop_ticker(self) -> None:
        if self._ticker is not None:
            stop, thread = self._ticker
            self._ticker = None
            stop.set()
            thread.join()

    def watch_highs(self, highs: Any, what: str) -> None:
        """Show a MIP solve's elapsed time, relative gap and branch-and-bound
        nodes on the running line while ``highs`` runs: HiGHS's interrupt
        callback records them, a ticker shows them (the callback comes only
        between search nodes, seconds apart on a large root)."""
        if not self.enabled:
            return
        started = time.perf_counter()
        seen = {"gap": math.inf, "nodes": 0}

        def on_event(event: Any) -> None:
            seen["gap"] = float(event.data_out.mip_gap)
            seen["nodes"] = int(event.data_out.mip_node_count)

        highs.cbMipInterrupt.subscribe(on_event)

        def line() -> str:
            text = f"{what} ... {time.perf_counter() - started:.1f} s"
            if math.isfinite(seen["gap"]) and seen["gap"] < 1e30:
                text += f", gap {100 * seen['gap']:.2f}%"
            if seen["nodes"]:
                text += f", {seen['nodes']} nodes"
            return text

        self.ticking(line)


_SILENT = Progress(enabled=False)
_current: ContextVar[Progress] = ContextVar("sbpc_progress", default=_SILENT)


def current() -> Progress:
    """The progress reporter of the running driver (silent by default)."""
    return _current.get()


@contextmanager
def reporting(progress: Progress) -> Iterator[Progress]:
    """Make ``progress`` the current reporter inside the ``with`` block."""
    token = _current.set(progress)
    try:
        yield progress
    finally:
        _current.reset(token)
