"""``bench/memory_model.py``: its rows, and a library decoder's planned peak
against its compiled program's (no timing asserts)."""

from __future__ import annotations

import dataclasses

import memory_model
import pytest
from library_models import MODELS  # bench/ (test/bench/conftest.py)
from memory_model import Footprint, main, measure


def test_a_row_compares_the_plan_the_program_and_xla(capsys) -> None:
    assert main(["--only", "mlp", "--schemes", "dp"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("mlp "))
    planned, compiled, *parts, xla, error, against = map(float, row.split()[2:])
    args, outs, alias, temps = parts
    assert compiled == pytest.approx(args + outs - alias + temps, abs=2e-3)
    assert error == pytest.approx(planned / compiled, abs=0.01)
    assert against == pytest.approx(compiled / xla, abs=0.01)
    assert "within +-10%" in out


def test_a_row_outside_the_tolerance_fails_the_run(monkeypatch, capsys) -> None:
    """A plan 20% over its compiled footprint fails a 10% tolerance (the
    model is exact on some rows, so the error is made, not found)."""

    def over(*args, **kwargs) -> memory_model.Row:
        row = measure(*args, **kwargs)
        return dataclasses.replace(row, planned=row.compiled.total * 1.2)

    monkeypatch.setattr(memory_model, "measure", over)
    assert main(["--only", "mlp", "--schemes", "tp"]) == 1
    assert "outside +-10%: mlp/tp (1.20)" in capsys.readouterr().out


def test_a_flax_decoder_is_planned_as_it_compiles() -> None:
    """The flax.linen decoder's Adam step (one layer, batch split in two and
    the parameters over four): the model within 10% of the compiled
    program's footprint (docs/memory.md has every library row)."""
    row = measure("flax_linen", MODELS["flax_linen"](1), "2d")
    assert isinstance(row.compiled, Footprint) and row.compiled.total > 0
    assert row.error == pytest.approx(1.0, abs=0.10)
