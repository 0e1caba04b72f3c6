"""``-o`` files are replaced only on success (``tools/output.py``)."""

from __future__ import annotations

import os
import stat

from sbpc.tools.output import PendingOutput


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
