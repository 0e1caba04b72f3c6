"""The collectives of an XLA compiled HLO module, priced by one yardstick.

A benchmark compares the communication of two programs for the same function
(sbpc's shard_map program and XLA's own GSPMD/Shardy partitioning) by reading
what XLA finally runs: ``jax.jit(f, ...).lower(*args).compile().as_text()``.
This module lists every collective in that text, including those inside
called computations (fusions, while bodies and conditions, conditional
branches, async computations), and prices each one.

Yardstick: **bytes each device sends** under the standard bandwidth-optimal
(ring) algorithm, for a group of ``g`` devices.  ``T`` is the *tensor bytes*
of the collective on one device (also reported, as ``tensor_bytes``):

| kind | T | bytes each device sends |
| --- | --- | --- |
| all-gather | result bytes (the gathered tensor) | (g-1)/g * T |
| reduce-scatter | operand bytes (the tensor before scattering) | (g-1)/g * T |
| all-reduce | operand bytes | 2(g-1)/g * T |
| all-to-all | operand bytes | (g-1)/g * T |
| collective-permute | operand bytes | T * (most pairs any device is the source of) |

Tuple-shaped (combined) collectives sum the bytes of their elements.  For a
collective-permute, pairs ``{d,d}`` send nothing and are left out; ``g`` is
reported as 2 and the number of groups as the number of remaining pairs.
The all-to-all figure matches the DESIGN.md boxing table, whose ``T`` is
the tensor of the whole group (``g`` times this one): (g-1)/g^2 of it.

A collective whose groups all have one device (or a permute whose pairs all
stay on their device) moves nothing; XLA sometimes leaves them behind.  It
is listed with ``trivial=True`` and counted in ``Summary.trivial`` but not in
the summary's counts or bytes.

Executions: a collective in a while body runs ``known_trip_count`` times
(XLA's backend_config) times the count of its caller; when XLA does not know
the trip count it is counted once and marked ``trip_count_known=False``.
Every branch of a conditional is counted (an upper bound), marked
``in_conditional=True``.  Async pairs count once: the ``*-start`` (or the
collective inside an ``async-start``'s computation); ``*-done`` and
``*-update`` are not collectives of their own.

Replica groups: explicit ``{{0,1},{2,3}}``, iota ``[2,4]<=[8]`` /
``[4,2]<=[2,4]T(1,0)``, and the mesh-axes form XLA prints for partitioner
output (``mesh['x'=2,'y'=4] {'y'}``, sub-axes ``'y':(2)2``).  ``{}`` means all
devices of the collective's mode (XLA's group modes: replicas without a
channel_id, partitions with one, replicas times partitions with
use_global_device_ids); ``num_devices`` overrides that count.  With a channel_id
and ``use_global_device_ids`` absent on an op that has it (all-reduce,
all-gather, reduce-scatter) the listed ids are replicas and each group also
spans every partition.

An instruction whose opcode is a collective that cannot be parsed, or a
collective this module does not price (send/recv, collective-broadcast,
ragged-all-to-all), raises ``HloCollectiveError``: a silently skipped
collective would make the comparison lie.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

KINDS = (
    "all-gather",
    "all-reduce",
    "reduce-scatter",
    "all-to-all",
    "collective-permute",
)
UNSUPPORTED = ("send", "recv", "collective-broadcast", "ragged-all-to-all")

# Bits per element; sub-byte types are priced at their packed size.
_BITS = {
    "pred": 8,
    "s2": 2,
    "s4": 4,
    "s8": 8,
    "s16": 16,
    "s32": 32,
    "s64": 64,
    "u2": 2,
    "u4": 4,
    "u8": 8,
    "u16": 16,
    "u32": 32,
    "u64": 64,
    "bf16": 16,
    "f16": 16,
    "f32": 32,
    "f64": 64,
    "c64": 64,
    "c128": 128,
    "token": 0,
}


class HloCollectiveError(ValueError):
    """A collective instruction that cannot be read or priced."""


@dataclass(frozen=True)
class Shape:
    """One array shape: element type and dimensions (layout dropped)."""

    dtype: str
    dims: tuple[int, ...]

    @property
    def nbytes(self) -> Fraction:
        bits = _BITS.get(self.dtype)
        if bits is None and re.fullmatch(r"f8\w*|f4\w*|f6\w*", self.dtype):
            bits = int(self.dtype[1])
        if bits is None:
            raise HloCollectiveError(f"unknown element type {self.dtype!r}")
        return Fraction(bits * math.prod(self.dims), 8)

    def __str__(self) -> str:
        return f"{self.dtype}[{','.join(map(str, self.dims))}]"


@dataclass(frozen=True)
class Collective:
    """One collective instruction; bytes are per execution unless named total."""

    kind: str
    name: str
    computation: str
    operand_shapes: tuple[Shape, ...]
    result_shapes: tuple[Shape, ...]
    group_size: int
    num_groups: int
    tensor_bytes: Fraction
    bytes_per_device: Fraction
    executions: int = 1
    is_async: bool = False
    trip_count_known: bool = True
    in_conditional: bool = False

    @property
    def element_type(self) -> str:
        types = dict.fromkeys(s.dtype for s in self.operand_shapes + self.result_shapes)
        return ",".join(types)

    @property
    def trivial(self) -> bool:
        return self.group_size <= 1 or self.num_groups == 0

    @property
    def total_bytes_per_device(self) -> Fraction:
        return Fraction(0) if self.trivial else self.executions * self.bytes_per_device


@dataclass(frozen=True)
class Summary:
    """Totals over the non-trivial collectives, weighted by executions."""

    counts: dict[str, int]
    total: int
    bytes_per_device: Fraction
    bytes_by_kind: dict[str, Fraction]
    trivial: int
    trip_count_unknown: bool = False
    in_conditional: bool = False


def summarize(collectives: Sequence[Collective]) -> Summary:
    """Counts per kind, total count and bytes; trivial ones only counted apart."""
    counts = dict.fromkeys(KINDS, 0)
    by_kind = {k: Fraction(0) for k in KINDS}
    trivial = 0
    for c in collectives:
        if c.trivial:
            trivial += c.executions
            continue
        counts[c.kind] += c.executions
        by_kind[c.kind] += c.total_bytes_per_device
    return Summary(
        counts=counts,
        total=sum(counts.values()),
        bytes_per_device=sum(by_kind.values(), Fraction(0)),
        bytes_by_kind=by_kind,
        trivial=trivial,
        trip_count_unknown=any(not c.trip_count_known for c in collectives),
        in_conditional=any(c.in_conditional for c in collectives),
    )


# ---------------------------------------------------------------- text scanning


def _strip_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def _brackets(text: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """Each index and character outside quotes, with the bracket depth after it."""
    depth = 0
    quote = ""
    i = start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        else:
            depth += (ch in "([{") - (ch in ")]}")
            yield i, ch, depth
        i += 1


def _balanced(text: str, start: int) -> int:
    """Index just past the bracket group opening at ``text[start]``."""
    for i, ch, depth in _brackets(text, start):
        if depth == 0 and ch in ")]}":
            return i + 1
    raise HloCollectiveError(f"unbalanced brackets in {text[start : start + 80]!r}")


def _split_top(text: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside brackets and quotes."""
    cuts = [i for i, ch, depth in _brackets(text) if ch == sep and depth == 0]
    bounds = zip([-1, *cuts], [*cuts, len(text)], strict=True)
    parts = [text[a + 1 : b].strip() for a, b in bounds]
    return [p for k, p in enumerate(parts) if p or k < len(parts) - 1]


