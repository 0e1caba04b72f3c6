"""Located diagnostics: errors, warnings and remarks attached to IR operations.

Passes raise ``LocatedError`` (an xDSL ``DiagnosticException``) naming the op
at fault, and report warnings through ``emit``; ``sbpc-opt`` turns both into
``file:line:col: <severity>: message`` lines, or checks them against
``// expected-*`` comments under ``--verify-diagnostics``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException

Severity = Literal["error", "warning", "remark", "note"]


class LocatedError(DiagnosticException):
    """An error about ``op`` (None: about the input as a whole)."""

    def __init__(self, op: Operation | None, message: str) -> None:
        super().__init__(message)
        self.op = op
        self.message = message


@dataclass(frozen=True)
class Diagnostic:
    severity: Severity
    message: str
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.severity}: {self.message}"


def location_of(op: Operation | None) -> tuple[str, int, int]:
    """(file, line, column) of ``op``, walking up to the nearest located parent."""
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return loc.filename.data, loc.line.data, loc.column.data
        op = op.parent_op()
    return "<unknown>", 0, 0


def make_diagnostic(
    severity: Severity, op: Operation | None, message: str
) -> Diagnostic:
    file, line, col = location_of(op)
    return Diagnostic(severity, message, file, line, col)


def _print_to_stderr(diag: Diagnostic) -> None:
    print(diag, file=sys.stderr)


_sink: Callable[[Diagnostic], None] = _print_to_stderr


def emit(severity: Severity, op: Operation | None, message: str) -> None:
    """Report a non-fatal diagnostic (warning, remark, note) about ``op``."""
    _sink(make_diagnostic(severity, op, message))


def set_sink(sink: Callable[[Diagnostic], None] | None) -> Callable[[Diagnostic], None]:
    """Route emitted diagnostics to ``sink`` (None: stderr); returns the old sink."""
    global _sink
    old = _sink
    _sink = sink or _print_to_stderr
    return old
