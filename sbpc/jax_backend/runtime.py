"""The fixed part of every emitted module, cut from ``runtime_template.py``.

The emitter writes the program-specific tables and functions (specs,
placements, ``_STEPS``, the stage bodies, ``_reference``) between
``PRELUDE`` and ``RUNTIME``; ``COMBINED_COLLECTIVES`` follows when the
module combines collectives, ``INDEXED_BLOCKS`` when it gathers from or
scatters into blocks of rows, and ``MAIN`` (the self-check entry) ends it.
The template is a real module read as text, never imported: the emitted
module must import only jax and numpy.

Runtime contract (beyond DESIGN.md's): ranks index ``devices`` (default
``jax.devices()``, or the CPU devices when there are fewer accelerators than
ranks); mesh axes use ``AxisType.Auto`` so ``build()`` accepts plain numpy
arrays (explicit axes would require them to be sharded already); results
whose layout asks for partial come back as their pieces, stacked on one
leading axis per partial hierarchy dim (``OUT_PARTIAL`` lists the kinds;
``logical`` combines them).
"""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATE = Path(__file__).with_name("runtime_template.py")
_SECTION = re.compile(r"^# @section ([\w-]+)\n", re.M)


def sections(text: str) -> dict[str, str]:
    """The template's ``# @section NAME`` blocks by name (text before the
    first marker, the module docstring, belongs to none)."""
    marks = list(_SECTION.finditer(text))
    return {
        m.group(1): text[m.end() : nxt.start() if nxt else len(text)]
        for m, nxt in zip(marks, [*marks[1:], None], strict=True)
    }


_PARTS = sections(TEMPLATE.read_text())
# The simulated devices of the self-check, then jax's imports: every emitted
# module's, the pipelined one's too.
JAX_IMPORTS = _PARTS["jax"]
PRELUDE = _PARTS["imports"] + JAX_IMPORTS + _PARTS["definitions"]
RUNTIME = _PARTS["runtime"]
COMBINED_COLLECTIVES = _PARTS["combined-collectives"]
INDEXED_BLOCKS = _PARTS["indexed-blocks"]
MAIN = _PARTS["main"]
X64_MARK = "_X64 = False  # @x64@\n"
