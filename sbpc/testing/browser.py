"""Headless Chromium for looking at HTML plan reports as a person would.

The browser test of the report reads the DOM Chromium builds (after the
page's script ran: ``dump_dom``); ``examples/plan_picture.py`` takes the
README's screenshot.  Chromium runs with a fresh profile, no sandbox (CI
runs as root), no GPU and nothing that reaches the network.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


class BrowserError(RuntimeError):
    """No Chromium, or Chromium failed."""


def find_chromium() -> str:
    """The Chromium executable (Debian's ``chromium``; ``make test-setup``)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise BrowserError(
        "Chromium not found: install Debian's chromium package "
        "(`make test-setup` does as root)"
    )


def _run(url: str, extra: list[str], timeout: float) -> str:
    with tempfile.TemporaryDirectory(prefix="sbpc-chromium-") as profile:
        cmd = [find_chromium(), *_FLAGS, f"--user-data-dir={profile}", *extra, url]
        try:
            done = subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired as e:
            raise BrowserError(f"Chromium took over {timeout} s on {url}") from e
    if done.returncode != 0:
        raise BrowserError(
            f"Chromium failed ({done.returncode}) on {url}: {done.stderr[-2000:]}"
        )
    return done.stdout


def file_url(path: str | Path, fragment: str = "") -> str:
    url = Path(path).resolve().as_uri()
    return f"{url}#{fragment}" if fragment else url


def dump_dom(path: str | Path, fragment: str = "", timeout: float = 120) -> str:
    """The page's DOM as Chromium serialises it once the page has loaded."""
    return _run(file_url(path, fragment), ["--dump-dom"], timeout)


def screenshot(
    path: str | Path,
    out: str | Path,
    size: tuple[int, int] = (1400, 1000),
    fragment: str = "",
    timeout: float = 120,
) -> None:
    """A PNG of the page's first ``size`` pixels."""
    out = Path(out).resolve()
    _run(
        file_url(path, fragment),
        [
            f"--window-size={size[0]},{size[1]}",
            f"--screenshot={out}",
            "--hide-scrollbars",
        ],
        timeout,
    )
    if not out.exists():
        raise BrowserError(f"Chromium wrote no screenshot of {path}")
