"""sbpc-opt's progress lines: on a terminal a line per pass (and the optimal
strategy's phases) and for the target, nothing with --quiet or when stderr
is not a terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "plan_picture.mlir"
PIPELINE = "sbp-inline,sbp-propagate{strategy=optimal},sbp-lower-boxing"


def _command(*extra: str) -> list[str]:
    """sbpc-opt on the example, output discarded, as a subprocess command."""
    return [
        sys.executable,
        "-m",
        "sbpc.tools.sbpc_opt",
        str(EXAMPLE),
        "-p",
        PIPELINE,
        "-o",
        os.devnull,
        *extra,
    ]


def run_on_terminal(*extra: str) -> tuple[int, str]:
    """Run sbpc-opt with stderr on a pseudo-terminal; returns (status, stderr)."""
    master, slave = pty.openpty()
    try:
        done = subprocess.run(
            _command(*extra),
            stdout=subprocess.DEVNULL,
            stderr=slave,
            timeout=300,
            check=False,
        )
    finally:
        os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the terminal's other end is closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return done.returncode, b"".join(chunks).decode()


def test_progress_on_a_terminal() -> None:
    status, err = run_on_terminal()
    assert status == 0
    # the terminal turns "\n" into "\r\n"; "\r\x1b[K" rewrites a running line
    text = err.replace("\r\n", "\n")
    lines = [line.rsplit("\r\x1b[K", 1)[-1] for line in text.split("\n")[:-1]]
    names = [line.split("  ")[0] for line in lines]
    assert names == [
        "sbpc: sbp-inline",
        "sbpc: optimal: pairwise problem (14 nodes)",
        "sbpc: optimal: shrink (core of 0 nodes)",
        "sbpc: sbp-propagate",
        "sbpc: sbp-lower-boxing",
        "sbpc: -t mlir",
    ], lines
    assert all(line.endswith(" s") for line in lines)


def test_quiet_on_a_terminal() -> None:
    status, err = run_on_terminal("--quiet")
    assert status == 0 and err == ""


def test_nothing_when_stderr_is_not_a_terminal() -> None:
    done = subprocess.run(
        _command(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == ""
