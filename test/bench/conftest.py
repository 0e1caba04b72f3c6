"""The scripts under ``bench/`` importable by name in these tests (``import
calibrate``), as they import each other (``clustering`` imports
``planning_time``)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))
