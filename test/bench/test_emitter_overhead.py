"""``bench/emitter_overhead.py`` runs end to end (no timing asserts)."""

from __future__ import annotations

import emitter_overhead  # bench/emitter_overhead.py (test/bench/conftest.py)


def test_rows_compare_numbers_and_compiled_programs(capsys) -> None:
    status = emitter_overhead.main(
        ["mlp", "mlp_train", "--repeats", "1", "--steps", "1"]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    rows = [line for line in out.splitlines() if line.startswith("| mlp")]
    assert len(rows) == 2
    # the same instructions as jax.jit's compilation of the same function
    assert all(row.rstrip(" |").endswith("same") for row in rows), rows
