"""The sbp dialect: SBP layouts as IR attributes, plus the ops that change them.

Attributes (syntax fixed by DESIGN.md's IR contract):

- ``#sbp.nd<[S(0), B, P(sum)]>`` (``NdSbpAttr``): one SBP per hierarchy dim.
- ``#sbp.placement<cuda, [[0, 1], [2, 3]]>`` (``PlacementAttr``): device kind
  and an N-D rank array whose shape is the hierarchy.
- ``#sbp.sig<([S(0), B], [B]) -> ([S(0)])>`` (``SignatureAttr``): an op's
  operand and result layouts.

Ops (types are logical, global; operand and result types are equal):

- ``sbp.cast``: force a layout (OneFlow's ``to_global``), optionally onto
  another placement; ``sbp-lower-boxing`` turns it into the ops below.
- One-step boxing ops, each acting on the hierarchy ``dims`` it names:
  ``sbp.all_gather`` (S -> B), ``sbp.all_reduce`` (P -> B),
  ``sbp.reduce_scatter`` (P -> S), ``sbp.all_to_all`` (S(i) -> S(j)),
  ``sbp.local_slice`` (B -> S, no communication), ``sbp.local_to_partial``
  (B or S -> P, no communication) and ``sbp.transfer`` (between placements).

Where the annotations go (``sbp.placement`` on the module, ``sbp.nd_sbp`` on
func arguments and results, ``sbp.sig`` on ops) is checked by
``verify_sbp_annotations``, which raises ``LocatedError`` naming the op at
fault; ``sbpc-opt`` runs it after parsing.
"""

from __future__ import annotations

import re
from abc import ABC
from collections.abc import Iterable, Sequence
from typing import ClassVar, Self

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Dialect,
    Operation,
    OpResult,
    ParametrizedAttribute,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from sbpc.algebra.layout import UnevenSplitError, check_even
from sbpc.algebra.placement import Placement, PlacementError
from sbpc.algebra.sbp import (
    PARTIAL_KINDS,
    Broadcast,
    NdSbp,
    Partial,
    PartialKind,
    Sbp,
    SbpSyntaxError,
    Split,
    format_nd_sbp,
    parse_sbp,
)
from sbpc.algebra.signature import Signature
from sbpc.dialects.diagnostics import LocatedError

# Names of the discardable attributes the dialect gives meaning to.
ND_SBP = "sbp.nd_sbp"  # func argument / result: its layout
PLACEMENT = "sbp.placement"  # module: default placement; func argument: its own
SIG = "sbp.sig"  # any op: its SBP signature

NO_PLACEMENT = "no placement: add sbp.placement to the module"

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

    @property
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

    @property
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
                    f"nd_sbp {format_nd_sbp(nd)} has {_entries(len(nd))} but the "
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


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


# ---------------------------------------------------------------------------
# Checks shared by op verifiers and verify_sbp_annotations
# ---------------------------------------------------------------------------


class _Invalid(Exception):
    """A failed check; the caller turns it into the right exception type."""


def _placement_text(placement: Placement | None) -> str:
    return str(PlacementAttr(placement)) if placement is not None else "no placement"


def _hierarchy_text(placement: Placement) -> str:
    dims = "x".join(str(n) for n in placement.hierarchy)
    return (
        f"the placement ({placement.device}, {dims}) has "
        f"{placement.ndim} hierarchy dimension{'s' if placement.ndim != 1 else ''}"
    )


def _check_nd_len(nd: NdSbp, placement: Placement, what: str) -> None:
    if len(nd) != placement.ndim:
        raise _Invalid(
            f"{what} {format_nd_sbp(nd)} has {_entries(len(nd))}, but "
            + _hierarchy_text(placement)
        )


def _static_shape(ty: Attribute) -> tuple[int, ...] | None:
    """Shape of a ranked tensor type (-1 for dynamic dims), None otherwise."""
    if isinstance(ty, TensorType):
        return tuple(ty.get_shape())
    return None


def _check_axes(nd: NdSbp, ty: Attribute, what: str) -> None:
    shape = _static_shape(ty)
    if shape is None:
        if any(isinstance(s, Split) for s in nd) and not _is_unranked(ty):
            raise _Invalid(f"{what} {format_nd_sbp(nd)} splits a value of type {ty}")
        return
    for s in nd:
        if isinstance(s, Split) and s.axis >= len(shape):
            raise _Invalid(
                f"{what} {format_nd_sbp(nd)} splits dimension {s.axis}, but {ty} "
                f"has rank {len(shape)}"
            )


def _is_unranked(ty: Attribute) -> bool:
    return ty.name == "unranked_tensor"


def _check_even(nd: NdSbp, ty: Attribute, placement: Placement, what: str) -> None:
    """Even splits only; dynamic dimensions are not checked."""
    shape = _static_shape(ty)
    if shape is None or len(nd) != placement.ndim:
        return
    static = tuple(0 if d < 0 else d for d in shape)  # 0 divides evenly
    try:
        check_even(static, nd, placement.hierarchy)
    except UnevenSplitError as err:
        raise _Invalid(f"{what} {format_nd_sbp(nd)} of {ty}: {err}") from err


