"""Output files written only on success: a temporary file, renamed at the end.

A failed run must leave an existing ``-o`` file untouched (mlir-opt's
``ToolOutputFile`` keeps its output only when told to); writing in place
would truncate it first.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import TextIO


class PendingOutput:
    """A text stream into a temporary file beside ``path``; ``finish`` renames
    it onto ``path`` (keep) or deletes it."""

    def __init__(self, path: str) -> None:
        if os.path.isdir(path):
            raise IsADirectoryError(21, "Is a directory", path)
        self.path = path
        self._tmp = ""
        if os.path.exists(path) and not os.path.isfile(path):
            # /dev/null, /dev/stdout, a pipe: nothing to keep intact
            self._stream: TextIO = open(path, "w", encoding="utf-8")  # noqa: SIM115
            return
        directory = os.path.dirname(os.path.abspath(path))
        fd, self._tmp = tempfile.mkstemp(
            dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp"
        )
        self._stream = os.fdopen(fd, "w", encoding="utf-8")

    def write(self, text: str) -> int:
        return self._stream.write(text)

    def flush(self) -> None:
        self._stream.flush()

    def finish(self, keep: bool) -> None:
        """Rename onto the target (with the mode a new file would get, or the
        old file's), or drop the temporary file."""
        self._stream.close()
        if not self._tmp:
            return
        if not keep:
            with contextlib.suppress(OSError):
                os.unlink(self._tmp)
            return
        try:
            mode = os.stat(self.path).st_mode & 0o7777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(self._tmp, mode)
        os.replace(self._tmp, self.path)
