"""``bench/planning_time.py`` runs end to end and reports every phase (no
timing asserts: only that the numbers are there and add up)."""

from __future__ import annotations

import json
import pstats

import planning_time as bench  # bench/planning_time.py (test/bench/conftest.py)


def test_one_layer_dp_row_has_both_sides_and_every_phase(tmp_path, capsys):
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
    assert "| gpt | 1 | dp |" in printed and "sbpc/XLA" in printed
    assert "sbpc/XLA over 1 rows: median" in printed
    from models import gpt  # the bench put examples/ on the path

    assert gpt.LAYERS == 2  # the example's depth is restored


def test_profile_writes_one_readable_profile_per_row(tmp_path, capsys):
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


def _small_gpt(monkeypatch) -> None:
    """A small GPT: the structure, not the size, is tested (and XLA compiles it faster)."""
    from models import gpt  # the bench put examples/ on the path

    for name, value in {"VOCAB": 32, "SEQ": 8, "MODEL": 16, "HIDDEN": 32}.items():
        monkeypatch.setattr(gpt, name, value)


def test_scanned_tp_row_is_planned_and_proven(tmp_path, capsys, monkeypatch):
    """``--scanned``: the lax.scan'd step (blocks in a while body, their
    stacked weights split one dim further in) planned by sbpc, proven, and
    compiled by XLA on the same layouts.  (Its numbers: ``--check``, run
    for docs/performance.md; not here, where it would double the time.)"""
    _small_gpt(monkeypatch)
    out = tmp_path / "rows.json"
    argv = ["--scanned", "--layers", "2", "--schemes", "tp", "--repeats", "1"]
    assert bench.main([*argv, "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())
    assert row["scanned"] and row["layers"] == 2 and row["scheme"] == "tp"
    assert row["proven"] and row["error"] is None
    assert row["ops"] > 100 and row["sbpc_s"] > 0 and row["xla_s"] > 0
    printed = capsys.readouterr().out
    assert "blocks run by lax.scan" in printed
    line = next(x for x in printed.splitlines() if x.startswith("| gpt | 2 | tp |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert float(cells[6]) == round(row["ratio"], 2) and cells[7] == "proven"


def test_a_row_sbpc_cannot_plan_prints_its_diagnostic(tmp_path, capsys, monkeypatch):
    _small_gpt(monkeypatch)

    def refuse(*_args):
        raise bench.sbpc.jax.SbpcError("line 7: stablehlo.while: no plan")

    monkeypatch.setattr(bench, "distribute", refuse)
    out = tmp_path / "rows.json"
    argv = ["--scanned", "--layers", "2", "--schemes", "2d", "--json", str(out)]
    assert bench.main(argv) == 1
    assert (
        "2 layers 2d: sbpc: line 7: stablehlo.while: no plan" in capsys.readouterr().out
    )
    (failed,) = json.loads(out.read_text())
    assert failed["diagnostic"] == "line 7: stablehlo.while: no plan"


def test_a_library_model_is_the_example_asked_for(capsys):
    import pytest

    example = bench.example_for("equinox", 1)
    *_, tokens, targets = example.args
    assert example.in_roles == (None, None, "data", "data")  # parameters free
    assert tokens.shape == targets.shape and tokens.dtype.kind == "i"
    with pytest.raises(SystemExit):
        bench.main(["--model", "flax_nnx", "--scanned"])
    assert "--scanned is the GPT example's" in capsys.readouterr().err


def test_the_summary_is_the_median_and_worst_ratio_over_every_row():
    """Issue 37's measure over several models' rows: the median (of an even
    count, the mean of the middle two) and the worst sbpc/XLA, and the
    seconds of each side summed."""

    def row(model: str, sbpc_s: float) -> bench.Row:
        return bench.Row(model=model, layers=2, scheme="dp", ops=1, sbpc_s=sbpc_s,
                         xla_s=2.0, proven=True, gap=0.0, core_nodes=0)  # fmt: skip

    rows = [row("flax_linen", 1.0), row("equinox", 3.0), row("flax_nnx", 2.2)]
    assert bench.summary(rows) == (
        "sbpc/XLA over 3 rows: median 1.10, worst 1.50 "
        "(summed: sbpc 6.20 s, XLA 6.00 s)"
    )
    rows.append(row("gpt", 1.6))
    assert bench.summary(rows).startswith(
        "sbpc/XLA over 4 rows: median 0.95, worst 1.50 (summed: sbpc 7.80 s,"
    )