def _check_layout(
    nd: NdSbp, ty: Attribute, placement: Placement | None, what: str
) -> None:
    _check_axes(nd, ty, what)
    if placement is not None:
        _check_nd_len(nd, placement, what)
        _check_even(nd, ty, placement, what)


# ---------------------------------------------------------------------------
# Where a value lives: placements through the dataflow
# ---------------------------------------------------------------------------


def module_placement(op: Operation) -> Placement | None:
    """The default placement in force at ``op``: ``sbp.placement`` of the
    nearest enclosing (or own) module that has one, None if none has."""
    attr = module_placement_attr(op)
    return attr.placement if attr is not None else None


def module_placement_attr(op: Operation) -> PlacementAttr | None:
    cur: Operation | None = op
    while cur is not None:
        if isinstance(cur, ModuleOp):
            attr = cur.attributes.get(PLACEMENT)
            if isinstance(attr, PlacementAttr):
                return attr
        cur = cur.parent_op()
    return None


def set_module_placement(module: ModuleOp, placement: Placement) -> None:
    module.attributes[PLACEMENT] = PlacementAttr(placement)


def _explicit_placement(value: SSAValue) -> Placement | None:
    """The placement ``value``'s definition names, None when it names none."""
    if isinstance(value, OpResult):
        op = value.op
        if isinstance(op, TransferOp):
            return op.to_placement.placement
        if isinstance(op, CastOp | CollectiveOp) and op.placement is not None:
            return op.placement.placement
        return None
    if isinstance(value, BlockArgument):
        func = _entry_block_func(value.block)
        if func is not None:
            attr = get_arg_attr(func, value.index, PLACEMENT)
            if isinstance(attr, PlacementAttr):
                return attr.placement
    return None


def _entry_block_func(block: Block) -> FuncOp | None:
    parent = block.parent_op()
    if isinstance(parent, FuncOp) and parent.body.first_block is block:
        return parent
    return None


def _is_tensor(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) or _is_unranked(value.type)


def _placement_sources(value: SSAValue) -> tuple[list[SSAValue], bool]:
    """The tensor values ``value`` inherits its placement from, and whether
    ``value`` is a function argument (which lives on the module's placement)."""
    if isinstance(value, OpResult):
        return [v for v in value.op.operands if _is_tensor(v)], False
    parent = value.block.parent_op()
    if parent is None or isinstance(parent, FuncOp):
        return [], True
    # Region arguments (loop-carried values): the enclosing op's placement.
    return [v for v in parent.operands if _is_tensor(v)], False


def _owner(value: SSAValue) -> Operation | None:
    return value.op if isinstance(value, OpResult) else value.block.parent_op()


# (placement, floating): a floating value (a constant, or computed from
# constants only) has no placement of its own; it lives where it is used.
_Resolved = tuple[Placement | None, bool]


def _combine(value: SSAValue, sources: Sequence[_Resolved], is_arg: bool) -> _Resolved:
    for placement, floating in sources:
        if not floating:
            return placement, False
    if sources:
        return sources[0]
    owner = _owner(value)
    default = module_placement(owner) if owner is not None else None
    return default, not is_arg


def _resolve(value: SSAValue, budget: list[int]) -> _Resolved | None:
    """Bounded depth-first resolution; None when ``budget`` runs out."""
    explicit = _explicit_placement(value)
    if explicit is not None:
        return explicit, False
    sources, is_arg = _placement_sources(value)
    resolved: list[_Resolved] = []
    for src in sources:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        got = _resolve(src, budget)
        if got is None:
            return None
        resolved.append(got)
        if not got[1]:
            break  # the first operand with a placement of its own decides
    return _combine(value, resolved, is_arg)


def value_placement(value: SSAValue, max_hops: int | None = None) -> Placement | None:
    """The placement ``value`` lives on.

    Explicit where the IR names one (``sbp.cast ... on``, ``sbp.transfer``, a
    collective's ``on``, a func argument's ``sbp.placement``); a func argument
    without one lives on the module's placement; any other value on that of
    the first of its defining op's tensor operands (the enclosing op's, for
    region arguments) that has a placement of its own.  Constants, and values
    computed from constants only, have none: they take the module's here, and
    ``placement_map`` marks them ``floating``.

    With ``max_hops``, gives up (None) after visiting that many values, so
    local verifiers stay cheap; without, falls back to ``placement_map``.
    """
    got = _resolve(value, [64 if max_hops is None else max_hops])
    if got is not None:
        return got[0]
    if max_hops is not None:
        return None
    top = _owner(value)
    while top is not None and top.parent_op() is not None:
        top = top.parent_op()
    if isinstance(top, ModuleOp):
        return placement_map(top).get(value)
    return None


class PlacementMap(dict[SSAValue, Placement]):
    """Placement of every value of a module; ``floating`` holds the values that
    have none of their own (constants and what is computed from them only)."""

    def __init__(self) -> None:
        super().__init__()
        self.floating: set[SSAValue] = set()


