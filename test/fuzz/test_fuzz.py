"""The fuzzer in CI: a fixed-seed, time-bounded slice, and the harness's own
classification checked on runs whose outcome is known."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import numpy as np
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
SDY = """module {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
    return %a : tensor<8xf32>
  }
}
"""


def test_a_fixed_seed_slice_has_no_crash_and_no_hang() -> None:
    """At most 150 inputs or 40 s; every one a success or a clean error,
    some emitted programs' numbers checked, some distribute calls made."""
    result = harness.campaign(seed=2026, count=150, time_bound=20, total_seconds=40)
    print(result.summary())
    assert result.runs >= 20
    assert result.counts["diagnostic"] > 0
    assert result.programs_checked > 0
    assert result.api_cases > 0
    assert not result.failures, "\n\n".join(
        f"{name}\nargv: {argv[1:]}\n{stderr}"
        for name, argv, _, stderr in result.failures
    )


# stderr of a run that failed (status 1, not timed out), by its outcome
FAILED_RUNS = {
    "diagnostic": [
        "f.mlir:3:5: error: bad\n  %0 = ...\n      ^",
        "sbpc-opt: error: memory_budget must be ...",
        'f.mlir:4: error: expected error "x" was not produced',
        "// a report\nf.mlir:3:5: error: bad",
        # errors quoting a source line that says "internal error", "Traceback"
        "f.mlir:27:1: error: bad\n// CHECK-NOT: internal error\n^",
        "f.mlir:2:1: error: x\n// Traceback (most recent call last)",
    ],
    "traceback": ["Traceback (most recent call last):\n  File ..."],
    "internal": ["sbpc-opt: internal error: ValueError: x"],
    "unclassified": ["<unknown>:0:0: error: x", ""],
}


@pytest.mark.parametrize(
    ("stderr", "want"),
    [(stderr, want) for want, errs in FAILED_RUNS.items() for stderr in errs],
)
def test_failed_runs_are_classified(stderr, want) -> None:
    assert harness.classify(1, stderr, False) == want


@pytest.mark.parametrize(
    ("status", "stderr", "timed_out", "want"),
    [
        (0, "", False, "success"),
        (1, "f.mlir:3:5: error: bad", True, "hang"),
        (2, "usage: sbpc-opt ...", False, "unclassified"),
    ],
)
def test_other_outcomes_are_classified(status, stderr, timed_out, want) -> None:
    assert harness.classify(status, stderr, timed_out) == want


def test_a_leaked_warning_is_its_own_outcome() -> None:
    assert harness.classify(0, "", False, leaked=1) == "warning"
    assert harness.classify(1, "f.mlir:1:1: error: x", False, leaked=2) == "warning"


def test_warnings_are_caught_and_sorted() -> None:
    """numpy's RuntimeWarnings leak; a library's DeprecationWarning does not."""
    import warnings

    import numpy as np

    def noisy():
        np.float64(1e308) * 10
        warnings.warn("old", DeprecationWarning, stacklevel=1)

    run = harness.bounded(noisy, 20)
    assert len(run.leaked) == 2  # this file is sbpc's: its warnings count
    assert any("RuntimeWarning" in w for w in run.leaked)

    def quiet_library():
        warnings.warn_explicit("old", DeprecationWarning, "/x/.venv/lib/jax.py", 1)

    assert harness.bounded(quiet_library, 20).leaked == []


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
    first = [text for _, text, _ in _take(harness.cases(7, chunks), 200)]
    again = [text for _, text, _ in _take(harness.cases(7, chunks), 200)]
    assert first == again
    # Most draws change their input (some mutators find nothing to change in
    # a chunk): counted over enough draws that a growing corpus does not
    # move the share across the bound.
    originals = {text for _, text in chunks}
    assert sum(text not in originals for text in first) >= 100


def test_every_mutator_changes_what_it_can() -> None:
    rng = random.Random(0)
    text = OK + SDY + "// expected-error @below {{bad}}\n"
    for mutator in set(harness.MUTATORS):
        changed = any(mutator(text, rng) != text for _ in range(20))
        assert changed, mutator.__name__


def _take(iterator, n):
    return [x for _, x in zip(range(n), iterator, strict=False)]


