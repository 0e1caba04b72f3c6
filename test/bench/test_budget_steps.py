"""``bench/budget_steps.py --cpu``: the FSDP and remat tests' steps planned
with and without the tool, each compiled (8 simulated CPUs; the H100
columns need JAX's CUDA plugin, which the tests do not have)."""

from __future__ import annotations

import re

import budget_steps  # bench/budget_steps.py (test/bench/conftest.py)
import pytest


def test_each_step_is_planned_under_its_budget_and_compiled(
    capsys: pytest.CaptureFixture[str],
) -> None:
    budget_steps.main(["--cpu"])
    out = capsys.readouterr().out
    rows = {
        (step, variant.split()[0]): cells.split()
        for step, variant, cells in re.findall(
            r"^(fsdp|remat) +(\S+(?: \([\d,]+\))?) +(.*)$", out, re.M
        )
    }
    assert set(rows) == {
        ("fsdp", "replicated"), ("fsdp", "free"), ("fsdp", "per-use"),
        ("remat", "none"), ("remat", "all"), ("remat", "auto"),
    }, out  # fmt: skip
    for step, variant in (("fsdp", "per-use"), ("remat", "auto")):
        planned, budget, *_ = rows[step, variant]
        assert float(planned) <= float(budget), out
    # the per-use plan gathers its split weights; the replicated one does not
    assert int(rows["fsdp", "per-use"][-1]) > 0 == int(rows["fsdp", "replicated"][-1])
    assert rows["fsdp", "per-use"][2] == "-", out  # no H100 column without it
