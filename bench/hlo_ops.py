"""The instructions of two compiled HLO modules, compared by kind and shape.

Step times on a shared machine swing by more than the overhead a benchmark
looks for; the compiled program does not.  Two compilations of one function
(sbpc's ``shard_map`` program and ``jax.jit``'s) run the same work when
their optimized HLO (``.lower(...).compile().as_text()``) has the same
instructions: this module counts them per opcode and result shape (layout
included: a transposing copy changes it) over every computation (fusion
bodies, loop bodies), ignoring names and metadata, and says which one has
more of what (an extra copy, convert, transpose or reshape; a fusion split
in two).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hlo_collectives import _parse_module

OpKey = tuple[str, str]  # (opcode, result shape)


def op_counts(hlo_text: str) -> Counter[OpKey]:
    """How many instructions of each (opcode, result shape) the module has."""
    module = _parse_module(hlo_text)
    return Counter(
        (instr.opcode, instr.shape.strip())
        for instrs in module.computations.values()
        for instr in instrs
    )


def difference(a: str, b: str) -> dict[OpKey, int]:
    """``a``'s count minus ``b``'s, for every (opcode, shape) where they differ."""
    ca, cb = op_counts(a), op_counts(b)
    return {k: ca[k] - cb[k] for k in sorted(set(ca) | set(cb)) if ca[k] != cb[k]}


def opcode_difference(diff: Mapping[OpKey, int]) -> dict[str, int]:
    """``difference`` summed per opcode (shapes dropped), zeros left out."""
    per: Counter[str] = Counter()
    for (opcode, _), n in diff.items():
        per[opcode] += n
    return {k: n for k, n in sorted(per.items()) if n}


def describe(diff: Mapping[OpKey, int]) -> str:
    """``same`` or, per opcode, ``+n`` (the first module has more) / ``-n``."""
    if not diff:
        return "same"
    per = opcode_difference(diff)
    if not per:
        return "same ops, other shapes"
    return " ".join(f"{n:+d} {op}" for op, n in per.items())


_ALIAS = re.compile(r"\{([\d,\s]*)\}:\s*\((\d+),\s*\{[\d,\s]*\},\s*(may|must)-alias\)")


def aliases(hlo_text: str) -> list[tuple[str, int]]:
    """The module's ``input_output_alias`` pairs (output index, parameter):
    the donated arguments whose buffers hold results."""
    header = hlo_text.split("\n", 1)[0]
    return [
        (re.sub(r"\s", "", m.group(1)), int(m.group(2)))
        for m in _ALIAS.finditer(header)
    ]
