"""Wall-clock time per phase, nested, as ``mlir-opt -mlir-timing`` reports it.

A ``Timer`` records a tree of named phases (parse, each pass, and inside a
pass its own steps: graph, solve, write back, ...).  Drivers make one and
make it *active* (``Timer.activate``); code anywhere below them opens a
phase with the module-level ``phase(name)`` without being handed the timer,
and pays nothing when no timer is active.  Plain Python, no IR: the core,
the passes and the drivers all use it, and reports (text, JSON, HTML) read
``Timer.rows()`` or ``Timer.to_dict()``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Phase", "Timer", "active_timer", "phase"]


@dataclass
class Phase:
    """One named phase: its total seconds (over every time it was entered),
    how often it ran, and its sub-phases in order of first entry."""

    name: str
    seconds: float = 0.0
    count: int = 0
    children: dict[str, Phase] = field(default_factory=dict)
    opened: float | None = None  # when the phase was entered, while it runs

    def elapsed(self) -> float:
        """Seconds so far: a phase still running counts up to now (a report
        written from inside it, such as the plan page, shows that much)."""
        running = 0.0 if self.opened is None else time.perf_counter() - self.opened
        return self.seconds + running

    def child(self, name: str) -> Phase:
        found = self.children.get(name)
        if found is None:
            found = self.children[name] = Phase(name)
        return found

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "seconds": self.seconds,
            "count": self.count,
            "children": [c.to_dict() for c in self.children.values()],
        }


_ACTIVE: ContextVar[Timer | None] = ContextVar("sbpc_timer", default=None)


class Timer:
    """A tree of timed phases; the root's time runs from creation to ``stop``
    (or to the last report)."""

    def __init__(self) -> None:
        self.root = Phase("Total")
        self._stack: list[Phase] = [self.root]
        self._started = time.perf_counter()
        self._stopped: float | None = None

    @contextmanager
    def phase(self, name: str) -> Iterator[Phase]:
        """Time the block as sub-phase ``name`` of the phase open now."""
        node = self._stack[-1].child(name)
        self._stack.append(node)
        started = node.opened = time.perf_counter()
        try:
            yield node
        finally:
            node.seconds += time.perf_counter() - started
            node.count += 1
            node.opened = None
            self._stack.pop()

    @contextmanager
    def activate(self) -> Iterator[Timer]:
        """Make this the timer ``phase()`` reports to inside the block."""
        token = _ACTIVE.set(self)
        try:
            yield self
        finally:
            _ACTIVE.reset(token)

    def stop(self) -> None:
        self._stopped = time.perf_counter()
        self.root.seconds = self._stopped - self._started
        self.root.count = 1

    @property
    def total(self) -> float:
        if self._stopped is None:
            return time.perf_counter() - self._started
        return self.root.seconds

    def rows(self) -> list[tuple[int, str, float]]:
        """(depth, name, seconds) in report order: each phase, then its
        sub-phases one level deeper."""
        out: list[tuple[int, str, float]] = []

        def walk(node: Phase, depth: int) -> None:
            for c in node.children.values():
                out.append((depth, c.name, c.elapsed()))
                walk(c, depth + 1)

        walk(self.root, 0)
        return out

    def seconds(self, *path: str) -> float:
        """Seconds of the phase at ``path`` (names from the top), 0 if absent."""
        node = self.root
        for name in path:
            found = node.children.get(name)
            if found is None:
                return 0.0
            node = found
        return node.seconds

    def to_dict(self) -> dict[str, Any]:
        d = self.root.to_dict()
        d["seconds"] = self.total
        return d

    def format(self, title: str = "Execution time report") -> str:
        """The table ``mlir-opt -mlir-timing`` prints: wall time and share of
        the total per phase, sub-phases indented under their parent."""
        total = self.total
        rule = "===" + "-" * 73 + "==="
        lines = [
            rule,
            f"{'... ' + title + ' ...':^79}".rstrip(),
            rule,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for depth, name, seconds in self.rows():
            share = 100.0 * seconds / total if total > 0 else 0.0
            lines.append(f"  {seconds:8.4f} ({share:5.1f}%)  {'  ' * depth}{name}")
        lines.append(f"  {total:8.4f} (100.0%)  Total")
        return "\n".join(lines)


def active_timer() -> Timer | None:
    """The timer made active by the driver, if any."""
    return _ACTIVE.get()


@contextmanager
def phase(name: str) -> Iterator[Phase | None]:
    """Time the block as ``name`` under the active timer (nothing without one)."""
    timer = _ACTIVE.get()
    if timer is None:
        yield None
        return
    with timer.phase(name) as node:
        yield node
