"""``bench/planning_time.py`` runs end to end and reports every phase (no
timing asserts: only that the numbers are there and add up)."""

from __future__ import annotations

import importlib.util
import json
import pstats
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "planning_time.py"


def _load():
    spec = importlib.util.spec_from_file_location("planning_time", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["planning_time"] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def test_one_layer_dp_row_has_both_sides_and_every_phase(tmp_path, capsys):
    bench = _load()
    out = tmp_path / "rows.json"
    assert bench.main(["--layers", "1", "--schemes", "dp", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())
    assert row["layers"] == 1 and row["scheme"] == "dp" and row["ops"] > 100
    assert row["sbpc_s"] > 0 and row["xla_s"] > 0
    assert row["ratio"] == row["sbpc_s"] / row["xla_s"]
    assert row["proven"]
    phases = row["phases"]
    assert set(bench.TOP) <= set(phases)
    # the top-level phases and "other" add up to distribute's own total
    total = sum(phases[name] for name in (*bench.TOP, "other"))
    assert total <= row["sbpc_s"]
    assert phases["sbp-propagate"] >= phases["propagate/strategy optimal"] > 0
    printed = capsys.readouterr().out
    assert "| 1 | dp |" in printed and "sbpc/XLA" in printed
    from models import gpt  # the bench put examples/ on the path

    assert gpt.LAYERS == 2  # the example's depth is restored


def test_profile_writes_one_readable_profile_per_row(tmp_path, capsys):
    bench = _load()
    where = tmp_path / "prof"
    assert (
        bench.main(["--layers", "1", "--schemes", "tp", "--profile", str(where)]) == 0
    )
    capsys.readouterr()
    assert sorted(p.name for p in where.iterdir()) == ["1-tp.prof"]
    stats = pstats.Stats(str(where / "1-tp.prof"))
    # the profile is of sbpc's side: its propagation ran under the profiler
    functions = {name for _, _, name in stats.stats}
    assert "distribute" in functions and "choose" in functions
