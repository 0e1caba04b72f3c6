"""Pass-pipeline text as users type it, made lexable by xDSL.

xDSL's pipeline lexer takes an unquoted option value only if it is a
number or a word of ``[A-Za-z0-9_-]``, so ``report=plan.html`` or
``report=/tmp/plan.json`` (what ``mlir-opt`` users write, and what the
README and DESIGN.md show) fail as "Unknown token".  ``quote_paths`` puts
quotes around such a value before xDSL sees the text; every value xDSL
already accepts, and everything inside quotes or ``[...]``, is left as is.
"""

from __future__ import annotations

import re

# What xDSL lexes as one value without quotes (its NUMBER and IDENT rules).
_PLAIN = re.compile(r"[-+]?[0-9]+(\.[0-9]*([eE][-+]?[0-9]+)?)?|[A-Za-z0-9_-]+")
# An unquoted value after "=": up to a space, comma, brace, bracket or quote.
_VALUE = re.compile(r'[^\s,{}\[\]"]+')


def quote_paths(pipeline: str) -> str:
    """``pipeline`` with unquoted option values xDSL cannot lex quoted."""
    out: list[str] = []
    i, n = 0, len(pipeline)
    while i < n:
        c = pipeline[i]
        if c == '"':  # a string literal: copy through its closing quote
            j = i + 1
            while j < n and pipeline[j] != '"':
                j += 2 if pipeline[j] == "\\" else 1
            out.append(pipeline[i : j + 1])
            i = j + 1
        elif c == "[":  # a nested MLIR pipeline: not ours to touch
            j = pipeline.find("]", i)
            j = n if j < 0 else j + 1
            out.append(pipeline[i:j])
            i = j
        elif c == "=" and (m := _VALUE.match(pipeline, i + 1)):
            value = m.group()
            plain = _PLAIN.fullmatch(value) is not None
            out.append("=" + (value if plain else f'"{value}"'))
            i = m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)
