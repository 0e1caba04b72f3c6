"""The sbp dialect's attributes and the SBP tokens they are spelled with.

Syntax fixed by DESIGN.md's IR contract:

- ``#sbp.nd<[S(0), B, P(sum)]>`` (``NdSbpAttr``): one SBP per hierarchy dim.
- ``#sbp.placement<cuda, [[0, 1], [2, 3]]>`` (``PlacementAttr``): device kind
  and an N-D rank array whose shape is the hierarchy.
- ``#sbp.sig<([S(0), B], [B]) -> ([S(0)])>`` (``SignatureAttr``): an op's
  operand and result layouts.

``parse_sbp_entry``/``parse_nd_sbp_list``/``print_nd_sbp_list`` read and write
the bare ``[S(0), B]`` lists the sbp ops spell inline; parse errors point at
the bad token.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Generic, Self, TypeVar, overload

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from sbpc.algebra.placement import Placement, PlacementError
from sbpc.algebra.sbp import (
    PARTIAL_KINDS,
    Broadcast,
    NdSbp,
    Partial,
    Sbp,
    SbpSyntaxError,
    Split,
    format_nd_sbp,
    parse_sbp,
)
from sbpc.algebra.signature import Signature

# ---------------------------------------------------------------------------
# Token-level parsing and printing of SBPs, shared by attributes and ops
# ---------------------------------------------------------------------------

_SBP_EXPECTED = "S(<axis>), B, P or P(sum|max|min)"


def parse_sbp_entry(parser: AttrParser) -> Sbp:
    """Parse ``S(k)``, ``B``, ``P`` or ``P(kind)``; errors point at the bad token."""
    start = parser.pos
    name = parser.parse_optional_identifier()
    if name is None:
        parser.raise_error(f"expected an SBP ({_SBP_EXPECTED})")
    if name == "B":
        return Broadcast()
    if name == "S":
        parser.parse_punctuation("(", " after 'S' in S(<axis>)")
        axis_pos = parser.pos
        axis = parser.parse_optional_integer(allow_boolean=False)
        if axis is None:
            parser.raise_error(
                "expected a split axis (a non-negative integer) in S(<axis>)"
            )
        if axis < 0:
            parser.raise_error(
                f"split axis must be non-negative, got {axis}", axis_pos, parser.pos
            )
        parser.parse_punctuation(")", " to close S(<axis>)")
        return Split(axis)
    if name == "P":
        if parser.parse_optional_punctuation("(") is None:
            return Partial("sum")
        kind_pos = parser.pos
        kind = parser.parse_optional_identifier()
        if kind is None:
            parser.raise_error("expected a partial kind (sum, max or min) in P(...)")
        if kind not in PARTIAL_KINDS:
            parser.raise_error(
                f"unknown partial kind '{kind}', expected one of "
                + ", ".join(PARTIAL_KINDS),
                kind_pos,
                parser.pos,
            )
        parser.parse_punctuation(")", " to close P(<kind>)")
        return Partial(kind)  # type: ignore[arg-type]  # checked just above
    parser.raise_error(
        f"unknown SBP '{name}', expected {_SBP_EXPECTED}", start, parser.pos
    )


def parse_nd_sbp_list(parser: AttrParser) -> NdSbp:
    """Parse ``[<sbp>, ...]`` (at least one entry)."""
    start = parser.pos
    if parser.parse_optional_punctuation("[") is None:
        parser.raise_error("expected '[' to start an nd_sbp such as [S(0), B]")
    if parser.parse_optional_punctuation("]") is not None:
        parser.raise_error(
            "an nd_sbp needs at least one entry (one per hierarchy dimension)",
            start,
            parser.pos,
        )
    entries = [parse_sbp_entry(parser)]
    while parser.parse_optional_punctuation(",") is not None:
        entries.append(parse_sbp_entry(parser))
    parser.parse_punctuation("]", " to close the nd_sbp (or ',' before another SBP)")
    return tuple(entries)


def print_nd_sbp_list(printer: Printer, nd_sbp: NdSbp) -> None:
    printer.print_string(format_nd_sbp(nd_sbp))


# ---------------------------------------------------------------------------
# Attributes
# ---------------------------------------------------------------------------


@irdl_attr_definition
class NdSbpAttr(ParametrizedAttribute):
    """``#sbp.nd<[S(0), B]>``: one SBP per hierarchy dimension of the placement.

    Stored as canonical entry strings (``P`` is kept as ``P(sum)``), so that
    two attributes meaning the same layout compare equal.
    """

    name = "sbp.nd"

    entries: ArrayAttr[StringAttr]

    def __init__(self, nd_sbp: NdSbp | Sequence[Sbp]) -> None:
        super().__init__(ArrayAttr([StringAttr(str(s)) for s in nd_sbp]))

    @property
    def nd_sbp(self) -> NdSbp:
        return tuple(parse_sbp(e.data) for e in self.entries.data)

    def __len__(self) -> int:
        return len(self.entries.data)

    def verify(self) -> None:
        if not self.entries.data:
            raise VerifyException("an nd_sbp needs at least one entry")
        for e in self.entries.data:
            try:
                sbp = parse_sbp(e.data)
            except SbpSyntaxError as err:
                raise VerifyException(str(err)) from err
            if str(sbp) != e.data:
                raise VerifyException(f"nd_sbp entry '{e.data}' is not canonical")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            nd = parse_nd_sbp_list(parser)
        return (ArrayAttr([StringAttr(str(s)) for s in nd]),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            print_nd_sbp_list(printer, self.nd_sbp)


_BARE_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")


def _parse_rank_array(parser: AttrParser) -> int | list:
    """An integer or a ``[...]`` of rank arrays (rectangularity checked later)."""
    if parser.parse_optional_punctuation("[") is None:
        value = parser.parse_optional_integer(allow_boolean=False)
        if value is None:
            parser.raise_error("expected a rank (integer) or '[' in a rank array")
        return value
    items: list = []
    if parser.parse_optional_punctuation("]") is not None:
        return items
    items.append(_parse_rank_array(parser))
    while parser.parse_optional_punctuation(",") is not None:
        items.append(_parse_rank_array(parser))
    parser.parse_punctuation("]", " to close the rank array (or ',')")
    return items


_A = TypeVar("_A", bound=Attribute)
_V = TypeVar("_V")


class _Derived(property, Generic[_A, _V]):
    """A property of an attribute, built once per attribute object.

    Attributes are immutable, and the verifiers and placement resolution read
    the same few placement and signature attributes thousands of times per
    module.  The memo holds the attribute itself, so its id is not reused
    while the entry lives; past ``LIMIT`` entries it starts afresh.
    """

    LIMIT = 8192

    def __init__(self, build: Callable[[_A], _V]) -> None:
        super().__init__(build)
        self.build = build
        self.memo: dict[int, tuple[_A, _V]] = {}

    @overload
    def __get__(self, attr: None, owner: type | None = None) -> Self: ...

    @overload
    def __get__(self, attr: _A, owner: type | None = None) -> _V: ...

    def __get__(self, attr: _A | None, owner: type | None = None) -> _V | Self:
        if attr is None:
            return self
        hit = self.memo.get(id(attr))
        if hit is not None and hit[0] is attr:
            return hit[1]
        value = self.build(attr)
        if len(self.memo) >= self.LIMIT:
            self.memo.clear()
        self.memo[id(attr)] = (attr, value)
        return value


@irdl_attr_definition
class PlacementAttr(ParametrizedAttribute):
    """``#sbp.placement<cuda, [[0, 1], [2, 3]]>``: device kind and rank array.

    The rank array's shape is the hierarchy; it is stored flat (row-major)
    next to its shape.  Invariants are those of ``sbpc.algebra.placement.Placement``.
    """

    name = "sbp.placement"

    device: StringAttr
    hierarchy: ArrayAttr[IntAttr]
    ranks: ArrayAttr[IntAttr]

    def __init__(self, placement: Placement) -> None:
        super().__init__(
            StringAttr(placement.device),
            ArrayAttr([IntAttr(n) for n in placement.hierarchy]),
            ArrayAttr([IntAttr(r) for r in placement.ranks]),
        )

    @_Derived
    def placement(self) -> Placement:
        return Placement(
            self.device.data,
            tuple(n.data for n in self.hierarchy.data),
            tuple(r.data for r in self.ranks.data),
        )

    def verify(self) -> None:
        try:
            self.placement  # noqa: B018 (construction checks the invariants)
        except PlacementError as err:
            raise VerifyException(str(err)) from err

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            device = parser.parse_optional_identifier()
            if device is None:
                device = parser.parse_optional_str_literal()
            if device is None:
                parser.raise_error(
                    "expected a device kind (such as cuda or cpu) in "
                    "#sbp.placement<kind, [ranks]>"
                )
            parser.parse_punctuation(",", " between device kind and rank array")
            start = parser.pos
            ranks = _parse_rank_array(parser)
            end = parser.pos
            try:
                placement = Placement.from_nested(device, ranks)
            except PlacementError as err:
                parser.raise_error(f"invalid placement: {err}", start, end)
        attr = cls(placement)
        return attr.parameters

    def print_parameters(self, printer: Printer) -> None:
        placement = self.placement
        with printer.in_angle_brackets():
            if _BARE_IDENT.fullmatch(placement.device):
                printer.print_string(placement.device)
            else:
                printer.print_string_literal(placement.device)
            printer.print_string(f", {placement.nested_ranks()}")


@irdl_attr_definition
class SignatureAttr(ParametrizedAttribute):
    """``#sbp.sig<([S(0), B], [B]) -> ([S(0)])>``: operand -> result layouts."""

    name = "sbp.sig"

    inputs: ArrayAttr[NdSbpAttr]
    outputs: ArrayAttr[NdSbpAttr]

    def __init__(self, signature: Signature) -> None:
        super().__init__(
            ArrayAttr([NdSbpAttr(nd) for nd in signature.inputs]),
            ArrayAttr([NdSbpAttr(nd) for nd in signature.outputs]),
        )

    @_Derived
    def signature(self) -> Signature:
        return Signature(
            tuple(a.nd_sbp for a in self.inputs.data),
            tuple(a.nd_sbp for a in self.outputs.data),
        )

    def verify(self) -> None:
        lengths = {len(a) for a in (*self.inputs.data, *self.outputs.data)}
        if len(lengths) > 1:
            raise VerifyException(
                "all nd_sbps of a signature must have the same length, got "
                + ", ".join(str(n) for n in sorted(lengths))
            )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        length: list[int] = []  # length of the first nd_sbp, once seen

        def one() -> NdSbpAttr:
            start = parser.pos
            nd = parse_nd_sbp_list(parser)
            if length and len(nd) != length[0]:
                parser.raise_error(
                    f"nd_sbp {format_nd_sbp(nd)} has {entries_text(len(nd))} but the "
                    f"first one of the signature has {length[0]}: every nd_sbp "
                    "has one entry per hierarchy dimension",
                    start,
                    parser.pos,
                )
            length[:] = [len(nd)]
            return NdSbpAttr(nd)

        paren = parser.Delimiter.PAREN
        with parser.in_angle_brackets():
            ins = parser.parse_comma_separated_list(paren, one, " in operand layouts")
            parser.parse_punctuation("->", " between operand and result layouts")
            outs = parser.parse_comma_separated_list(paren, one, " in result layouts")
        return ArrayAttr(ins), ArrayAttr(outs)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(str(self.signature))


def entries_text(n: int) -> str:
    """``1 entry``, ``2 entries``: for messages about nd_sbp lengths."""
    return f"{n} entr{'y' if n == 1 else 'ies'}"