def placement_map(module: ModuleOp) -> PlacementMap:
    """Placement of every value of ``module`` (the rules of ``value_placement``),
    in one forward walk."""
    out = PlacementMap()

    def resolved(value: SSAValue) -> _Resolved:
        if value in out:
            return out[value], value in out.floating
        got = _resolve(value, [1 << 30])  # defined later (graph regions): rare
        assert got is not None
        return got

    def record(value: SSAValue) -> None:
        explicit = _explicit_placement(value)
        if explicit is not None:
            placement, floating = explicit, False
        else:
            sources, is_arg = _placement_sources(value)
            placement, floating = _combine(
                value, [resolved(v) for v in sources], is_arg
            )
        if placement is not None:
            out[value] = placement
        if floating:
            out.floating.add(value)

    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    record(arg)
        for res in op.results:
            record(res)
    return out


def placement_in_force(
    op: Operation, placements: dict[SSAValue, Placement] | None = None
) -> Placement | None:
    """The placement ``op`` computes on: an sbp op's own ``on`` (the target of a
    transfer), else that of its first tensor operand with a placement of its
    own, else the module's."""
    if isinstance(op, TransferOp):
        return op.to_placement.placement
    if isinstance(op, CastOp | CollectiveOp) and op.placement is not None:
        return op.placement.placement
    floating = placements.floating if isinstance(placements, PlacementMap) else set()
    first: Placement | None = None
    for operand in op.operands:
        if not _is_tensor(operand):
            continue
        if placements is not None and operand in placements:
            here = placements[operand]
            if operand not in floating:
                return here
            first = first or here
        else:
            got = _resolve(operand, [64])
            if got is None:
                return value_placement(operand)
            if not got[1]:
                return got[0]
            first = first or got[0]
    return first or module_placement(op)


# ---------------------------------------------------------------------------
# Helpers for reading and writing annotations
# ---------------------------------------------------------------------------


def _dict_at(attrs: ArrayAttr[DictionaryAttr] | None, i: int) -> DictionaryAttr | None:
    if attrs is None or i >= len(attrs.data):
        return None
    return attrs.data[i]


def get_arg_attr(func: FuncOp, i: int, name: str) -> Attribute | None:
    d = _dict_at(func.arg_attrs, i)
    return d.data.get(name) if d is not None else None


def get_res_attr(func: FuncOp, i: int, name: str) -> Attribute | None:
    d = _dict_at(func.res_attrs, i)
    return d.data.get(name) if d is not None else None


def _with_entry(
    attrs: ArrayAttr[DictionaryAttr] | None, n: int, i: int, name: str, value: Attribute
) -> ArrayAttr[DictionaryAttr]:
    dicts = list(attrs.data) if attrs is not None else []
    dicts += [DictionaryAttr({})] * (n - len(dicts))
    entries = dict(dicts[i].data)
    entries[name] = value
    dicts[i] = DictionaryAttr(entries)
    return ArrayAttr(dicts)


def set_arg_attr(func: FuncOp, i: int, name: str, value: Attribute) -> None:
    n = len(func.function_type.inputs.data)
    func.arg_attrs = _with_entry(func.arg_attrs, n, i, name, value)


def set_res_attr(func: FuncOp, i: int, name: str, value: Attribute) -> None:
    n = len(func.function_type.outputs.data)
    func.res_attrs = _with_entry(func.res_attrs, n, i, name, value)


def get_nd_sbp_arg_attr(func: FuncOp, i: int) -> NdSbp | None:
    """``sbp.nd_sbp`` of argument ``i`` (None when absent or not an nd_sbp)."""
    attr = get_arg_attr(func, i, ND_SBP)
    return attr.nd_sbp if isinstance(attr, NdSbpAttr) else None


def get_nd_sbp_res_attr(func: FuncOp, i: int) -> NdSbp | None:
    """``sbp.nd_sbp`` of result ``i``: the layout the caller wants back."""
    attr = get_res_attr(func, i, ND_SBP)
    return attr.nd_sbp if isinstance(attr, NdSbpAttr) else None


def set_nd_sbp_arg_attr(func: FuncOp, i: int, nd_sbp: NdSbp) -> None:
    set_arg_attr(func, i, ND_SBP, NdSbpAttr(nd_sbp))


def set_nd_sbp_res_attr(func: FuncOp, i: int, nd_sbp: NdSbp) -> None:
    set_res_attr(func, i, ND_SBP, NdSbpAttr(nd_sbp))


def get_arg_placement(func: FuncOp, i: int) -> Placement | None:
    """Argument ``i``'s placement: its ``sbp.placement``, else the module's."""
    attr = get_arg_attr(func, i, PLACEMENT)
    if isinstance(attr, PlacementAttr):
        return attr.placement
    return module_placement(func)


def get_signature(op: Operation) -> Signature | None:
    """``op``'s ``sbp.sig`` (None when absent or not a signature)."""
    attr = op.attributes.get(SIG)
    return attr.signature if isinstance(attr, SignatureAttr) else None


def set_signature(op: Operation, signature: Signature) -> None:
    op.attributes[SIG] = SignatureAttr(signature)


def value_layout(value: SSAValue) -> NdSbp | None:
    """The layout ``value`` is known to have, from its definition alone.

    ``sbp.cast``/collectives/``sbp.transfer`` results, results of an op with
    ``sbp.sig``, and func arguments with ``sbp.nd_sbp``; None otherwise.
    """
    if isinstance(value, OpResult):
        op = value.op
        if isinstance(op, CastOp):
            return op.nd_sbp.nd_sbp
        if isinstance(op, CollectiveOp | TransferOp):
            return op.to_sbp.nd_sbp
        sig = op.attributes.get(SIG)
        if isinstance(sig, SignatureAttr) and value.index < len(sig.outputs.data):
            return sig.outputs.data[value.index].nd_sbp
        return None
    if isinstance(value, BlockArgument):
        func = _entry_block_func(value.block)
        if func is not None:
            return get_nd_sbp_arg_attr(func, value.index)
    return None


