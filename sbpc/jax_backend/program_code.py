"""The emitted program's text compiled once, its reference when first called.

The emitter compiles the text it wrote to prove it is valid Python, and
``sbpc.jax`` then loads the same text; compiling a large program is a good
part of a second, so the loader takes the emitter's code object when the
text is the same (the last one is kept, nothing more).

Half of that text is ``_reference``, the unsharded program that only
``reference()`` runs (the self-check, a test); ``sbpc.jax.distribute``
compiles it when it is first called (``deferred``), as ``sbpc.jax.plan``
compiles the whole program when it is first read.  The text is unchanged:
only the code object holds a stub in its place, with the same lines, so
every other line keeps its number in tracebacks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from types import CodeType
from typing import Any

# The loader's hook a stub calls: it compiles the deferred definition.
HOOK = "_sbpc_compile_deferred"

_DEFINED = re.compile(r"^def (\w+)\(", re.M)


@dataclass(frozen=True)
class _Compiled:
    """A text, its code, and the span of it the code holds a stub for."""

    source: str
    code: CodeType
    deferred: tuple[int, int] | None


_last: list[_Compiled] = []  # at most one


def forget() -> None:
    """Drop the kept code (a benchmark's next run of one text compiles anew)."""
    _last.clear()


def _cached(source: str) -> _Compiled | None:
    if _last and (_last[0].source is source or _last[0].source == source):
        return _last[0]
    return None


def program_code(
    source: str, filename: str, deferred: tuple[int, int] | None = None
) -> CodeType:
    """``compile(source, filename, "exec")``, or the code of the last call if
    ``source`` is the same text (that code keeps its own ``filename``).

    ``deferred``: the span of ``source`` (start, end offsets) holding one
    top-level function definition (decorators allowed) compiled only when
    first called (``load``): the code defines a stub of that name instead.
    """
    found = _cached(source)
    if found is not None:
        return found.code
    text = source
    if deferred is not None:
        start, end = deferred
        span = source[start:end]
        name = _defined_name(span)
        stub = f"def {name}(*args, **kwargs): return {HOOK}({name!r})(*args, **kwargs)"
        text = source[:start] + stub + "\n" * span.count("\n") + source[end:]
    code = compile(text, filename, "exec")
    _last[:] = [_Compiled(source, code, deferred)]
    return code


def load(source: str, filename: str, namespace: MutableMapping[str, Any]) -> None:
    """Run the program's code (``program_code``'s, deferred parts included)
    in ``namespace``: a deferred definition is compiled there, from the same
    text and at the same lines, when its stub is first called."""
    code = program_code(source, filename)
    found = _cached(source)
    if found is not None and found.deferred is not None:
        namespace[HOOK] = _compiler(source, found.deferred, filename, namespace)
    exec(code, namespace)


def _compiler(
    source: str,
    span: tuple[int, int],
    filename: str,
    namespace: MutableMapping[str, Any],
) -> Callable[[str], Any]:
    def compile_deferred(name: str) -> Any:
        start, end = span
        lines = "\n" * source.count("\n", 0, start)  # its own line numbers
        exec(compile(lines + source[start:end], filename, "exec"), namespace)
        return namespace[name]  # the definition now replaces the stub

    return compile_deferred


def _defined_name(span: str) -> str:
    found = _DEFINED.search(span)
    if found is None:
        raise ValueError("a deferred span must hold a top-level function definition")
    return found.group(1)
