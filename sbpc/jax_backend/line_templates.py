"""An op's emitted lines written once per kind of op, then reused with new names.

A model of repeated layers emits the same op (same name, types, attributes,
signature, placement) thousands of times with only its value names changed.
Writing its lines means building each device's local op, comparing their
attributes and formatting expressions: about half of emitting a GPT
training step.  ``LineTemplates`` writes an op's lines once, with
placeholder names, and fills the placeholders on every later op of the same
key.

Writing lines is a function of the key and the names alone: the only
state an op emitter touches is ``const``, which names a value the same way
however often it is asked.  The key also holds which names repeat
(``add %a, %a`` is written apart from ``add %a, %b``), so an emitter that
looks at equal operands still sees them.  An op whose attributes cannot be
made a key (an unknown unhashable value) is written every time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from sbpc.ops.spec import OpSpec

# A placeholder cannot occur in emitted source: compile() rejects NUL bytes.
_MARK = "\x00"

# Lines with the placeholders split out: plain text, or pieces where every
# odd entry is the index of the name that goes there.
_Template = tuple[str | tuple[str | int, ...], ...]


def _frozen(value: Any) -> Hashable:
    """A hashable stand-in for an attribute value, equal only for equal values.

    The type is kept so that ``1``, ``1.0`` and ``True`` (equal in Python)
    stay apart; an array is its dtype, shape and bytes.
    """
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, tuple | list):
        return (type(value), tuple(_frozen(v) for v in value))
    if isinstance(value, dict):
        return (dict, tuple(sorted((k, _frozen(v)) for k, v in value.items())))
    hash(value)  # TypeError for anything else unhashable
    return (type(value), value)


def op_key(op: OpSpec) -> Hashable | None:
    """``op`` as a dictionary key (``None`` if an attribute cannot be one)."""
    try:
        attrs = tuple(sorted((k, _frozen(v)) for k, v in op.attrs.items()))
    except TypeError:
        return None
    return (op.name, op.operands, op.results, attrs)


def _compile(lines: list[str]) -> _Template:
    out: list[str | tuple[str | int, ...]] = []
    for line in lines:
        if _MARK not in line:
            out.append(line)
            continue
        pieces = line.split(_MARK)
        out.append(tuple(int(p) if k % 2 else p for k, p in enumerate(pieces)))
    return tuple(out)


def _fill(template: _Template, names: Sequence[str]) -> list[str]:
    return [
        line
        if isinstance(line, str)
        else "".join(names[p] if isinstance(p, int) else p for p in line)
        for line in template
    ]


class LineTemplates:
    """Lines by key, written by ``write(names)`` the first time a key comes."""

    def __init__(self) -> None:
        self._templates: dict[Hashable, _Template] = {}
        self.hits = 0  # lines filled from a template (tests read it)

    def lines(
        self,
        key: Hashable | None,
        names: Sequence[str],
        write: Callable[[list[str]], list[str]],
    ) -> list[str]:
        """``write(names)``, from the template of ``key`` when there is one."""
        if key is None:
            return write(list(names))
        # Which names repeat is part of what was written.
        key = (key, tuple(names.index(n) for n in names))
        template = self._templates.get(key)
        if template is None:
            marks = [f"{_MARK}{k}{_MARK}" for k in range(len(names))]
            template = _compile(write(marks))
            self._templates[key] = template
        else:
            self.hits += 1
        return _fill(template, names)
