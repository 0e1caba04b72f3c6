"""``bench/vs_xla.py`` runs end to end and writes its report (no timing asserts)."""

from __future__ import annotations

import re

import pytest
import vs_xla  # bench/vs_xla.py (test/bench/conftest.py)

from sbpc.boxing.cost_model import CostModel


def test_report_has_a_row_per_scheme_and_a_plot(tmp_path):
    out = tmp_path / "benchmarks.md"
    status = vs_xla.main(["--only", "mlp", "--repeats", "2", "--out", str(out)])
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
    # pooled over three batches, one of which read faster: not measurably
    row.paired, row.paired_interval = 1.03, (1.01, 1.05)
    row.batches = (1.06, 0.99, 1.03)
    assert not row.slower and row.within_noise
    row.batches = (1.06, 1.01, 1.03)
    assert row.slower
    assert vs_xla.brief("+8 add -3 copy +1 all-gather") == (
        "differs: +9 -3 instructions"
    )
    assert vs_xla.brief("same ops, other attributes") == "same ops, other attributes"


def test_a_calibration_is_refused_with_a_given_cost_model(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        vs_xla.main(["--calibration", "chain", "--cost-model", "default"])
    assert exit_info.value.code == 2
    assert "--calibration measures the cost model" in capsys.readouterr().err


def test_the_scenarios_calibration_is_two_scenarios(monkeypatch) -> None:
    """``scenarios`` plans with the chain's collectives and the between-work
    ones as a second scenario; a named kind plans with that kind alone."""
    values = {"bw": 3e8, "lat": 2e-5, "overhead": 3e-5, "flops": 5e9, "hbm": 5e8}
    between = {**values, "lat": 1e-5, "overhead": 7e-5}

    def measured(windows=3, kinds=("chain",)):
        return {k: between if k == "between-work" else values for k in kinds}

    monkeypatch.setattr(vs_xla, "calibrate_kinds", measured)
    model = CostModel.parse(vs_xla.calibrated_cost_model("scenarios"))
    assert model.combine and model.links[0].overhead == pytest.approx(3e-5)
    assert [s.links[0].overhead for s in model.scenarios] == [pytest.approx(7e-5)]
    alone = CostModel.parse(vs_xla.calibrated_cost_model("between-work"))
    assert alone.scenarios == () and alone.links[0].overhead == pytest.approx(7e-5)


def test_more_bytes_are_a_trade_only_when_named_and_measured_faster():
    """A row moving more bytes than XLA is a loss unless the plan's report
    names what the bytes buy (``trade:``) and the step is measurably faster."""
    side = vs_xla.Side(2048.0, 1, {}, 1e-3, 0.0, 0.0)
    xla = vs_xla.Side(1024.0, 1, {}, 1e-3, 0.0, 0.0)
    row = vs_xla.Row("moe_einsum_train", "2d", side, xla, paired_interval=(0.8, 0.9))
    assert row.byte_loss  # no trade named
    row.trade = "moves 2048 B per device where another plan moves 1024 B, for ..."
    assert not row.byte_loss and row.traded
    row.paired_interval = (0.9, 1.01)  # not measurably faster
    assert row.byte_loss and not row.traded
    row.paired_interval, row.batches = (0.8, 0.9), (0.85, 1.02, 0.8)
    assert row.byte_loss and not row.traded  # one batch read slower
    report = "total: 1 ms\ntrade: moves 2 B for 1 us less compute\nstats: x=1"
    assert vs_xla.trade_line(report) == "moves 2 B for 1 us less compute"
    assert vs_xla.trade_line("total: 1 ms") == ""


def test_library_rows_run_a_moe_layer_with_its_experts_split(tmp_path):
    """``--library`` rows: an MoE layer's SGD step, experts pinned split,
    computes jax.jit's numbers under both programs."""
    out = tmp_path / "library.md"
    argv = ["--library", "moe_sequence", "--only", "--schemes", "tp"]
    argv += ["--moe-width", "64", "--repeats", "2", "--cost-model", "default"]
    assert vs_xla.main([*argv, "--out", str(out)]) == 0
    rows = [r for r in out.read_text().splitlines() if r.startswith("| moe_")]
    assert [r.split("|")[1:3] for r in rows] == [[" moe_sequence_train ", " tp "]]
    assert float(rows[0].split("|")[4]) > 0  # XLA moves the experts' tokens
