"""``bench/plan_scale.py``: a row per mesh, planned without its devices (no
timing asserts)."""

from __future__ import annotations

import plan_scale  # bench/plan_scale.py (test/bench/conftest.py)
import pytest


@pytest.mark.parametrize(("mesh", "devices"), [("64", 64), ("4096x1", 4096)])
def test_a_row_plans_a_mesh_this_machine_does_not_have(mesh: str, devices: int):
    r = plan_scale.row(mesh, "h100-sxm", "greedy", 1)
    assert r["devices"] == devices
    assert r["first"] == r["total"] > 0  # one run: the first is the best
    assert r["mlir_chars"] > 0 and r["source_chars"] > 0
    assert r["peak_mib"] > 0 and r["step_us"] > 0