_ARRAY = re.compile(r"([a-z][a-z0-9]*)\[([^\]]*)\]")


def parse_shape(text: str) -> tuple[Shape, ...]:
    """Flatten an HLO shape (array, scalar or nested tuple) into array shapes."""
    text = _strip_comments(text).strip()
    if text.startswith("("):
        inner = text[1 : _balanced(text, 0) - 1]
        return tuple(s for part in _split_top(inner) for s in parse_shape(part))
    m = _ARRAY.match(text)
    if not m:
        raise HloCollectiveError(f"cannot parse shape {text!r}")
    dims = tuple(
        int(d.strip().lstrip("<=")) for d in m.group(2).split(",") if d.strip()
    )
    return (Shape(m.group(1), dims),)


def _shape_prefix(text: str) -> tuple[str, str]:
    """Split ``SHAPE rest`` into the shape text and the rest."""
    text = text.lstrip()
    if text.startswith("("):
        end = _balanced(text, 0)
    else:
        m = re.match(r"[a-z][a-z0-9]*\[[^\]]*\](\{[^}]*\})?", text)
        if not m:
            raise HloCollectiveError(f"cannot parse shape at {text[:60]!r}")
        end = m.end()
    return text[:end], text[end:]


@dataclass
class _Instr:
    name: str
    shape: str
    opcode: str
    operands: list[str]
    attrs: dict[str, str]


