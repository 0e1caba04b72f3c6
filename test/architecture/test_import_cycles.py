"""No import cycles between source modules, deferred imports included.

A cycle means neither module can be read, tested or replaced alone, and a
deferred import (inside a function) only hides it from Python, not from the
reader.  The graph: an edge from each module to every source module one of
its import statements names (``conftest.imports_of``; ``from p import m``
names the module ``p.m`` when there is one, else ``p``).  One kind of edge
is left out: a module importing a package that contains it, for names that
package's ``__init__`` re-exports.  (The ``__init__`` importing its own
submodules is kept: it runs them.)  Each strongly connected component of
more than one module is a cycle, reported with one closed path through it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path


def import_graph(
    modules: Mapping[str, Path], read_imports: Callable[[str, Path], set[str]]
) -> dict[str, set[str]]:
    """Each source module -> the source modules it imports."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        for target in read_imports(name, path):
            # The longest source module the imported name lies in.
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if not target or target == name:
                continue
            if name.startswith(target + ".") and modules[target].name == "__init__.py":
                continue  # names from an enclosing package's __init__
            edges.add(target)
        graph[name] = edges
    return graph


def strongly_connected(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one node, each sorted (iterative, so a
    deep import chain cannot hit the recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph.get(root, ()))))]
        while work:
            v, successors = work[-1]
            for w in successors:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def closed_path(graph: Mapping[str, set[str]], component: list[str]) -> list[str]:
    """A shortest path from the component's first module back to itself."""
    start, members = component[0], set(component)
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph[v] & members):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if w not in came_from:
                came_from[w] = v
                queue.append(w)
    raise AssertionError(f"{component} is no cycle")


def cycles(graph: Mapping[str, set[str]]) -> list[str]:
    """One line per cycle: its size, members and a closed path through them."""
    return [
        f"cycle of {len(c)}: {', '.join(c)}\n  {' -> '.join(closed_path(graph, c))}"
        for c in strongly_connected(graph)
    ]


def test_no_import_cycle_between_source_modules(
    modules: dict[str, Path], read_imports: Callable[[str, Path], set[str]]
) -> None:
    found = cycles(import_graph(modules, read_imports))
    assert not found, "import cycles:\n" + "\n".join(found)


def _write(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_deferred_and_a_relative_import_close_a_cycle(
    tmp_path: Path,
    read_tree: Callable[[Path], dict[str, Path]],
    read_imports: Callable[[str, Path], set[str]],
) -> None:
    _write(
        tmp_path,
        {
            "sbpc/__init__.py": "",
            "sbpc/ops/__init__.py": "",
            "sbpc/ops/kind.py": "def f():\n    from sbpc.ops import rules\n",
            "sbpc/ops/rules.py": "from .kind import f\n",
            "sbpc/ops/alone.py": "from sbpc.ops.kind import f\n",
            "passes/a.py": "from sbpc.passes import b\n",
            "passes/b.py": "import sbpc.passes.c as c\n",
            "passes/c.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from .a import x\n",
        },
    )
    graph = import_graph(read_tree(tmp_path), read_imports)
    assert graph["sbpc.ops.kind"] == {"sbpc.ops.rules"}
    assert strongly_connected(graph) == [
        ["sbpc.ops.kind", "sbpc.ops.rules"],
        ["sbpc.passes.a", "sbpc.passes.b", "sbpc.passes.c"],
    ]
    found = cycles(graph)
    assert "sbpc.ops.kind -> sbpc.ops.rules -> sbpc.ops.kind" in found[0]
    assert (
        "sbpc.passes.a -> sbpc.passes.b -> sbpc.passes.c -> sbpc.passes.a" in (found[1])
    )


def test_a_package_and_its_own_modules_are_no_cycle(
    tmp_path: Path,
    read_tree: Callable[[Path], dict[str, Path]],
    read_imports: Callable[[str, Path], set[str]],
) -> None:
    """``__init__`` re-exporting a submodule that takes names from it is the
    usual package layout; a chain without a way back is no cycle either."""
    _write(
        tmp_path,
        {
            "sbpc/__init__.py": "",
            "dialects/sbp/__init__.py": "from .ops import Op\n",
            "dialects/sbp/ops.py": "from sbpc.dialects.sbp import attrs\n",
            "dialects/sbp/attrs.py": "from sbpc.dialects.sbp import A\n",
            "tools/opt.py": "from sbpc.dialects import sbp\n",
        },
    )
    graph = import_graph(read_tree(tmp_path), read_imports)
    assert graph["sbpc.dialects.sbp"] == {"sbpc.dialects.sbp.ops"}
    assert graph["sbpc.dialects.sbp.attrs"] == set()
    assert cycles(graph) == []


def test_an_init_running_a_module_that_imports_back_in_is_a_cycle(
    tmp_path: Path,
    read_tree: Callable[[Path], dict[str, Path]],
    read_imports: Callable[[str, Path], set[str]],
) -> None:
    """The re-export exemption covers a package's own modules only: one
    outside it that the package runs and that imports the package is a cycle."""
    _write(
        tmp_path,
        {
            "dialects/sbp/__init__.py": "from .ops import Op\n",
            "dialects/sbp/ops.py": "def f():\n    from sbpc.passes import util\n",
            "passes/util.py": "from sbpc.dialects.sbp import Op\n",
        },
    )
    graph = import_graph(read_tree(tmp_path), read_imports)
    assert strongly_connected(graph) == [
        ["sbpc.dialects.sbp", "sbpc.dialects.sbp.ops", "sbpc.passes.util"]
    ]