# ---------------------------------------------------------------------------
# Ops
# ---------------------------------------------------------------------------


def _nd_attr(nd: NdSbpAttr | NdSbp | Sequence[Sbp]) -> NdSbpAttr:
    return nd if isinstance(nd, NdSbpAttr) else NdSbpAttr(tuple(nd))


def _placement_attr(p: PlacementAttr | Placement | None) -> PlacementAttr | None:
    if p is None or isinstance(p, PlacementAttr):
        return p
    return PlacementAttr(p)


def _parse_nd_attr(parser: Parser) -> NdSbpAttr:
    """``#sbp.nd<...>`` in an op's custom syntax (full attribute form)."""
    pos = parser.pos
    attr = parser.parse_attribute()
    if not isinstance(attr, NdSbpAttr):
        parser.raise_error(f"expected an #sbp.nd<[...]> attribute, got {attr}", pos)
    return attr


def _parse_placement_attr(parser: Parser) -> PlacementAttr:
    pos = parser.pos
    attr = parser.parse_attribute()
    if not isinstance(attr, PlacementAttr):
        parser.raise_error(
            f"expected an #sbp.placement<...> attribute, got {attr}", pos
        )
    return attr


def _parse_trailer(parser: Parser) -> tuple[dict[str, Attribute], Attribute]:
    """``attr-dict `:` type``."""
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":", " before the tensor type")
    return attrs, parser.parse_type()


def _print_trailer(printer: Printer, op: Operation) -> None:
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(op.operands[0].type)


# How far an op's own verifier follows the dataflow to find its placement;
# beyond, it skips the placement checks (verify_sbp_annotations makes them).
_LOCAL_HOPS = 8


class _LayoutOp(IRDLOperation, ABC):
    """Shared shape of the sbp ops: one tensor in, the same tensor type out."""

    input = operand_def(TensorType)
    output = result_def(TensorType)

    traits = traits_def(Pure())

    def _verify_types(self) -> None:
        if self.input.type != self.output.type:
            raise VerifyException(
                f"result type {self.output.type} differs from operand type "
                f"{self.input.type}: sbp ops change the layout, not the logical type"
            )

    def verify_(self) -> None:
        self._verify_types()
        try:
            self._verify_layouts(self._local_placement())
        except _Invalid as err:
            raise VerifyException(str(err)) from err

    def _local_placement(self) -> Placement | None:
        """Placement in force, found cheaply (None when unknown here)."""
        if isinstance(self, TransferOp):
            return self.to_placement.placement
        own = getattr(self, "placement", None)
        if isinstance(own, PlacementAttr):
            return own.placement
        return value_placement(self.input, max_hops=_LOCAL_HOPS)

    def _verify_layouts(self, placement: Placement | None) -> None:
        """Checks given the placement in force (None: unknown, skip those)."""
        raise NotImplementedError


@irdl_op_definition
class CastOp(_LayoutOp):
    """Force a value's layout (OneFlow's ``to_global``), optionally moving it.

    ``%1 = sbp.cast %0 to #sbp.nd<[B, S(1)]> : tensor<8x16xf32>``
    ``%1 = sbp.cast %0 to #sbp.nd<[S(0)]> on #sbp.placement<cuda, [2, 3]> : ...``
    """

    name = "sbp.cast"

    nd_sbp = prop_def(NdSbpAttr)
    placement = opt_prop_def(PlacementAttr)

    def __init__(
        self,
        input: SSAValue | Operation,
        nd_sbp: NdSbpAttr | NdSbp | Sequence[Sbp],
        placement: PlacementAttr | Placement | None = None,
    ) -> None:
        value = SSAValue.get(input)
        props: dict[str, Attribute | None] = {
            "nd_sbp": _nd_attr(nd_sbp),
            "placement": _placement_attr(placement),
        }
        super().__init__(operands=[value], result_types=[value.type], properties=props)

    def _verify_layouts(self, placement: Placement | None) -> None:
        _check_layout(self.nd_sbp.nd_sbp, self.input.type, placement, "sbp.cast to")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operand = parser.parse_unresolved_operand()
        parser.parse_keyword("to", " in sbp.cast %x to #sbp.nd<[...]>")
        nd = _parse_nd_attr(parser)
        placement = None
        if parser.parse_optional_keyword("on") is not None:
            placement = _parse_placement_attr(parser)
        attrs, ty = _parse_trailer(parser)
        op = cls(parser.resolve_operand(operand, ty), nd, placement)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_string(" to ")
        printer.print_attribute(self.nd_sbp)
        if self.placement is not None:
            printer.print_string(" on ")
            printer.print_attribute(self.placement)
        _print_trailer(printer, self)


def _change(src: Sbp, dst: Sbp) -> str:
    return f"{src} -> {dst}"


