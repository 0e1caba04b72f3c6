"""``bench/accelerator_check.py``: ``emit`` then ``run`` of a CPU-sized step
(no timing asserts: the emitted step's numbers and memory are checked)."""

from __future__ import annotations

import re
from pathlib import Path

import accelerator_check  # bench/accelerator_check.py (test/bench/conftest.py)
import pytest


def test_the_emitted_step_runs_from_its_directory_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    accelerator_check.main(
        ["emit", str(tmp_path), "--tiny", "--layers", "1", "--seq", "8"]
    )
    assert (tmp_path / "step.py").read_text().startswith('"""')
    capsys.readouterr()
    accelerator_check.main(["run", str(tmp_path), "--cube", "64"])
    out = capsys.readouterr().out
    # Every product class has a row with a measured rate beside the preset's.
    assert len(re.findall(r" TF +[\d.]+ TF", out)) == 6, out
    loss = re.search(r"loss: emitted ([\d.]+), jax.jit ([\d.]+)", out)
    assert loss is not None and loss[1] == loss[2], out
    worst = re.search(r"worst output difference (\S+) of", out)
    assert worst is not None and float(worst[1]) < 1e-2, out
    ratio = re.search(r"emitted compiled [\d.]+ GiB \(([\d.]+)x\)", out)
    assert ratio is not None and 0.8 < float(ratio[1]) < 1.25, out
