"""The emitted program's text compiled once.

The emitter compiles the text it wrote to prove it is valid Python, and
``sbpc.jax`` then loads the same text; compiling a large program is a good
part of a second, so the loader takes the emitter's code object when the
text is the same (the last one is kept, nothing more).
"""

from __future__ import annotations

from types import CodeType

_last: list[tuple[str, CodeType]] = []  # at most one (source, code)


def program_code(source: str, filename: str) -> CodeType:
    """``compile(source, filename, "exec")``, or the code of the last call if
    ``source`` is the same text (that code keeps its own ``filename``)."""
    if _last and (_last[0][0] is source or _last[0][0] == source):
        return _last[0][1]
    code = compile(source, filename, "exec")
    _last[:] = [(source, code)]
    return code
