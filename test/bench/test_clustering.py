"""``bench/clustering.py`` runs both sides and prints one JSON row per run
(no timing asserts: only that both sides ran and planned the same cost)."""

from __future__ import annotations

import json

import clustering  # bench/clustering.py (test/bench/conftest.py)


def test_both_sides_run_and_agree(capsys) -> None:
    from sbpc.propagation.driver import STRATEGIES

    before = STRATEGIES["optimal"]
    assert clustering.main(["--layers", "1"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["cluster"] for r in rows] == [False, True]
    assert all(r["proven"] and r["strategy_s"] > 0 for r in rows)
    assert rows[0]["objective"] == rows[1]["objective"]
    assert "cluster_outcome" in rows[1] and rows[0]["cluster_outcome"] is None
    assert STRATEGIES["optimal"] is before  # the registry is restored