class CollectiveOp(_LayoutOp, ABC):
    """One boxing step on the hierarchy ``dims`` it names, within a placement.

    ``%1 = sbp.all_gather %0 dims [1] from [S(0), S(1)] to [S(0), B] : tensor<..>``
    (optionally ``on #sbp.placement<...>`` before the attribute dictionary).

    Every dim in ``dims`` makes the same change ``from[d] -> to[d]``, of the
    kind the op stands for; the others are unchanged.  Several dims form one
    device group, ordered as the hierarchy (major dim first), as JAX does with
    a tuple of axis names.  A changed split must be the innermost split of its
    tensor dimension (no unchanged later dim splits it too): otherwise the
    blocks devices hold are not contiguous and one plain collective cannot do
    it (``[S(0), S(0)] -> [B, S(0)]`` is not an all_gather on dim 0).
    """

    dims = prop_def(DenseArrayBase.constr(i64))
    from_sbp = prop_def(NdSbpAttr)
    to_sbp = prop_def(NdSbpAttr)
    placement = opt_prop_def(PlacementAttr)

    # What one changed entry must look like, for messages.
    CHANGE_TEXT: ClassVar[str] = ""

    def __init__(
        self,
        input: SSAValue | Operation,
        dims: Iterable[int],
        from_sbp: NdSbpAttr | NdSbp | Sequence[Sbp],
        to_sbp: NdSbpAttr | NdSbp | Sequence[Sbp],
        placement: PlacementAttr | Placement | None = None,
    ) -> None:
        value = SSAValue.get(input)
        props: dict[str, Attribute | None] = {
            "dims": DenseArrayBase.from_list(i64, list(dims)),
            "from_sbp": _nd_attr(from_sbp),
            "to_sbp": _nd_attr(to_sbp),
            "placement": _placement_attr(placement),
        }
        super().__init__(operands=[value], result_types=[value.type], properties=props)

    @property
    def dim_list(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.dims.get_values())

    @staticmethod
    def fits(src: Sbp, dst: Sbp) -> bool:
        """Whether one entry changing ``src -> dst`` is this op's kind of step."""
        raise NotImplementedError

    def _verify_layouts(self, placement: Placement | None) -> None:
        src, dst = self.from_sbp.nd_sbp, self.to_sbp.nd_sbp
        ty = self.input.type
        _check_steps(self.name, self.CHANGE_TEXT, self.fits, self.dim_list, src, dst)
        _check_layout(src, ty, placement, f"{self.name} from")
        _check_layout(dst, ty, placement, f"{self.name} to")
        _check_operand_layout(self, src)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operand = parser.parse_unresolved_operand()
        parser.parse_keyword(
            "dims", f" in {cls.name} %x dims [...] from [...] to [...]"
        )
        dims = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE,
            lambda: parser.parse_integer(allow_boolean=False),
            " in the list of hierarchy dims",
        )
        parser.parse_keyword("from", " before the source nd_sbp")
        src = parse_nd_sbp_list(parser)
        parser.parse_keyword("to", " before the target nd_sbp")
        dst = parse_nd_sbp_list(parser)
        placement = None
        if parser.parse_optional_keyword("on") is not None:
            placement = _parse_placement_attr(parser)
        attrs, ty = _parse_trailer(parser)
        op = cls(parser.resolve_operand(operand, ty), dims, src, dst, placement)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_string(f" dims {list(self.dim_list)} from ")
        print_nd_sbp_list(printer, self.from_sbp.nd_sbp)
        printer.print_string(" to ")
        print_nd_sbp_list(printer, self.to_sbp.nd_sbp)
        if self.placement is not None:
            printer.print_string(" on ")
            printer.print_attribute(self.placement)
        _print_trailer(printer, self)


def _check_steps(
    name: str,
    change_text: str,
    fits,
    dims: Sequence[int],
    src: NdSbp,
    dst: NdSbp,
) -> None:
    """The per-dim change of a collective: see ``CollectiveOp``."""
    if len(src) != len(dst):
        raise _Invalid(
            f"{name}: from {format_nd_sbp(src)} and to {format_nd_sbp(dst)} differ "
            "in length"
        )
    n = len(src)
    if not dims:
        raise _Invalid(f"{name} needs at least one hierarchy dim in 'dims'")
    for d in dims:
        if not 0 <= d < n:
            raise _Invalid(
                f"{name}: hierarchy dim {d} is out of range for a {n}-entry nd_sbp"
            )
    if len(set(dims)) != len(dims):
        dup = next(d for d in dims if dims.count(d) > 1)
        raise _Invalid(f"{name}: hierarchy dim {dup} is listed twice in 'dims'")
    if list(dims) != sorted(dims):
        raise _Invalid(f"{name}: 'dims' must be listed in increasing order")
    for d in range(n):
        if d not in dims and src[d] != dst[d]:
            raise _Invalid(
                f"{name}: hierarchy dim {d} is not in 'dims' but changes "
                f"{_change(src[d], dst[d])}"
            )
    for d in dims:
        if not fits(src[d], dst[d]):
            raise _Invalid(
                f"{name} changes {_change(src[d], dst[d])} on hierarchy dim {d}, "
                f"expected {change_text}"
            )
    first = dims[0]
    for d in dims[1:]:
        if (src[d], dst[d]) != (src[first], dst[first]):
            raise _Invalid(
                f"{name}: every dim in 'dims' must make the same change, got "
                f"{_change(src[first], dst[first])} on dim {first} but "
                f"{_change(src[d], dst[d])} on dim {d}; use one op per change"
            )
    for d in dims:
        axes = {s.axis for s in (src[d], dst[d]) if isinstance(s, Split)}
        for later in range(d + 1, n):
            s = src[later]
            if later not in dims and isinstance(s, Split) and s.axis in axes:
                raise _Invalid(
                    f"{name} on hierarchy dim {d} changes how tensor dimension "
                    f"{s.axis} is split, but hierarchy dim {later} splits it "
                    f"further ({format_nd_sbp(src)} -> {format_nd_sbp(dst)}); "
                    f"change hierarchy dim {later} first"
                )


