"""Shared fixtures for the pass tests: loading emitted JAX modules and the lit examples."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import jax
import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import parse_nd_sbp
from sbpc.dialects import sbp as sbp_dialect
from sbpc.passes.bridge.program import main_function, program_of
from sbpc.passes.jax_target import jax_source
from sbpc.passes.pipeline import parse_module, run_passes
from sbpc.simulator.execute import simulate

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


@dataclass(frozen=True)
class ShardedRun:
    """A JAX function taken through the passes and run two ways."""

    source: str  # the emitted module
    got: list[np.ndarray]  # the emitted shard_map module's results
    simulated: list[np.ndarray]  # the numpy simulator's results
    want: list[np.ndarray]  # jax.jit's results

    def assert_matches(self, tol: float = 1e-4) -> None:
        """Both runs equal ``jax.jit``'s numbers."""
        assert len(self.got) == len(self.simulated) == len(self.want)
        for g, s, w in zip(self.got, self.simulated, self.want, strict=True):
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol)
            np.testing.assert_allclose(s, w, rtol=tol, atol=tol)


def _distribute(
    module: ModuleOp,
    mesh: tuple[int, ...],
    layouts: Mapping[int, str],
    strategy: str,
    options: str = "",
    boxing_options: str = "",
) -> ModuleOp:
    """Place ``module`` on a mesh, pin its main function's argument layouts and
    run ``sbp-inline,sbp-propagate{strategy options},sbp-lower-boxing`` over it
    (``boxing_options``: sbp-lower-boxing's, braces included)."""
    sbp_dialect.set_module_placement(module, Placement.of_size(mesh))
    f = main_function(module)
    for i, layout in layouts.items():
        sbp_dialect.set_nd_sbp_arg_attr(f, i, parse_nd_sbp(layout))
    run_passes(
        module,
        f"sbp-inline,sbp-propagate{{strategy={strategy}{options}}},"
        f"sbp-lower-boxing{boxing_options}",
    )
    return module


@pytest.fixture(params=["greedy", "bfs", "optimal"])
def strategy(request) -> str:
    """Each of the propagation strategies in turn (a test's own
    ``parametrize("strategy", ...)`` takes precedence)."""
    return request.param


def _normal_args(shapes: Sequence[Sequence[int]], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


@pytest.fixture
def normal_args() -> Callable[[Sequence[Sequence[int]], int], list[np.ndarray]]:
    """``normal_args(shapes, seed)``: standard-normal f32 arrays of those shapes."""
    return _normal_args


@pytest.fixture
def distribute() -> Callable[..., ModuleOp]:
    """``distribute(module, mesh, layouts, strategy, options="")``: the module,
    distributed (``options``: more of sbp-propagate's, e.g. `` report=...``)."""
    return _distribute


def _run_sharded(
    fn: Callable,
    args: Sequence[np.ndarray],
    mesh: tuple[int, ...],
    layouts: Mapping[int, str],
    strategy: str,
    path: Path,
    cost_model: str = "default",
    improve: int = 1,
) -> ShardedRun:
    model = f'cost_model="{cost_model}"'
    module = _distribute(
        parse_module(jax.jit(fn).lower(*args).as_text()),
        mesh,
        layouts,
        strategy,
        f" {model} improve={improve}",
        f"{{{model}}}",
    )
    source = jax_source(module)
    emitted = _load(source, path)
    got = emitted.logical(emitted.build()(*emitted.put_args(*args)))
    simulated = simulate(
        program_of(module, main_function(module)), args, np.random.default_rng(3)
    )
    return ShardedRun(
        source,
        [np.asarray(g) for g in got],
        [np.asarray(s) for s in simulated],
        [np.asarray(w) for w in jax.tree.leaves(jax.jit(fn)(*args))],
    )


@pytest.fixture
def run_sharded() -> Callable[..., ShardedRun]:
    """Distribute ``fn`` through ``sbp-inline,sbp-propagate,sbp-lower-boxing``
    on a mesh with some arguments' layouts pinned (under ``cost_model``;
    ``improve=0``: greedy's and bfs's own plans), then run the emitted module
    and the simulator on ``args`` beside ``jax.jit``."""
    return _run_sharded
