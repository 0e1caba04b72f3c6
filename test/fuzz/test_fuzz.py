"""The fuzzer in CI: a fixed-seed, time-bounded slice, and the harness's own
classification checked on runs whose outcome is known."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest


def _load_harness():
    path = Path(__file__).with_name("harness.py")
    spec = importlib.util.spec_from_file_location("sbpc_test_fuzz_harness", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


harness = _load_harness()

OK = """module attributes {sbp.placement = #sbp.placement<cpu, [0, 1]>} {
  func.func @main(%a: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> tensor<4x8xf32> {
    %0 = stablehlo.add %a, %a : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
"""


def test_a_fixed_seed_slice_has_no_crash_and_no_hang() -> None:
    """At most 150 inputs or 30 s; every one a success or a clean error."""
    result = harness.campaign(seed=2026, count=150, time_bound=20, total_seconds=30)
    print(result.summary())
    assert result.runs >= 20
    assert result.counts["diagnostic"] > 0
    assert not result.failures, "\n\n".join(
        f"{name}\nargv: {argv[1:]}\n{stderr}"
        for name, argv, _, stderr in result.failures
    )


@pytest.mark.parametrize(
    ("status", "stderr", "timed_out", "want"),
    [
        (0, "", False, "success"),
        (1, "f.mlir:3:5: error: bad\n  %0 = ...\n      ^", False, "diagnostic"),
        (1, "sbpc-opt: error: memory_budget must be ...", False, "diagnostic"),
        (
            1,
            'f.mlir:4: error: expected error "x" was not produced',
            False,
            "diagnostic",
        ),
        (1, "// a report\nf.mlir:3:5: error: bad", False, "diagnostic"),
        (1, "Traceback (most recent call last):\n  File ...", False, "traceback"),
        (1, "sbpc-opt: internal error: ValueError: x", False, "internal"),
        (1, "f.mlir:3:5: error: bad", True, "hang"),
        (2, "usage: sbpc-opt ...", False, "unclassified"),
        (1, "<unknown>:0:0: error: x", False, "unclassified"),
        (1, "", False, "unclassified"),
    ],
)
def test_outcomes_are_classified(status, stderr, timed_out, want) -> None:
    assert harness.classify(status, stderr, timed_out) == want


def test_runs_in_process_are_classified(tmp_path) -> None:
    good = tmp_path / "ok.mlir"
    good.write_text(OK)
    assert harness.run_driver([str(good)], 20).outcome == "success"
    bad = tmp_path / "bad.mlir"
    bad.write_text(OK.replace("%a, %a", "%a, %x"))
    assert harness.run_driver([str(bad)], 20).outcome == "diagnostic"
    opts = [str(good), "-p", "sbp-propagate{memory_budget=-5}"]
    assert harness.run_driver(opts, 20).outcome == "diagnostic"


def test_a_slow_run_is_a_hang(tmp_path, monkeypatch) -> None:
    """A run that blocks without computing meets the wall-clock guard."""
    import time

    import sbpc.tools.sbpc_opt as sbpc_opt

    monkeypatch.setattr(sbpc_opt.SbpcOptMain, "run_chunks", lambda self: time.sleep(5))
    good = tmp_path / "ok.mlir"
    good.write_text(OK)
    assert harness.run_driver([str(good)], 0.2).outcome == "hang"


def test_a_busy_run_is_a_hang(tmp_path, monkeypatch) -> None:
    """A loop that computes forever is stopped by the CPU-time bound."""
    import sbpc.tools.sbpc_opt as sbpc_opt

    def spin(self):
        while True:
            pass

    monkeypatch.setattr(sbpc_opt.SbpcOptMain, "run_chunks", spin)
    good = tmp_path / "ok.mlir"
    good.write_text(OK)
    # the wall-clock guard far away: only the CPU bound can end this run
    assert harness.run_driver([str(good)], 0.3, wall_bound=600).outcome == "hang"


def test_mutations_are_replayable_and_change_the_input() -> None:
    chunks = harness.corpus()
    assert len(chunks) > 100  # examples and lit inputs
    first = [text for _, text, _ in _take(harness.cases(7, chunks), 30)]
    again = [text for _, text, _ in _take(harness.cases(7, chunks), 30)]
    assert first == again
    originals = {text for _, text in chunks}
    assert sum(text not in originals for text in first) >= 20


def test_every_mutator_changes_what_it_can() -> None:
    rng = random.Random(0)
    for mutator in set(harness.MUTATORS):
        changed = any(mutator(OK, rng) != OK for _ in range(20))
        assert changed, mutator.__name__


def _take(iterator, n):
    return [x for _, x in zip(range(n), iterator, strict=False)]
