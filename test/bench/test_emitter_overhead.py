"""``bench/emitter_overhead.py`` runs end to end (no timing asserts)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "emitter_overhead.py"


def _load():
    spec = importlib.util.spec_from_file_location("emitter_overhead", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["emitter_overhead"] = module
    spec.loader.exec_module(module)
    return module


def test_rows_compare_numbers_and_compiled_programs(capsys) -> None:
    status = _load().main(["mlp", "mlp_train", "--repeats", "1", "--steps", "1"])
    out = capsys.readouterr().out
    assert status == 0, out
    rows = [line for line in out.splitlines() if line.startswith("| mlp")]
    assert len(rows) == 2
    # the same instructions as jax.jit's compilation of the same function
    assert all(row.rstrip(" |").endswith("same") for row in rows), rows