def _check_operand_layout(op: CollectiveOp | TransferOp, src: NdSbp) -> None:
    known = value_layout(op.input)
    if known is not None and known != src:
        raise _Invalid(
            f"{op.name} expects its operand as {format_nd_sbp(src)}, but it is "
            f"{format_nd_sbp(known)}"
        )


@irdl_op_definition
class AllGatherOp(CollectiveOp):
    """``S(i) -> B`` on ``dims``: every device gets the whole of each block."""

    name = "sbp.all_gather"
    CHANGE_TEXT: ClassVar[str] = "S(i) -> B"

    @staticmethod
    def fits(src: Sbp, dst: Sbp) -> bool:
        return isinstance(src, Split) and isinstance(dst, Broadcast)


@irdl_op_definition
class AllReduceOp(CollectiveOp):
    """``P(kind) -> B`` on ``dims``; ``kind`` (sum, max, min) is the source's."""

    name = "sbp.all_reduce"
    CHANGE_TEXT: ClassVar[str] = "P(sum|max|min) -> B"

    @staticmethod
    def fits(src: Sbp, dst: Sbp) -> bool:
        return isinstance(src, Partial) and isinstance(dst, Broadcast)

    @property
    def kind(self) -> PartialKind:
        src = self.from_sbp.nd_sbp[self.dim_list[0]]
        assert isinstance(src, Partial)
        return src.kind


@irdl_op_definition
class ReduceScatterOp(CollectiveOp):
    """``P(kind) -> S(i)`` on ``dims``: reduce, each device keeping its block.

    Any kind: with max/min each device gets the max/min over the group of its
    block (JAX has only ``psum_scatter``; max/min lower to pmax/pmin + slice).
    """

    name = "sbp.reduce_scatter"
    CHANGE_TEXT: ClassVar[str] = "P(sum|max|min) -> S(i)"

    @staticmethod
    def fits(src: Sbp, dst: Sbp) -> bool:
        return isinstance(src, Partial) and isinstance(dst, Split)

    @property
    def kind(self) -> PartialKind:
        src = self.from_sbp.nd_sbp[self.dim_list[0]]
        assert isinstance(src, Partial)
        return src.kind


@irdl_op_definition
class AllToAllOp(CollectiveOp):
    """``S(i) -> S(j)``, ``i != j``, on ``dims``: re-split along another axis."""

    name = "sbp.all_to_all"
    CHANGE_TEXT: ClassVar[str] = "S(i) -> S(j) with i != j"

    @staticmethod
    def fits(src: Sbp, dst: Sbp) -> bool:
        return isinstance(src, Split) and isinstance(dst, Split) and src != dst


@irdl_op_definition
class LocalSliceOp(CollectiveOp):
    """``B -> S(i)`` on ``dims``: each device keeps its block, no communication."""

    name = "sbp.local_slice"
    CHANGE_TEXT: ClassVar[str] = "B -> S(i)"

    @staticmethod
    def fits(src: Sbp, dst: Sbp) -> bool:
        return isinstance(src, Broadcast) and isinstance(dst, Split)


@irdl_op_definition
class LocalToPartialOp(CollectiveOp):
    """``B -> P(kind)`` or ``S(i) -> P(kind)`` on ``dims``, no communication.

    From B one device of each group keeps its copy, the others hold the
    kind's identity (0 for sum, the lowest value for max, the highest for
    min); any copy would do for max/min.  From S(i) each device places its
    block in a full-shape tensor of the identity.
    """

    name = "sbp.local_to_partial"
    CHANGE_TEXT: ClassVar[str] = "B -> P(kind) or S(i) -> P(kind)"

    @staticmethod
    def fits(src: Sbp, dst: Sbp) -> bool:
        return isinstance(src, Broadcast | Split) and isinstance(dst, Partial)


