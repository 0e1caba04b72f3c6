"""The README's picture of a plan: sbpc-opt's HTML report of
``plan_picture.mlir``, as headless Chromium shows it (``make plan-picture``).

    python examples/plan_picture.py docs/plan-report.png [--html plan.html]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from sbpc.testing.browser import screenshot

HERE = Path(__file__).resolve().parent
PIPELINE = (
    "sbp-inline,sbp-propagate{{strategy=optimal memory_budget=1048576 "
    'report="{report}" report_format=html}},sbp-lower-boxing'
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("png", type=Path)
    parser.add_argument("--html", type=Path, help="keep the page here too")
    parser.add_argument("--size", default="1200x1500", help="WIDTHxHEIGHT pixels")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        page = args.html or Path(tmp) / "plan.html"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "sbpc.tools.sbpc_opt",
                str(HERE / "plan_picture.mlir"),
                "-p",
                PIPELINE.format(report=page.resolve()),
                "-o",
                str(Path(tmp) / "out.mlir"),
            ],
            check=True,
        )
        screenshot(page, args.png, size=(width, height))
    print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
