"""The source tree as modules and their imports, read with ast, for the
architecture tests (``test_layers``, ``test_import_cycles``).

Every import statement counts, at module level and inside functions or
``if TYPE_CHECKING:`` blocks alike, so a lazy import cannot hide a
dependency.  The folders map onto one ``sbpc`` namespace as pyproject.toml's
``package-dir`` does.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {
    "sbpc": "sbpc",
    "dialects": "sbpc.dialects",
    "passes": "sbpc.passes",
    "tools": "sbpc.tools",
}


def source_modules(root: Path) -> dict[str, Path]:
    """Every source module under ``root`` by its installed dotted name."""
    found: dict[str, Path] = {}
    for folder, package in FOLDERS.items():
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            found[".".join([package, *parts])] = path
    return found


def imports_of(name: str, path: Path) -> set[str]:
    """Absolute names of everything ``path`` imports, relative ones resolved
    (``from x import y`` gives both ``x`` and ``x.y``: y may be a module)."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)
    return out


@pytest.fixture(scope="session")
def modules() -> dict[str, Path]:
    """The checkout's source modules (``source_modules(ROOT)``)."""
    found = source_modules(ROOT)
    assert len(found) > 50, "the walk found too few modules"
    return found


@pytest.fixture
def read_imports() -> Callable[[str, Path], set[str]]:
    """``imports_of``, for tests of the readers themselves."""
    return imports_of


@pytest.fixture
def read_tree() -> Callable[[Path], dict[str, Path]]:
    """``source_modules``, for tests on a tree written to ``tmp_path``."""
    return source_modules
