"""Every file sbpc writes goes through here: ``-o``, plan reports, ``sbpc-import``.

- A symbolic link is followed: its target gets the output and the link
  stays a link (writing beside the link and renaming would replace it).
- A regular file is written to a temporary file beside it, renamed onto it
  only when everything was written (mlir-opt's ``ToolOutputFile`` keeps its
  output only when told to): a failed run, or a disk that fills up, never
  leaves a partial file, and an old file stays as it was.
- A device or a pipe (``/dev/null``, ``/dev/stdout``) is written directly:
  there is nothing to keep intact.
- Every OS error, at open, write, flush or close (``ENOSPC``, ``EIO``, a
  missing directory), is an ``OutputError`` saying ``cannot write ...``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import tempfile
from typing import TextIO


class OutputError(Exception):
    """A file that could not be written; the message names it and why."""


def _error(what: str, path: str, e: OSError) -> OutputError:
    return OutputError(f"cannot write {what} '{path}': {e.strerror or e}")


class PendingOutput:
    """A text stream into a temporary file beside ``path``'s target;
    ``finish`` renames it onto the target (keep) or deletes it."""

    def __init__(self, path: str, what: str = "output file") -> None:
        self.path = path
        self.what = what
        self.target = os.path.realpath(path)  # a link's target is written
        self._tmp = ""
        try:
            if os.path.isdir(self.target):
                raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
            if os.path.exists(self.target) and not os.path.isfile(self.target):
                self._stream: TextIO = open(self.target, "w", encoding="utf-8")  # noqa: SIM115
                return
            fd, self._tmp = tempfile.mkstemp(
                dir=os.path.dirname(self.target),
                prefix=f".{os.path.basename(self.target)}.",
                suffix=".tmp",
            )
            self._stream = os.fdopen(fd, "w", encoding="utf-8")
        except OSError as e:
            raise _error(what, path, e) from None

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BaseException as e:
            raise self._failed(e) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BaseException as e:
            raise self._failed(e) from None

    def _failed(self, e: BaseException) -> BaseException:
        """Drop what was written; an OS error becomes an ``OutputError``."""
        self.finish(keep=False)
        return _error(self.what, self.path, e) if isinstance(e, OSError) else e

    def finish(self, keep: bool) -> None:
        """Close, then rename onto the target (with the old file's mode, or
        the one a new file would get), or drop the temporary file.  A close
        that fails (a full disk) drops it too and raises ``OutputError``."""
        if self._stream.closed:
            return
        try:
            self._stream.close()
        except OSError as e:
            self._drop()
            if keep:
                raise _error(self.what, self.path, e) from None
            return
        if not self._tmp:
            return
        if not keep:
            self._drop()
            return
        try:
            try:
                mode = os.stat(self.target).st_mode & 0o7777
            except FileNotFoundError:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.chmod(self._tmp, mode)
            os.replace(self._tmp, self.target)
        except OSError as e:
            self._drop()
            raise _error(self.what, self.path, e) from None

    def _drop(self) -> None:
        if self._tmp:
            with contextlib.suppress(OSError):
                os.unlink(self._tmp)


class StandardOutput:
    """``sys.stdout`` (as it is at each call) with the same errors as a file."""

    what = "standard output"

    def write(self, text: str) -> int:
        try:
            return sys.stdout.write(text)
        except OSError as e:
            discard_stdout()
            raise _stdout_error(e) from None

    def flush(self) -> None:
        try:
            sys.stdout.flush()
        except OSError as e:
            discard_stdout()
            raise _stdout_error(e) from None

    def finish(self, keep: bool) -> None:
        self.flush()


def _stdout_error(e: OSError) -> OutputError:
    return OutputError(f"cannot write standard output: {e.strerror or e}")


Output = PendingOutput | StandardOutput


def open_output(path: str | None, what: str = "output file") -> Output:
    """``path`` as a ``PendingOutput``; ``None`` or ``-``: standard output."""
    if path in (None, "-"):
        return StandardOutput()
    return PendingOutput(path, what)


def write_file(path: str | None, text: str, what: str = "output file") -> None:
    """``text`` into ``path`` (``None``/``-``: standard output), all or nothing."""
    out = open_output(path, what)
    out.write(text)
    out.finish(keep=True)


def flush_stdout() -> None:
    """Flush standard output before exiting, as an ``OutputError`` when it
    fails (``discard_stdout`` then)."""
    try:
        sys.stdout.flush()
    except OSError as e:
        discard_stdout()
        raise _stdout_error(e) from None


def discard_stdout() -> None:
    """Send what standard output still holds nowhere, so that the
    interpreter does not fail again at exit with a message of its own."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
