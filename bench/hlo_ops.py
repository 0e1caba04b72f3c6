"""The instructions of two compiled HLO modules, compared by kind and shape.

Step times on a shared machine swing by more than the overhead a benchmark
looks for; the compiled program does not.  Two compilations of one function
(sbpc's ``shard_map`` program and ``jax.jit``'s) run the same work when
their optimized HLO (``.lower(...).compile().as_text()``) has the same
instructions: this module counts them per opcode and result shape (layout
included: a transposing copy changes it) over every computation (fusion
bodies, loop bodies), ignoring names and metadata, and says which one has
more of what (an extra copy, convert, transpose or reshape; a fusion split
in two).  Two modules are the *same* program when their dataflow is
(``dataflow``): XLA's scheduler may order independent instructions
differently and the two partitioners spell replica groups differently
(``{{0,...,7}}`` against ``mesh['axis_0'=1,'axis_1'=8] {'axis_1'}``) for the
same work.
"""

from __future__ import annotations

import hashlib
import math
import re
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from hlo_collectives import HloCollectiveError, _parse_module, iota_groups

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


_REF = re.compile(r"%([\w.\-]+)")
_ROOT = re.compile(r"^\s*ROOT\s+%?([\w.\-]+)", flags=re.M)
# What names a value or a run, not what it computes: channel ids number the
# collectives in program order; metadata is source locations.
_NOT_WORK = ("metadata", "channel_id")


def _digest(*parts: str) -> str:
    return hashlib.blake2b("\x00".join(parts).encode(), digest_size=12).hexdigest()


def explicit_groups(text: str) -> str:
    """Replica groups spelt as explicit lists (``{{0,1},{2,3}}``), whichever
    of XLA's spellings (explicit, iota ``[2,2]<=[4]``, mesh axes
    ``mesh['a'=2,'b'=2] {'b'}``) the module used; a spelling this does not
    read is returned as it is."""
    text = text.strip()
    groups: list[list[int]] | None = None
    mesh = re.fullmatch(r"mesh\[([^\]]*)\]\s*\{([^{}]*)\}", text)
    if mesh:
        sizes = {}
        for part in mesh.group(1).split(","):
            name, _, size = part.partition("=")
            sizes[name.strip().strip("'\"")] = int(size)
        grouped = [a.strip().strip("'\"") for a in mesh.group(2).split(",") if a]
        if all(a in sizes for a in grouped):
            names = list(sizes)
            order = [names.index(a) for a in names if a not in grouped]
            order += [names.index(a) for a in grouped]
            ids = np.arange(math.prod(sizes.values())).reshape(list(sizes.values()))
            size = math.prod(sizes[a] for a in grouped)
            groups = ids.transpose(order).reshape(-1, size).tolist()
    elif text.startswith("["):
        try:
            groups = iota_groups(text)
        except HloCollectiveError:
            groups = None
    elif text.startswith("{"):
        groups = [
            [int(x) for x in re.findall(r"\d+", g)]
            for g in re.findall(r"\{([^{}]*)\}", text)
        ]
    if groups is None:
        return text
    return "{" + ",".join("{" + ",".join(map(str, g)) + "}" for g in groups) + "}"


def dataflow(hlo_text: str) -> str:
    """A digest of the module's dataflow: each instruction is its shape,
    opcode and attributes with every operand replaced by its own digest and
    every called computation by that computation's (the multiset of its
    instructions' digests and its root's).  Names, metadata, channel ids,
    the order of independent instructions and the spelling of replica
    groups do not count; numbers and every other attribute do.  Two
    compilations that run the same work on the same values get one digest.
    An instruction the parser cannot read counts by its whole text, names
    included: such modules are the same only when those lines are."""
    module = _parse_module(hlo_text)
    roots = set(_ROOT.findall(hlo_text))
    done: dict[str, str] = {}

    def computation(name: str) -> str:
        if name not in done:
            done[name] = name  # a cycle (none in HLO) reads the name
            local: dict[str, str] = {}
            for instr in module.computations[name]:
                local[instr.name] = instruction(instr, local)
            root = [local[i.name] for i in module.computations[name] if i.name in roots]
            done[name] = _digest(*sorted(local.values()), "root", *root)
        return done[name]

    def instruction(instr, local: dict[str, str]) -> str:
        def ref(m: re.Match[str]) -> str:
            name = m.group(1)
            if name in local:
                return local[name]
            return computation(name) if name in module.computations else m.group(0)

        attrs = []
        for key, value in sorted(instr.attrs.items()):
            if key in _NOT_WORK:
                continue
            if key == "replica_groups":
                value = explicit_groups(value)
            attrs.append(f"{key}={_REF.sub(ref, value)}")
        operands = [_REF.sub(ref, o) for o in instr.operands]
        return _digest(instr.shape.strip(), instr.opcode, *operands, "attrs", *attrs)

    return _digest(computation(module.entry), "unread", *sorted(module.unread))


def compare(a: str, b: str) -> str:
    """``same`` when the two modules are the same program (``dataflow``);
    else what ``a`` has more (+) or fewer (-) of, per opcode, or ``same ops,
    other attributes`` when only attributes or order differ."""
    if dataflow(a) == dataflow(b):
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
