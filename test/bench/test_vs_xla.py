"""``bench/vs_xla.py`` runs end to end and writes its report (no timing asserts)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "vs_xla.py"


def _load():
    spec = importlib.util.spec_from_file_location("vs_xla", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["vs_xla"] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def test_report_has_a_row_per_scheme_and_a_plot(tmp_path):
    out = tmp_path / "benchmarks.md"
    status = _load().main(["--only", "mlp", "--repeats", "2", "--out", str(out)])
    assert status == 0
    text = out.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| mlp |")]
    assert [r.split("|")[2].strip() for r in rows] == ["dp", "tp", "2d"]
    # tensor parallelism of an MLP needs collectives on both sides
    tp = rows[1].split("|")
    assert float(tp[3]) > 0 and float(tp[4]) > 0
    assert re.search(r"compiled by both: 3", text)
    assert (tmp_path / "benchmarks.png").stat().st_size > 1000


def test_a_row_is_slower_only_when_measurably_so_and_the_programs_differ():
    vs_xla = _load()
    side = vs_xla.Side(0.0, 0, {}, 1e-3, 0.0, 0.0)
    row = vs_xla.Row(
        "mlp",
        "dp",
        side,
        side,
        paired=1.04,
        paired_interval=(1.02, 1.06),
        hlo="+1 copy",
    )
    assert row.slower and not row.within_noise
    row.hlo = "same"
    assert not row.slower and row.within_noise  # one program: the gap is noise
    row.hlo, row.paired_interval = "+1 copy", (0.97, 1.06)
    assert not row.slower and row.within_noise
    row.paired, row.paired_interval = 0.99, (0.95, 1.01)
    assert not row.slower and not row.within_noise
    assert vs_xla.brief("+8 add -3 copy +1 all-gather") == (
        "differs: +9 -3 instructions"
    )
    assert vs_xla.brief("same ops, other attributes") == "same ops, other attributes"


def test_between_work_is_refused_with_a_given_cost_model(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _load().main(["--between-work", "--cost-model", "default"])
    assert exit_info.value.code == 2
    assert "--between-work changes the calibration" in capsys.readouterr().err