def test_the_output_contract_is_checked(tmp_path) -> None:
    """A run onto a link must write the link's target and keep the link;
    a full disk must fail (``fuzz_argv.Outputs``)."""
    import os

    from fuzz_argv import OLD, Outputs

    (tmp_path / "input.mlir").write_text(OK)
    outputs = Outputs(str(tmp_path))
    inp = str(tmp_path / "input.mlir")
    for argv, target in (
        ([inp, "-o", str(tmp_path / "link.txt")], "target.txt"),
        (
            [inp, "-p", f'sbp-propagate{{report="{tmp_path}/report-link.txt"}}'],
            "report-target.txt",
        ),
    ):
        outputs.prepare()
        run = harness.run_driver(argv, 20)
        assert run.outcome == "success", run.stderr
        assert outputs.broken(argv, 0) is None
        assert (tmp_path / target).read_text() != OLD
    assert os.path.islink(tmp_path / "link.txt")
    outputs.prepare()
    (tmp_path / "link.txt").unlink()
    (tmp_path / "link.txt").write_text("a file where the link was")
    assert "no longer a symbolic link" in outputs.broken([inp], 0)
    outputs.prepare()
    assert outputs.broken([inp, "-o", "/dev/full"], 0) == "-o /dev/full succeeded"
    run = harness.run_driver([inp, "-o", "/dev/full"], 20)
    assert run.outcome == "diagnostic" and "cannot write" in run.stderr


def test_emitted_programs_are_checked_against_their_reference(tmp_path) -> None:
    from fuzz_numbers import check_programs

    (tmp_path / "input.mlir").write_text(OK)
    argv = [str(tmp_path / "input.mlir"), "-p", "sbp-propagate,sbp-lower-boxing"]
    run = harness.run_driver([*argv, "-t", "jax", "--split-input-file"], 20)
    assert run.outcome == "success"
    assert check_programs(run.stdout).checked == 1
    wrong = run.stdout.replace("return (v1,)", "return (v1 + 1,)", 1)
    assert wrong != run.stdout
    assert check_programs(wrong).wrong


def test_a_program_whose_input_cannot_run_here_is_skipped_not_wrong(tmp_path) -> None:
    """An emitted program that fails where its unsharded reference fails too
    is an input this backend cannot run (a dot algorithm XLA's CPU lacks:
    the fuzzer's seed 777 counted it wrong); one that fails alone is wrong."""
    from fuzz_numbers import check_programs

    algorithm = Path(__file__).parents[1] / "passes/jax-target/dot-algorithm.mlir"
    argv = [str(algorithm), "-p", "sbp-propagate,sbp-lower-boxing", "-t", "jax"]
    run = harness.run_driver(argv, 60)
    assert run.outcome == "success"
    found = check_programs(run.stdout)
    assert not found.wrong and (found.checked, found.skipped) == (0, 1)

    (tmp_path / "input.mlir").write_text(OK)
    argv = [str(tmp_path / "input.mlir"), "-p", "sbp-propagate,sbp-lower-boxing"]
    run = harness.run_driver([*argv, "-t", "jax", "--split-input-file"], 20)
    failing = run.stdout.replace("return (v1,)", "return (v1.no_such_field,)", 1)
    assert failing != run.stdout
    found = check_programs(failing)
    assert found.skipped == 0 and "fails when run" in found.wrong[0]


def test_api_cases_are_replayable_and_classified() -> None:
    from fuzz_api import random_case, run_case

    first = [random_case(random.Random(n))[0].describe() for n in range(5)]
    again = [random_case(random.Random(n))[0].describe() for n in range(5)]
    assert first == again
    from fuzz_api import ApiCase

    x, w = np.ones((8, 16), np.float32), np.ones((16, 8), np.float32)
    case = ApiCase("matmul", {"mesh": 8, "quiet": True, "donate_argnums": 1.5}, [])
    assert run_case(case, lambda x, w: x @ w, [x, w])[0] == "diagnostic"
    case.kwargs = {"mesh": 2, "quiet": True, "in_layouts": "[S(0)]"}
    assert run_case(case, lambda x, w: x @ w, [x, w]) == ("success", "")
    from fuzz_api import _differs

    assert _differs((x,), (x,)) is None
    assert _differs((np.full(2, -np.inf),), (np.full(2, -np.inf),)) is None
    assert "max error" in _differs((x + 1,), (x,))
    assert "structure" in _differs((x, x), (x,))
