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


_METADATA = re.compile(r",?\s*metadata=\{[^{}]*\}")
_PERCENT_NAME = re.compile(r"%([\w.\-]+)")  # instructions, computations
_SIGNATURE_NAME = re.compile(r"([\w.\-]+)(?=: )")  # a computation's parameters
_LEAF = re.compile(r"^\s*%?([\w.\-]+) = (\S+ (?:parameter|constant)\(.*)$")


def canonical(hlo_text: str) -> str:
    """The module's computations with metadata dropped, each leaf (parameter,
    constant) named by its computation and its own text, leaves sorted, and
    every other name renumbered in order of first appearance: two
    compilations of the same work give the same text whatever their names,
    source locations and the order they declare parameters and constants in.
    Only names are rewritten (``%name``, and a computation's parameter names
    in its signature): numbers and attributes stay as they are."""
    blocks: list[list[str]] = []
    for line in hlo_text.splitlines():
        if line.startswith(("%", "ENTRY")):
            blocks.append([])
        if blocks and line.startswith(("%", "ENTRY", " ", "}")):
            blocks[-1].append(_METADATA.sub("", line))
    names: dict[str, str] = {}
    for k, block in enumerate(blocks):
        for line in block:
            if m := _LEAF.match(line):
                names[m.group(1)] = f"c{k}[{m.group(2)}]"

    def rename(m: re.Match[str]) -> str:
        name = names.setdefault(m.group(1), f"v{len(names)}")
        return m.group(0).replace(m.group(1), name, 1)

    out = []
    for block in blocks:
        head, *body = block
        leaves, rest = [], []
        for line in body:
            (leaves if _LEAF.match(line) else rest).append(
                _PERCENT_NAME.sub(rename, line)
            )
        head = _SIGNATURE_NAME.sub(rename, _PERCENT_NAME.sub(rename, head))
        out += [head, *sorted(leaves), *rest]
    return "\n".join(out)


def compare(a: str, b: str) -> str:
    """``same`` when the two modules are the same program (``canonical``);
    else what ``a`` has more (+) or fewer (-) of, per opcode, or ``same ops,
    other attributes`` when only attributes or order differ."""
    if canonical(a) == canonical(b):
        return "same"
    described = describe(difference(a, b))
    return "same ops, other attributes" if described == "same" else described


_ALIAS = re.compile(r"\{([\d,\s]*)\}:\s*\((\d+),\s*\{[\d,\s]*\},\s*(may|must)-alias\)")


def aliases(hlo_text: str) -> list[tuple[str, int]]:
    """The module's ``input_output_alias`` pairs (output index, parameter):
    the donated arguments whose buffers hold results."""
    header = hlo_text.split("\n", 1)[0]
    return [
        (re.sub(r"\s", "", m.group(1)), int(m.group(2)))
        for m in _ALIAS.finditer(header)
    ]
