"""``bench/memory_price.py``: one row, its three plans side by side."""

from __future__ import annotations

import memory_price  # bench/memory_price.py (test/bench/conftest.py)
import pytest


def test_a_row_prices_the_crossed_plan_at_most_the_uncrossed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "sys.argv", ["memory_price", "--layers", "2", "--shares", "0.3"]
    )
    memory_price.main()
    header, row = capsys.readouterr().out.strip().splitlines()
    assert header.split()[:3] == ["layers", "share", "exact"]
    layers, share, _, price, _, crossed, _ = row.split()[:7]
    assert (layers, share) == ("2", "0.3")
    assert 0.9 < float(crossed) <= float(price) < 1.5
    assert "free nodes" in row