@irdl_op_definition
class TransferOp(_LayoutOp):
    """Move a value between placements, possibly changing its layout.

    ``%2 = sbp.transfer %1 from #sbp.placement<cuda, [0, 1]> [S(0)]
    to #sbp.placement<cuda, [2, 3]> [S(0)] : tensor<8x16xf32>``
    """

    name = "sbp.transfer"

    from_placement = prop_def(PlacementAttr)
    from_sbp = prop_def(NdSbpAttr)
    to_placement = prop_def(PlacementAttr)
    to_sbp = prop_def(NdSbpAttr)

    def __init__(
        self,
        input: SSAValue | Operation,
        from_placement: PlacementAttr | Placement,
        from_sbp: NdSbpAttr | NdSbp | Sequence[Sbp],
        to_placement: PlacementAttr | Placement,
        to_sbp: NdSbpAttr | NdSbp | Sequence[Sbp],
    ) -> None:
        value = SSAValue.get(input)
        props: dict[str, Attribute | None] = {
            "from_placement": _placement_attr(from_placement),
            "from_sbp": _nd_attr(from_sbp),
            "to_placement": _placement_attr(to_placement),
            "to_sbp": _nd_attr(to_sbp),
        }
        super().__init__(operands=[value], result_types=[value.type], properties=props)

    def _verify_layouts(self, placement: Placement | None) -> None:
        src_p = self.from_placement.placement
        dst_p = self.to_placement.placement
        if src_p == dst_p:
            raise _Invalid(
                "sbp.transfer needs two different placements; within one "
                "placement use sbp.cast or the collectives"
            )
        ty = self.input.type
        _check_layout(self.from_sbp.nd_sbp, ty, src_p, "sbp.transfer from")
        _check_layout(self.to_sbp.nd_sbp, ty, dst_p, "sbp.transfer to")
        _check_operand_layout(self, self.from_sbp.nd_sbp)
        here = _resolve(self.input, [_LOCAL_HOPS])
        if here is not None and not here[1] and here[0] != src_p:
            raise _Invalid(
                f"sbp.transfer from {PlacementAttr(src_p)}, but its operand lives "
                f"on {_placement_text(here[0])}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operand = parser.parse_unresolved_operand()
        parser.parse_keyword("from", " in sbp.transfer %x from <placement> [...]")
        src_p = _parse_placement_attr(parser)
        src = parse_nd_sbp_list(parser)
        parser.parse_keyword("to", " before the target placement")
        dst_p = _parse_placement_attr(parser)
        dst = parse_nd_sbp_list(parser)
        attrs, ty = _parse_trailer(parser)
        op = cls(parser.resolve_operand(operand, ty), src_p, src, dst_p, dst)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_string(" from ")
        printer.print_attribute(self.from_placement)
        printer.print_string(" ")
        print_nd_sbp_list(printer, self.from_sbp.nd_sbp)
        printer.print_string(" to ")
        printer.print_attribute(self.to_placement)
        printer.print_string(" ")
        print_nd_sbp_list(printer, self.to_sbp.nd_sbp)
        _print_trailer(printer, self)


COLLECTIVE_OPS: tuple[type[CollectiveOp], ...] = (
    AllGatherOp,
    AllReduceOp,
    ReduceScatterOp,
    AllToAllOp,
    LocalSliceOp,
    LocalToPartialOp,
)


def collective_for(src: Sbp, dst: Sbp) -> type[CollectiveOp] | None:
    """The op that makes one entry's change ``src -> dst`` (None: no change)."""
    if src == dst:
        return None
    for cls in COLLECTIVE_OPS:
        if cls.fits(src, dst):
            return cls
    return None  # P -> P of another kind: not one step


# ---------------------------------------------------------------------------
# Whole-module verification of annotations
# ---------------------------------------------------------------------------


def verify_sbp_annotations(module: ModuleOp) -> None:
    """Check every sbp annotation of ``module``; raise ``LocatedError`` at the op
    at fault (the func.func for argument/result attributes)."""
    for op in module.walk():
        if isinstance(op, ModuleOp) and PLACEMENT in op.attributes:
            attr = op.attributes[PLACEMENT]
            if not isinstance(attr, PlacementAttr):
                raise LocatedError(
                    op,
                    f"{PLACEMENT} on the module must be a #sbp.placement<...> "
                    f"attribute, got {attr}",
                )
    placements = placement_map(module)
    for op in module.walk():
        try:
            if isinstance(op, FuncOp):
                _verify_func(op, placements)
            if isinstance(op, _LayoutOp):
                _verify_layout_op(op, placements)
            if SIG in op.attributes:
                _verify_sig(op, placements)
            elif not isinstance(op, _LayoutOp | ReturnOp):
                _verify_same_placement(op, placements)
        except _Invalid as err:
            raise LocatedError(op, str(err)) from err


def _need_placement(op: Operation, placement: Placement | None) -> Placement:
    if placement is None:
        raise _Invalid(NO_PLACEMENT)
    return placement


def _verify_func(func: FuncOp, placements: PlacementMap) -> None:
    inputs = func.function_type.inputs.data
    for i, ty in enumerate(inputs):
        where = f"argument {i}"
        p_attr = get_arg_attr(func, i, PLACEMENT)
        if p_attr is not None and not isinstance(p_attr, PlacementAttr):
            raise _Invalid(
                f"{PLACEMENT} of {where} must be a #sbp.placement<...> attribute, "
                f"got {p_attr}"
            )
        nd_attr = get_arg_attr(func, i, ND_SBP)
        if nd_attr is None:
            continue
        if not isinstance(nd_attr, NdSbpAttr):
            raise _Invalid(
                f"{ND_SBP} of {where} must be an #sbp.nd<[...]> attribute, "
                f"got {nd_attr}"
            )
        placement = _need_placement(func, get_arg_placement(func, i))
        _check_layout(nd_attr.nd_sbp, ty, placement, f"{ND_SBP} of {where}:")
    returned = _returned_values(func)
    for i, ty in enumerate(func.function_type.outputs.data):
        where = f"result {i}"
        p_attr = get_res_attr(func, i, PLACEMENT)
        if p_attr is not None and not isinstance(p_attr, PlacementAttr):
            raise _Invalid(
                f"{PLACEMENT} of {where} must be a #sbp.placement<...> attribute, "
                f"got {p_attr}"
            )
        nd_attr = get_res_attr(func, i, ND_SBP)
        if nd_attr is None:
            continue
        if not isinstance(nd_attr, NdSbpAttr):
            raise _Invalid(
                f"{ND_SBP} of {where} must be an #sbp.nd<[...]> attribute, "
                f"got {nd_attr}"
            )
        if isinstance(p_attr, PlacementAttr):
            placement = p_attr.placement
        elif returned is not None and i < len(returned):
            placement = placements.get(returned[i]) or module_placement(func)
        else:
            placement = module_placement(func)
        placement = _need_placement(func, placement)
        _check_layout(nd_attr.nd_sbp, ty, placement, f"{ND_SBP} of {where}:")


def _returned_values(func: FuncOp) -> Sequence[SSAValue] | None:
    block = func.body.first_block
    if block is None or not isinstance(block.last_op, ReturnOp):
        return None
    return block.last_op.operands


def _verify_sig(op: Operation, placements: PlacementMap) -> None:
    attr = op.attributes[SIG]
    if not isinstance(attr, SignatureAttr):
        raise _Invalid(f"{SIG} must be an #sbp.sig<...> attribute, got {attr}")
    sig = attr.signature
    if len(sig.inputs) != len(op.operands):
        raise _Invalid(
            f"signature has {len(sig.inputs)} operand layouts but the op has "
            f"{len(op.operands)} operands"
        )
    if len(sig.outputs) != len(op.results):
        raise _Invalid(
            f"signature has {len(sig.outputs)} result layouts but the op has "
            f"{len(op.results)} results"
        )
    placement = _need_placement(op, placement_in_force(op, placements))
    _verify_same_placement(op, placements)
    for i, (nd, v) in enumerate(zip(sig.inputs, op.operands, strict=True)):
        _check_layout(nd, v.type, placement, f"signature: layout of operand {i}")
    for i, (nd, v) in enumerate(zip(sig.outputs, op.results, strict=True)):
        _check_layout(nd, v.type, placement, f"signature: layout of result {i}")


def _verify_same_placement(op: Operation, placements: PlacementMap) -> None:
    """An op computes on one placement: all its tensor operands live there
    (constants live wherever they are used)."""
    if not op.results:
        return
    seen: tuple[int, Placement] | None = None
    for i, v in enumerate(op.operands):
        p = placements.get(v)
        if p is None or v in placements.floating or not _is_tensor(v):
            continue
        if seen is None:
            seen = (i, p)
        elif p != seen[1]:
            raise _Invalid(
                f"operands live on different placements: operand {seen[0]} on "
                f"{PlacementAttr(seen[1])}, operand {i} on {PlacementAttr(p)}; "
                "move one with sbp.cast ... on or sbp.transfer"
            )


def _verify_layout_op(op: _LayoutOp, placements: PlacementMap) -> None:
    try:
        op._verify_types()
    except VerifyException as err:
        raise _Invalid(str(err)) from err
    placement = placement_in_force(op, placements)
    if not isinstance(op, TransferOp):
        placement = _need_placement(op, placement)
    if isinstance(op, CollectiveOp) and op.placement is not None:
        here = placements.get(op.input)
        floating = op.input in placements.floating
        if here is not None and not floating and here != op.placement.placement:
            raise _Invalid(
                f"{op.name} on {op.placement}, but its operand lives on "
                f"{PlacementAttr(here)}; move it with sbp.transfer first"
            )
    op._verify_layouts(placement)


SBP = Dialect(
    "sbp",
    [
        CastOp,
        AllGatherOp,
        AllReduceOp,
        ReduceScatterOp,
        AllToAllOp,
        LocalSliceOp,
        LocalToPartialOp,
        TransferOp,
    ],
    [NdSbpAttr, PlacementAttr, SignatureAttr],
)

__all__ = [
    "COLLECTIVE_OPS",
    "ND_SBP",
    "NO_PLACEMENT",
    "PLACEMENT",
    "SBP",
    "SIG",
    "AllGatherOp",
    "AllReduceOp",
    "AllToAllOp",
    "CastOp",
    "CollectiveOp",
    "LocalSliceOp",
    "LocalToPartialOp",
    "NdSbpAttr",
    "PlacementAttr",
    "PlacementMap",
    "ReduceScatterOp",
    "SignatureAttr",
    "TransferOp",
    "collective_for",
    "get_arg_attr",
    "get_arg_placement",
    "get_nd_sbp_arg_attr",
    "get_nd_sbp_res_attr",
    "get_res_attr",
    "get_signature",
    "module_placement",
    "module_placement_attr",
    "parse_nd_sbp_list",
    "parse_sbp_entry",
    "placement_in_force",
    "placement_map",
    "print_nd_sbp_list",
    "set_arg_attr",
    "set_module_placement",
    "set_nd_sbp_arg_attr",
    "set_nd_sbp_res_attr",
    "set_res_attr",
    "set_signature",
    "value_layout",
    "value_placement",
    "verify_sbp_annotations",
]
