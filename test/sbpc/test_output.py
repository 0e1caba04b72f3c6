"""Every output file sbpc writes (``sbpc/output.py``): replaced only on success,
links followed, a full disk an ``OutputError``."""

from __future__ import annotations

import errno
import os
import stat

import pytest

from sbpc.output import OutputError, PendingOutput, write_file


def test_kept_output_replaces_the_file_with_its_mode(tmp_path) -> None:
    target = tmp_path / "out.mlir"
    target.write_text("old")
    os.chmod(target, 0o640)
    out = PendingOutput(str(target))
    out.write("new")
    assert target.read_text() == "old"  # untouched until finished
    out.finish(keep=True)
    assert target.read_text() == "new"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert os.listdir(tmp_path) == ["out.mlir"]


def test_dropped_output_leaves_the_old_file(tmp_path) -> None:
    target = tmp_path / "out.mlir"
    target.write_text("old")
    out = PendingOutput(str(target))
    out.write("half a module")
    out.finish(keep=False)
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.mlir"]


def test_a_device_is_written_directly() -> None:
    out = PendingOutput(os.devnull)
    out.write("x")
    out.finish(keep=True)
    assert os.path.exists(os.devnull)


def test_a_link_is_followed_and_stays_a_link(tmp_path) -> None:
    target = tmp_path / "target.mlir"
    target.write_text("old")
    link = tmp_path / "link.mlir"
    link.symlink_to("target.mlir")
    write_file(str(link), "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert sorted(os.listdir(tmp_path)) == ["link.mlir", "target.mlir"]


def test_a_dangling_link_creates_its_target(tmp_path) -> None:
    (tmp_path / "link.mlir").symlink_to("made.mlir")
    write_file(str(tmp_path / "link.mlir"), "new")
    assert (tmp_path / "made.mlir").read_text() == "new"


def test_a_full_device_fails_at_close() -> None:
    with pytest.raises(OutputError, match="cannot write report '/dev/full': No space"):
        write_file("/dev/full", "x", "report")


@pytest.mark.parametrize("when", ["write", "close"])
def test_a_full_disk_leaves_no_partial_file(tmp_path, monkeypatch, when) -> None:
    """ENOSPC or EIO while writing or closing: OutputError, the old file
    as it was and no temporary file left."""
    target = tmp_path / "out.mlir"
    target.write_text("old")
    out = PendingOutput(str(target))
    stream = out._stream

    def fail(*args):
        raise OSError(errno.ENOSPC if when == "write" else errno.EIO, "disk trouble")

    if when == "write":
        monkeypatch.setattr(out, "_stream", _Failing(stream, write=fail))
        with pytest.raises(
            OutputError, match=r"cannot write output file .*disk trouble"
        ):
            out.write("new")
    else:
        out.write("new")
        monkeypatch.setattr(out, "_stream", _Failing(stream, close=fail))
        with pytest.raises(OutputError, match="disk trouble"):
            out.finish(keep=True)
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.mlir"]


class _Failing:
    """A stream whose ``write`` or ``close`` fails (after really closing)."""

    def __init__(self, stream, write=None, close=None) -> None:
        self._stream, self._write, self._close = stream, write, close

    @property
    def closed(self) -> bool:
        return self._stream.closed

    def write(self, text):
        return (self._write or self._stream.write)(text)

    def flush(self) -> None:
        self._stream.flush()

    def close(self) -> None:
        self._stream.close()
        if self._close:
            self._close()
