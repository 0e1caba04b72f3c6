"""The layers of sbpc, enforced: core never reaches up into IR or drivers.

Every import statement in the tree is read (module level and inside
functions alike, so a lazy import cannot hide a cycle) and checked against
the layer rules of ``docs/architecture.md``:

- core (``sbpc/`` subpackages and ``sbpc.program``): plain Python over plain
  data; imports neither xDSL nor ``sbpc.dialects``/``passes``/``tools`` nor
  the ``sbpc.jax`` front door;
- within the core, each subpackage only imports the ones below it
  (``CORE_ORDER``), so the algebra can be read without the rest;
- IR layer (``dialects/``, ``passes/``): imports the core and xDSL, never a
  driver; ``dialects/`` never imports ``passes/``;
- drivers (``tools/``, ``sbpc.jax``): anything.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

# Core subpackages, lowest first: each may import only those before it.
CORE_ORDER = (
    "sbpc.timing",
    "sbpc.output",
    "sbpc.collector",
    "sbpc.algebra",
    "sbpc.boxing",
    "sbpc.ops",
    "sbpc.program",
    "sbpc.propagation",
    "sbpc.simulator",
    "sbpc.jax_backend",
    "sbpc.pipeline",
    "sbpc.testing",
)
DRIVERS = (
    "sbpc.tools",
    "sbpc.jax",
    "sbpc.jax_plan",
    "sbpc.jax_pipeline",
    "sbpc.jax_sharding",
    "sbpc.jax_dispatch",
    "sbpc.jax_layouts",
    "sbpc.jax_options",
    "sbpc.jax_ties",
)
IR = ("sbpc.dialects", "sbpc.passes")


def _within(name: str, prefixes: tuple[str, ...] | str) -> bool:
    if isinstance(prefixes, str):
        prefixes = (prefixes,)
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _core_rank(name: str) -> int | None:
    for rank, package in enumerate(CORE_ORDER):
        if _within(name, package):
            return rank
    return None


def violations(name: str, imported: set[str]) -> list[str]:
    """Why each import of module ``name`` breaks a layer rule (empty: none)."""
    bad: list[str] = []
    if _within(name, DRIVERS):
        return bad
    ir = _within(name, IR)
    rank = _core_rank(name)
    if not ir and rank is None and name != "sbpc":
        return [f"{name} belongs to no layer: add it to CORE_ORDER, IR or DRIVERS"]
    for target in sorted(imported):
        if _within(target, DRIVERS):
            bad.append(f"{name} imports the driver {target}")
        elif ir:
            if _within(name, "sbpc.dialects") and _within(target, "sbpc.passes"):
                bad.append(f"{name} (a dialect) imports the pass module {target}")
        elif _within(target, "xdsl") or _within(target, IR):
            bad.append(f"{name} (core) imports {target}")
        else:
            other = _core_rank(target)
            if rank is not None and other is not None and other > rank:
                bad.append(f"{name} imports {target}, a layer above it")
    return bad


# A module longer than this holds more than one concept: split it (as
# dialects/stablehlo/ and dialects/sbp/ are split) rather than let it grow.
MAX_MODULE_LINES = 1000


def test_every_module_is_in_a_layer_and_imports_only_below(
    modules: dict[str, Path], read_imports: Callable[[str, Path], set[str]]
) -> None:
    bad = [
        v
        for name, path in modules.items()
        for v in violations(name, read_imports(name, path))
    ]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    ("name", "imported", "expected"),
    [
        ("sbpc.algebra.sbp", {"xdsl.ir"}, "(core) imports xdsl.ir"),
        ("sbpc.ops.registry", {"sbpc.dialects.stablehlo"}, "(core) imports"),
        ("sbpc.algebra.sbp", {"sbpc.ops.spec"}, "a layer above it"),
        ("sbpc.propagation.plan", {"sbpc.jax"}, "imports the driver sbpc.jax"),
        ("sbpc.passes.propagate", {"sbpc.tools.sbpc_opt"}, "imports the driver"),
        ("sbpc.dialects.sbp", {"sbpc.passes.pipeline"}, "(a dialect) imports"),
        ("sbpc.newthing", set(), "belongs to no layer"),
    ],
)
def test_the_checker_catches_each_kind_of_violation(
    name: str, imported: set[str], expected: str
) -> None:
    assert any(expected in v for v in violations(name, imported))


def test_allowed_imports_pass() -> None:
    assert not violations("sbpc.ops.registry", {"sbpc.algebra.sbp", "numpy"})
    assert not violations("sbpc.passes.propagate", {"xdsl.ir", "sbpc.propagation.plan"})
    assert not violations("sbpc.jax", {"sbpc.tools.sbpc_opt", "xdsl.ir"})


def test_relative_imports_resolve(
    tmp_path: Path, read_imports: Callable[[str, Path], set[str]]
) -> None:
    f = tmp_path / "mod.py"
    f.write_text("from .ops import x\nfrom .. import y\nimport numpy\n")
    got = read_imports("sbpc.passes.bridge.program", f)
    assert {"sbpc.passes.bridge.ops", "sbpc.passes.y", "numpy"} <= got


def test_pyproject_lists_every_package(modules: dict[str, Path]) -> None:
    """A subpackage missing from pyproject.toml works in an editable install
    and vanishes from a wheel: catch it here."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    listed = set(
        tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
            "packages"
        ]
    )
    packages = {name for name, path in modules.items() if path.name == "__init__.py"}
    assert packages == listed


def test_no_module_exceeds_the_line_limit(modules: dict[str, Path]) -> None:
    long = {
        name: n
        for name, path in modules.items()
        if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"