@dataclass
class _Module:
    computations: dict[str, list[_Instr]] = field(default_factory=dict)
    entry: str = ""
    num_partitions: int = 1
    replica_count: int = 1
    # instructions (not collectives) whose text did not parse, verbatim
    unread: list[str] = field(default_factory=list)


_INSTR_START = re.compile(r"^\s*(ROOT\s+)?%?([\w.\-]+)\s*=\s*(?=\(|[a-z][a-z0-9]*\[)")
_COLLECTIVE_CALL = re.compile(rf"\s(?:{'|'.join(KINDS + UNSUPPORTED)})(?:-start)?\(")
_COMP_START = re.compile(r"^\s*(ENTRY\s+)?%?([\w.\-]+)\s*(\(.*\)\s*->\s*.*)?\{\s*$")


def _parse_instr(text: str) -> _Instr:
    m = _INSTR_START.match(text)
    assert m
    shape, rest = _shape_prefix(text[m.end() :])
    om = re.match(r"\s*([a-z][\w\-]*)\(", rest)
    if not om:
        raise HloCollectiveError(f"cannot parse instruction {text.strip()[:120]!r}")
    close = _balanced(rest, om.end() - 1)
    operands = _split_top(rest[om.end() : close - 1])
    attrs: dict[str, str] = {}
    for part in _split_top(rest[close:].lstrip(", ")):
        key, eq, value = part.partition("=")
        if key.strip() == "device_ids" and "replica_groups" in attrs:
            attrs["replica_groups"] += ", " + part  # mesh[...], device_ids=(...) {...}
        elif eq:
            attrs[key.strip()] = value.strip()
    return _Instr(m.group(2), shape, om.group(1), operands, attrs)


def _parse_module(text: str) -> _Module:
    mod = _Module()
    header = re.search(r"^\s*HloModule\s+(.*)$", text, flags=re.M)
    if header:
        for key in ("num_partitions", "replica_count"):
            m = re.search(rf"\b{key}=(\d+)", header.group(1))
            if m:
                setattr(mod, key, int(m.group(1)))
    current: list[_Instr] | None = None
    pending: list[str] = []

    def flush() -> None:
        """Parse the pending instruction; only a collective may fail loudly."""
        text = " ".join(pending)
        pending.clear()
        if not text or current is None:
            return
        try:
            current.append(_parse_instr(text))
        except HloCollectiveError:
            if _COLLECTIVE_CALL.search(text):
                raise
            mod.unread.append(text)

    for line in _strip_comments(text).splitlines():
        if current is None:
            m = _COMP_START.match(line)
            if m and not _INSTR_START.match(line):
                current = mod.computations.setdefault(m.group(2), [])
                if m.group(1):
                    mod.entry = m.group(2)
            elif _COLLECTIVE_CALL.search(line):
                raise HloCollectiveError(f"collective outside a computation: {line!r}")
            continue
        if re.match(r"^\s*\}", line):
            flush()
            current = None
        elif _INSTR_START.match(line):
            flush()
            pending.append(line.strip())
        elif pending and pending[-1].endswith((",", "(", "{", "[")):
            pending.append(line.strip())  # a hand-wrapped instruction goes on
        elif _COLLECTIVE_CALL.search(line):
            raise HloCollectiveError(f"cannot read instruction {line.strip()!r}")
    flush()
    if not mod.entry:
        raise HloCollectiveError("no ENTRY computation in the HLO text")
    return mod


