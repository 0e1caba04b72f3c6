"""The sbp ops: ``sbp.cast`` and the one-step boxing ops.

Types are logical (global); operand and result types are equal.

- ``sbp.cast``: force a layout (OneFlow's ``to_global``), optionally onto
  another placement; ``sbp-lower-boxing`` turns it into the ops below.
- One-step boxing ops, each acting on the hierarchy ``dims`` it names:
  ``sbp.all_gather`` (S -> B), ``sbp.all_reduce`` (P -> B),
  ``sbp.reduce_scatter`` (P -> S), ``sbp.all_to_all`` (S(i) -> S(j)),
  ``sbp.local_slice`` (B -> S, no communication), ``sbp.local_to_partial``
  (B or S -> P, no communication) and ``sbp.transfer`` (between placements).

Their syntax is sbp's own (not JAX's), with hand-written parsers whose
errors say what was expected where.  Each op's verifier checks its layouts
against the placement it can find within a few hops of dataflow;
``verify_sbp_annotations`` checks the rest with the whole module in view.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Self, cast

from xdsl.dialects.builtin import DenseArrayBase, TensorType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import (
    NdSbp,
    Partial,
    PartialKind,
    Sbp,
    format_nd_sbp,
)
from sbpc.boxing.collective_kind import CollectiveKind, makes, split_further

from .attrs import NdSbpAttr, PlacementAttr, parse_nd_sbp_list, print_nd_sbp_list
from .checks import InvalidLayout, check_layout, placement_text
from .placement import (
    LayoutOpInterface,
    resolve_placement,
    value_layout,
    value_placement,
)


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


# How far an op's own verifier follows the dataflow to find its placement;
# beyond, it skips the placement checks (verify_sbp_annotations makes them).
_LOCAL_HOPS = 8


class _OwnLayout(LayoutOpInterface):
    """``LayoutOpInterface`` of the sbp ops: each op knows its own."""

    def result_layout(self, op: Operation) -> NdSbp:
        return cast(LayoutOp, op).result_layout()

    def named_placement(self, op: Operation) -> Placement | None:
        return cast(LayoutOp, op).named_placement()


class LayoutOp(IRDLOperation, ABC):
    """Shared shape of the sbp ops: one tensor in, the same tensor type out.

    Their syntax is ``%r = sbp.<op> %x <layouts> attr-dict : type``; each op
    parses and prints its ``<layouts>`` (``parse_layouts`` gives the
    builder's arguments after the operand).
    """

    input = operand_def(TensorType)
    output = result_def(TensorType)

    traits = traits_def(Pure(), _OwnLayout())

    def _build(
        self, input: SSAValue | Operation, properties: dict[str, Attribute | None]
    ) -> None:
        value = SSAValue.get(input)
        super().__init__(
            operands=[value], result_types=[value.type], properties=properties
        )

    def result_layout(self) -> NdSbp:
        """The layout of the result."""
        raise NotImplementedError

    def named_placement(self) -> Placement | None:
        """The placement the op puts its result on, None when it names none."""
        raise NotImplementedError

    def verify_types(self) -> None:
        if self.input.type != self.output.type:
            raise VerifyException(
                f"result type {self.output.type} differs from operand type "
                f"{self.input.type}: sbp ops change the layout, not the logical type"
            )

    def verify_(self) -> None:
        self.verify_types()
        try:
            self.verify_layouts(self._local_placement())
        except InvalidLayout as err:
            raise VerifyException(str(err)) from err

    def _local_placement(self) -> Placement | None:
        """Placement in force, found cheaply (None when unknown here)."""
        own = self.named_placement()
        if own is not None:
            return own
        return value_placement(self.input, max_hops=_LOCAL_HOPS)

    def verify_layouts(self, placement: Placement | None) -> None:
        """Checks given the placement in force (None: unknown, skip those)."""
        raise NotImplementedError

    def _check_operand_layout(self, src: NdSbp) -> None:
        """The layout the op expects its operand in is the one it has."""
        known = value_layout(self.input)
        if known is not None and known != src:
            raise InvalidLayout(
                f"{self.name} expects its operand as {format_nd_sbp(src)}, but it is "
                f"{format_nd_sbp(known)}"
            )

    @classmethod
    def parse_layouts(cls, parser: Parser) -> tuple[Any, ...]:
        """The builder's arguments after the operand, from the layouts' text."""
        raise NotImplementedError

    def print_layouts(self, printer: Printer) -> None:
        """The layouts' text, after the operand."""
        raise NotImplementedError

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operand = parser.parse_unresolved_operand()
        layouts = cls.parse_layouts(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":", " before the tensor type")
        op = cls(parser.resolve_operand(operand, parser.parse_type()), *layouts)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        self.print_layouts(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)


class PlacedOp(LayoutOp, ABC):
    """A layout op within one placement, optionally named by a trailing
    ``on #sbp.placement<...>``."""

    placement = opt_prop_def(PlacementAttr)

    def named_placement(self) -> Placement | None:
        return None if self.placement is None else self.placement.placement

    @staticmethod
    def parse_on(parser: Parser) -> PlacementAttr | None:
        if parser.parse_optional_keyword("on") is None:
            return None
        return _parse_placement_attr(parser)

    def print_on(self, printer: Printer) -> None:
        if self.placement is not None:
            printer.print_string(" on ")
            printer.print_attribute(self.placement)


@irdl_op_definition
class CastOp(PlacedOp):
    """Force a value's layout (OneFlow's ``to_global``), optionally moving it.

    ``%1 = sbp.cast %0 to #sbp.nd<[B, S(1)]> : tensor<8x16xf32>``
    ``%1 = sbp.cast %0 to #sbp.nd<[S(0)]> on #sbp.placement<cuda, [2, 3]> : ...``
    """

    name = "sbp.cast"

    nd_sbp = prop_def(NdSbpAttr)

    def __init__(
        self,
        input: SSAValue | Operation,
        nd_sbp: NdSbpAttr | NdSbp | Sequence[Sbp],
        placement: PlacementAttr | Placement | None = None,
    ) -> None:
        self._build(
            input,
            {"nd_sbp": _nd_attr(nd_sbp), "placement": _placement_attr(placement)},
        )

    def result_layout(self) -> NdSbp:
        return self.nd_sbp.nd_sbp

    def verify_layouts(self, placement: Placement | None) -> None:
        check_layout(self.nd_sbp.nd_sbp, self.input.type, placement, "sbp.cast to")

    @classmethod
    def parse_layouts(cls, parser: Parser) -> tuple[Any, ...]:
        parser.parse_keyword("to", " in sbp.cast %x to #sbp.nd<[...]>")
        return _parse_nd_attr(parser), cls.parse_on(parser)

    def print_layouts(self, printer: Printer) -> None:
        printer.print_string(" to ")
        printer.print_attribute(self.nd_sbp)
        self.print_on(printer)


# What one changed entry of each kind must look like, for messages.
_CHANGE_TEXT = {
    CollectiveKind.ALL_GATHER: "S(i) -> B",
    CollectiveKind.ALL_REDUCE: "P(sum|max|min) -> B",
    CollectiveKind.REDUCE_SCATTER: "P(sum|max|min) -> S(i)",
    CollectiveKind.ALL_TO_ALL: "S(i) -> S(j) with i != j",
    CollectiveKind.LOCAL_SLICE: "B -> S(i)",
    CollectiveKind.LOCAL_TO_PARTIAL: "B -> P(kind) or S(i) -> P(kind)",
}


def _change(src: Sbp, dst: Sbp) -> str:
    return f"{src} -> {dst}"


class CollectiveOp(PlacedOp, ABC):
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

    def __init__(
        self,
        input: SSAValue | Operation,
        dims: Iterable[int],
        from_sbp: NdSbpAttr | NdSbp | Sequence[Sbp],
        to_sbp: NdSbpAttr | NdSbp | Sequence[Sbp],
        placement: PlacementAttr | Placement | None = None,
    ) -> None:
        self._build(
            input,
            {
                "dims": DenseArrayBase.from_list(i64, list(dims)),
                "from_sbp": _nd_attr(from_sbp),
                "to_sbp": _nd_attr(to_sbp),
                "placement": _placement_attr(placement),
            },
        )

    def result_layout(self) -> NdSbp:
        return self.to_sbp.nd_sbp

    @property
    def dim_list(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.dims.get_values())

    @classmethod
    def step_kind(cls) -> CollectiveKind:
        """The boxing step the op makes: its name is ``sbp.<kind>``."""
        return CollectiveKind(cls.name.removeprefix("sbp."))

    @classmethod
    def fits(cls, src: Sbp, dst: Sbp) -> bool:
        """Whether one entry changing ``src -> dst`` is this op's kind of step."""
        return makes(cls.step_kind(), src, dst)

    def verify_layouts(self, placement: Placement | None) -> None:
        src, dst = self.from_sbp.nd_sbp, self.to_sbp.nd_sbp
        ty = self.input.type
        change = _CHANGE_TEXT[self.step_kind()]
        _check_steps(self.name, change, self.fits, self.dim_list, src, dst)
        check_layout(src, ty, placement, f"{self.name} from")
        check_layout(dst, ty, placement, f"{self.name} to")
        self._check_operand_layout(src)

    @classmethod
    def parse_layouts(cls, parser: Parser) -> tuple[Any, ...]:
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
        return dims, src, parse_nd_sbp_list(parser), cls.parse_on(parser)

    def print_layouts(self, printer: Printer) -> None:
        printer.print_string(f" dims {list(self.dim_list)} from ")
        print_nd_sbp_list(printer, self.from_sbp.nd_sbp)
        printer.print_string(" to ")
        print_nd_sbp_list(printer, self.to_sbp.nd_sbp)
        self.print_on(printer)


def _check_steps(
    name: str,
    change_text: str,
    fits: Callable[[Sbp, Sbp], bool],
    dims: Sequence[int],
    src: NdSbp,
    dst: NdSbp,
) -> None:
    """The per-dim change of a collective: see ``CollectiveOp``."""
    if len(src) != len(dst):
        raise InvalidLayout(
            f"{name}: from {format_nd_sbp(src)} and to {format_nd_sbp(dst)} differ "
            "in length"
        )
    n = len(src)
    if not dims:
        raise InvalidLayout(f"{name} needs at least one hierarchy dim in 'dims'")
    for d in dims:
        if not 0 <= d < n:
            raise InvalidLayout(
                f"{name}: hierarchy dim {d} is out of range for a {n}-entry nd_sbp"
            )
    if len(set(dims)) != len(dims):
        dup = next(d for d in dims if dims.count(d) > 1)
        raise InvalidLayout(f"{name}: hierarchy dim {dup} is listed twice in 'dims'")
    if list(dims) != sorted(dims):
        raise InvalidLayout(f"{name}: 'dims' must be listed in increasing order")
    for d in range(n):
        if d not in dims and src[d] != dst[d]:
            raise InvalidLayout(
                f"{name}: hierarchy dim {d} is not in 'dims' but changes "
                f"{_change(src[d], dst[d])}"
            )
    for d in dims:
        if not fits(src[d], dst[d]):
            raise InvalidLayout(
                f"{name} changes {_change(src[d], dst[d])} on hierarchy dim {d}, "
                f"expected {change_text}"
            )
    first = dims[0]
    for d in dims[1:]:
        if (src[d], dst[d]) != (src[first], dst[first]):
            raise InvalidLayout(
                f"{name}: every dim in 'dims' must make the same change, got "
                f"{_change(src[first], dst[first])} on dim {first} but "
                f"{_change(src[d], dst[d])} on dim {d}; use one op per change"
            )
    for d in dims:
        further = split_further(src, dst, dims, d)
        if further is not None:
            later, axis = further
            raise InvalidLayout(
                f"{name} on hierarchy dim {d} changes how tensor dimension "
                f"{axis} is split, but hierarchy dim {later} splits it "
                f"further ({format_nd_sbp(src)} -> {format_nd_sbp(dst)}); "
                f"change hierarchy dim {later} first"
            )


@irdl_op_definition
class AllGatherOp(CollectiveOp):
    """``S(i) -> B`` on ``dims``: every device gets the whole of each block."""

    name = "sbp.all_gather"


class _ReductionOp(CollectiveOp, ABC):
    """A collective that combines partial pieces, of the source's kind."""

    @property
    def kind(self) -> PartialKind:
        src = self.from_sbp.nd_sbp[self.dim_list[0]]
        assert isinstance(src, Partial)
        return src.kind


@irdl_op_definition
class AllReduceOp(_ReductionOp):
    """``P(kind) -> B`` on ``dims``; ``kind`` (sum, max, min) is the source's."""

    name = "sbp.all_reduce"


@irdl_op_definition
class ReduceScatterOp(_ReductionOp):
    """``P(kind) -> S(i)`` on ``dims``: reduce, each device keeping its block.

    Any kind: with max/min each device gets the max/min over the group of its
    block (JAX has only ``psum_scatter``; max/min lower to pmax/pmin + slice).
    """

    name = "sbp.reduce_scatter"


@irdl_op_definition
class AllToAllOp(CollectiveOp):
    """``S(i) -> S(j)``, ``i != j``, on ``dims``: re-split along another axis."""

    name = "sbp.all_to_all"

    @classmethod
    def fits(cls, src: Sbp, dst: Sbp) -> bool:
        return super().fits(src, dst) and src != dst


@irdl_op_definition
class LocalSliceOp(CollectiveOp):
    """``B -> S(i)`` on ``dims``: each device keeps its block, no communication."""

    name = "sbp.local_slice"


@irdl_op_definition
class LocalToPartialOp(CollectiveOp):
    """``B -> P(kind)`` or ``S(i) -> P(kind)`` on ``dims``, no communication.

    From B one device of each group keeps its copy, the others hold the
    kind's identity (0 for sum, the lowest value for max, the highest for
    min); any copy would do for max/min.  From S(i) each device places its
    block in a full-shape tensor of the identity.
    """

    name = "sbp.local_to_partial"


@irdl_op_definition
class TransferOp(LayoutOp):
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
        self._build(
            input,
            {
                "from_placement": _placement_attr(from_placement),
                "from_sbp": _nd_attr(from_sbp),
                "to_placement": _placement_attr(to_placement),
                "to_sbp": _nd_attr(to_sbp),
            },
        )

    def result_layout(self) -> NdSbp:
        return self.to_sbp.nd_sbp

    def named_placement(self) -> Placement | None:
        return self.to_placement.placement

    def verify_layouts(self, placement: Placement | None) -> None:
        src_p = self.from_placement.placement
        dst_p = self.to_placement.placement
        if src_p == dst_p:
            raise InvalidLayout(
                "sbp.transfer needs two different placements; within one "
                "placement use sbp.cast or the collectives"
            )
        ty = self.input.type
        check_layout(self.from_sbp.nd_sbp, ty, src_p, "sbp.transfer from")
        check_layout(self.to_sbp.nd_sbp, ty, dst_p, "sbp.transfer to")
        self._check_operand_layout(self.from_sbp.nd_sbp)
        here = resolve_placement(self.input, [_LOCAL_HOPS])
        if here is not None and not here[1] and here[0] != src_p:
            raise InvalidLayout(
                f"sbp.transfer from {PlacementAttr(src_p)}, but its operand lives "
                f"on {placement_text(here[0])}"
            )

    @classmethod
    def parse_layouts(cls, parser: Parser) -> tuple[Any, ...]:
        parser.parse_keyword("from", " in sbp.transfer %x from <placement> [...]")
        src_p = _parse_placement_attr(parser)
        src = parse_nd_sbp_list(parser)
        parser.parse_keyword("to", " before the target placement")
        return src_p, src, _parse_placement_attr(parser), parse_nd_sbp_list(parser)

    def print_layouts(self, printer: Printer) -> None:
        for word, placement, nd in (
            ("from", self.from_placement, self.from_sbp),
            ("to", self.to_placement, self.to_sbp),
        ):
            printer.print_string(f" {word} ")
            printer.print_attribute(placement)
            printer.print_string(" ")
            print_nd_sbp_list(printer, nd.nd_sbp)


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
