"""The cyclic collector is held off inside a compile and restored after it,
as it was: on, off, or through an exception."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import numpy as np
import pytest

import sbpc.jax as sj
from sbpc.collector import collector_paused


@pytest.fixture
def collector_state() -> Iterator[None]:
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_off_inside_and_as_before_after(
    collector_state: None, enabled: bool
) -> None:
    (gc.enable if enabled else gc.disable)()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled() is enabled


def test_an_exception_still_restores_the_collector(collector_state: None) -> None:
    gc.enable()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("inside")
    assert gc.isenabled()


def test_distribute_runs_without_the_collector_and_restores_it(
    collector_state: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    gc.enable()
    seen: list[bool] = []
    annotate = sj.annotate

    def spying_annotate(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return annotate(*args, **kwargs)

    monkeypatch.setattr(sj, "annotate", spying_annotate)
    x = np.ones((8, 4), np.float32)
    dist = sj.distribute(lambda a: a * 2.0, x, mesh=2, strategy="greedy")
    assert seen == [False]
    assert gc.isenabled()
    np.testing.assert_array_equal(np.asarray(dist(x)), x * 2.0)