# ---------------------------------------------------------------- groups


def _ints(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", text)]


def iota_groups(text: str) -> list[list[int]]:
    """The device groups of an iota list such as ``[4,2]<=[2,4]T(1,0)``."""
    m = re.fullmatch(r"\[([\d,\s]+)\]<=\[([\d,\s]+)\](?:T\(([\d,\s]+)\))?", text)
    if not m:
        raise HloCollectiveError(f"cannot parse iota replica groups {text!r}")
    shape, reshape = _ints(m.group(1)), _ints(m.group(2))
    perm = _ints(m.group(3)) if m.group(3) else list(range(len(reshape)))
    n = math.prod(reshape)
    if (
        len(shape) != 2
        or math.prod(shape) != n
        or sorted(perm) != list(range(len(reshape)))
    ):
        raise HloCollectiveError(f"inconsistent iota replica groups {text!r}")
    # Device at transposed position (i_perm0, i_perm1, ...) is iota over reshape.
    strides = [math.prod(reshape[k + 1 :]) for k in range(len(reshape))]
    tdims = [reshape[p] for p in perm]
    flat = []
    for idx in range(n):
        rem, dev = idx, 0
        for k in range(len(tdims) - 1, -1, -1):
            rem, coord = divmod(rem, tdims[k])
            dev += coord * strides[perm[k]]
        flat.append(dev)
    return [flat[g * shape[1] : (g + 1) * shape[1]] for g in range(shape[0])]


def _mesh_group_sizes(text: str) -> tuple[int, int]:
    """(group size, number of groups) of a mesh-axes replica group list."""
    m = re.fullmatch(r"mesh\[([^\]]*)\](?:,\s*device_ids=\(.*\))?\s*\{(.*)\}", text)
    if not m:
        raise HloCollectiveError(f"cannot parse mesh replica groups {text!r}")
    sizes = {}
    for part in _split_top(m.group(1)):
        name, _, size = part.partition("=")
        sizes[name.strip().strip("'\"")] = int(size)
    group = 1
    for axis in _split_top(m.group(2)):
        am = re.fullmatch(r"['\"]?([^'\":]+)['\"]?(?::\((\d+)\)(\d+))?", axis.strip())
        if not am or am.group(1) not in sizes:
            raise HloCollectiveError(f"unknown mesh axis {axis!r} in {text!r}")
        group *= int(am.group(3)) if am.group(3) else sizes[am.group(1)]
    total = math.prod(sizes.values())
    return group, total // group


def _group_shape(
    instr: _Instr, mod: _Module, num_devices: int | None
) -> tuple[int, int]:
    """(largest group size, number of groups) in devices, after XLA's group mode."""
    has_channel = "channel_id" in instr.attrs
    kind = _kind(instr.opcode)
    has_global_attr = kind in ("all-reduce", "all-gather", "reduce-scatter")
    use_global = instr.attrs.get("use_global_device_ids") == "true"
    if not has_channel:
        everyone = mod.replica_count
    elif use_global:
        everyone = mod.replica_count * mod.num_partitions
    elif has_global_attr:  # cross-replica-and-partition
        everyone = mod.replica_count
    else:  # cross-partition
        everyone = mod.num_partitions
    spans_partitions = has_channel and has_global_attr and not use_global
    text = instr.attrs.get("replica_groups", "{}").strip()
    if text.startswith("mesh["):
        size, count = _mesh_group_sizes(text)
    elif text.startswith("["):
        groups = iota_groups(text)
        size, count = len(groups[0]), len(groups)
    elif re.fullmatch(r"\{\s*\}", text):
        size, count = (num_devices or everyone), 1
        spans_partitions = spans_partitions and num_devices is None
    elif text.startswith("{"):
        groups = [_ints(g) for g in re.findall(r"\{([^{}]*)\}", text)]
        if not groups:
            raise HloCollectiveError(f"cannot parse replica groups {text!r}")
        size, count = max(len(g) for g in groups), len(groups)
    else:
        raise HloCollectiveError(f"cannot parse replica groups {text!r}")
    if size < 1:
        raise HloCollectiveError(f"empty replica group in {text!r}")
    if spans_partitions:
        size *= mod.num_partitions
    return size, count


# ---------------------------------------------------------------- pricing


def _kind(opcode: str) -> str:
    for suffix in ("-start", "-update", "-done"):
        if opcode.endswith(suffix):
            return opcode[: -len(suffix)]
    return opcode


def _operand_shapes(instr: _Instr, shapes: dict[str, str]) -> tuple[Shape, ...]:
    out: list[Shape] = []
    for op in instr.operands:
        name = op.split()[-1].lstrip("%")
        if name in shapes:
            out.extend(parse_shape(shapes[name]))
        elif op.split()[0] != op:  # "f32[8] %p": the shape is inline
            out.extend(parse_shape(_shape_prefix(op)[0]))
        else:
            raise HloCollectiveError(f"{instr.name}: operand {op!r} is not defined")
    return tuple(out)


def _result_shapes(instr: _Instr) -> tuple[Shape, ...]:
    """The collective's result: async starts carry (operands, result, context...)."""
    if not instr.opcode.endswith("-start") or instr.opcode == "all-reduce-start":
        return parse_shape(instr.shape)
    inner = instr.shape.strip()
    if not inner.startswith("("):
        raise HloCollectiveError(f"{instr.name}: {instr.opcode} shape is not a tuple")
    parts = _split_top(inner[1 : _balanced(inner, 0) - 1])
    if len(parts) < 2:
        raise HloCollectiveError(f"{instr.name}: cannot find the result in {inner!r}")
    return parse_shape(parts[1])


def _price(
    instr: _Instr,
    comp: str,
    shapes: dict[str, str],
    mod: _Module,
    num_devices: int | None,
) -> Collective:
    kind = _kind(instr.opcode)
    operands = _operand_shapes(instr, shapes)
    results = _result_shapes(instr)
    op_bytes = sum((s.nbytes for s in operands), Fraction(0))
    if kind == "collective-permute":
        text = instr.attrs.get("source_target_pairs")
        if text is None:
            raise HloCollectiveError(f"{instr.name}: no source_target_pairs")
        pairs = [tuple(_ints(p)) for p in re.findall(r"\{([^{}]*)\}", text)]
        if any(len(p) != 2 for p in pairs):
            raise HloCollectiveError(f"{instr.name}: bad source_target_pairs {text!r}")
        moving = [(s, t) for s, t in pairs if s != t]
        most = max((sum(1 for s, _ in moving if s == d) for d, _ in moving), default=0)
        size, count, tensor = (2 if moving else 1), len(moving), op_bytes
        sent = most * tensor
    else:
        size, count = _group_shape(instr, mod, num_devices)
        res_bytes = sum((s.nbytes for s in results), Fraction(0))
        tensor = res_bytes if kind == "all-gather" else op_bytes
        factor = 2 if kind == "all-reduce" else 1
        sent = factor * Fraction(size - 1, size) * tensor
    return Collective(
        kind=kind,
        name=instr.name,
        computation=comp,
        operand_shapes=operands,
        result_shapes=results,
        group_size=size,
        num_groups=count,
        tensor_bytes=tensor,
        bytes_per_device=sent,
        is_async=instr.opcode.endswith("-start"),
    )


# ---------------------------------------------------------------- walking

_CALLS = (
    "calls",
    "to_apply",
    "body",
    "condition",
    "branch_computations",
    "true_computation",
    "false_computation",
)


def _trip_count(instr: _Instr) -> int | None:
    m = re.search(
        r'"known_trip_count"\s*:\s*\{\s*"n"\s*:\s*"?(\d+)',
        instr.attrs.get("backend_config", ""),
    )
    return int(m.group(1)) if m else None


def parse_collectives(text: str, num_devices: int | None = None) -> list[Collective]:
    """Every collective reachable from the ENTRY computation, in program order.

    ``num_devices`` overrides the device count that ``replica_groups={}`` means.
    """
    mod = _parse_module(text)
    shapes = {
        comp: {i.name: i.shape for i in instrs}
        for comp, instrs in mod.computations.items()
    }
    found: list[Collective] = []

    def walk(
        comp: str, runs: int, known: bool, cond: bool, is_async: bool, depth: int
    ) -> None:
        if depth > 64:
            raise HloCollectiveError(f"call chain too deep at {comp}")
        for instr in mod.computations[comp]:
            kind = _kind(instr.opcode)
            if kind in UNSUPPORTED:
                raise HloCollectiveError(
                    f"{instr.name}: {instr.opcode} is a collective this module does not price"
                )
            if kind in KINDS and not instr.opcode.endswith(("-done", "-update")):
                try:
                    c = _price(instr, comp, shapes[comp], mod, num_devices)
                except HloCollectiveError:
                    raise
                except (ValueError, IndexError, KeyError) as e:
                    raise HloCollectiveError(
                        f"{instr.name}: cannot read {instr.opcode}: {e}"
                    ) from e
                found.append(
                    replace(
                        c,
                        executions=runs,
                        is_async=c.is_async or is_async,
                        trip_count_known=known,
                        in_conditional=cond,
                    )
                )
            if instr.opcode in ("async-update", "async-done") or kind in KINDS:
                continue  # the start already walked the wrapped computation
            for key, callees in _callees(instr, mod):
                sub_runs, sub_known = runs, known
                if instr.opcode == "while" and key in ("body", "condition"):
                    n = _trip_count(instr)
                    if n is None:
                        sub_known = False
                    else:
                        sub_runs = runs * (n + (key == "condition"))
                sub_cond = cond or instr.opcode == "conditional"
                sub_async = is_async or instr.opcode == "async-start"
                for callee in callees:
                    walk(callee, sub_runs, sub_known, sub_cond, sub_async, depth + 1)

    walk(mod.entry, 1, True, False, False, 0)
    return found


def _callees(instr: _Instr, mod: _Module) -> Iterator[tuple[str, list[str]]]:
    for key in _CALLS:
        if key in instr.attrs:
            names = re.findall(r"%?([\w.\-]+)", instr.attrs[key])
            yield key, [n for n in names if n in mod.computations]


# ---------------------------------------------------------------- command line


def format_table(collectives: Sequence[Collective]) -> str:
    """A plain-text table of the collectives and their summary."""
    rows = [("kind", "name", "type", "operands", "g", "groups", "runs", "bytes/dev")]
    for c in collectives:
        flags = "*" if not c.trip_count_known else ""
        flags += " trivial" if c.trivial else ""
        rows.append(
            (
                c.kind,
                c.name,
                c.element_type,
                " ".join(map(str, c.operand_shapes)),
                str(c.group_size),
                str(c.num_groups),
                f"{c.executions}{flags}",
                f"{float(c.bytes_per_device):g}",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip()
        for r in rows
    ]
    s = summarize(collectives)
    per_kind = ", ".join(f"{k} {n}" for k, n in s.counts.items() if n)
    lines.append(
        f"total: {s.total} collectives ({per_kind or 'none'}), "
        f"{float(s.bytes_per_device):g} bytes per device, {s.trivial} trivial"
    )
    if s.trip_count_unknown:
        lines.append("* inside a while loop of unknown trip count: counted once")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python bench/hlo_collectives.py FILE [--devices N]``: print the table."""
    import argparse

    parser = argparse.ArgumentParser(prog="bench/hlo_collectives.py")
    parser.add_argument("file", help="compiled HLO text ('-' for stdin)")
    parser.add_argument(
        "--devices", type=int, default=None, help="devices that replica_groups={} means"
    )
    args = parser.parse_args(argv)
    text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
    try:
        print(format_table(parse_collectives(text, args.devices)))
    except HloCollectiveError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
