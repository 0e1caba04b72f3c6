"""Shared fixtures for the pass tests: loading emitted JAX modules and the lit examples."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

LIT = Path(__file__).resolve().parent

# FileCheck examples whose boxed programs are also checked numerically: (file, passes).
LIT_EXAMPLES = [
    (
        "sbp-propagate/mindspore-ffn.mlir",
        "sbp-propagate{strategy=bfs},sbp-lower-boxing",
    ),
    ("sbp-lower-boxing/cross-placement.mlir", "sbp-propagate,sbp-lower-boxing"),
    ("sbp-lower-boxing/two-d.mlir", "sbp-lower-boxing"),
    ("sbp-lower-boxing/table.mlir", "sbp-lower-boxing"),
    ("sbp-propagate/regions.mlir", "sbp-propagate{strategy=greedy},sbp-lower-boxing"),
    ("sbp-propagate/regions.mlir", "sbp-propagate{strategy=optimal},sbp-lower-boxing"),
]


def _load(source: str, path: Path) -> ModuleType:
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def load_module() -> Callable[[str, Path], ModuleType]:
    """Write Python source to a path and import it as a module."""
    return _load


@pytest.fixture(params=LIT_EXAMPLES, ids=lambda p: f"{p[0]}-{p[1]}")
def lit_example(request) -> tuple[Path, str]:
    """A lit example file's text and the pass pipeline it is run through."""
    path, spec = request.param
    return LIT / path, spec
