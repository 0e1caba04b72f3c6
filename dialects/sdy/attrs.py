"""Shardy's attributes as JAX 0.10 prints them.

- ``#sdy.mesh<["x"=2, "y"=4]>`` (``MeshAttr``), also ``device_ids=[...]``
  and the maximal mesh ``<[], device_ids=[0]>``;
- ``#sdy.sharding<@mesh, [{"x", "y"}, {?}], replicated={"z"}, unreduced={"u"}>``
  (``TensorShardingAttr``): per tensor dimension the axes that split it,
  major first (``DimShardingAttr``, closed ``{...}`` or open ``{..., ?}``,
  an optional priority ``p<N>``), axes that are explicitly replicated, and
  axes over which the value is unreduced (a partial sum, or with
  ``unreduced=max{...}``/``min`` a partial max/min); the mesh is ``@name``
  or inline, ``mesh<[...]>``;
- ``#sdy.sharding_per_value<[<@mesh, ...>, ...]>`` (one per op result);
- ``#sdy<manual_axes{"x", "y"}>``-style axis sets are printed bare,
  ``{"x", "y"}`` (``ManualAxesAttr``).

An axis reference may name a sub-axis (``"x":(1)2``: the size-2 part of
``x`` after a size-1 prefix); it parses so that passes can refuse it with a
location.  Every attribute prints the text it was parsed from, so the ops
can print these stripped (``<@mesh, [...]>``) as Shardy's own formats do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Self

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr, SymbolRefAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


def _ints(values: Sequence[int]) -> ArrayAttr[IntAttr]:
    return ArrayAttr([IntAttr(v) for v in values])


class BodyAttr(ParametrizedAttribute):
    """An attribute whose generic form is ``<body>``: ops print the body bare.

    Shardy's op formats strip the attribute name (and, for axis sets, the
    angle brackets too), so each attribute parses and prints its body alone
    and gets its generic syntax from here.
    """

    @classmethod
    def parse_body(cls, parser: AttrParser) -> Self:
        """The attribute from the text between ``<`` and ``>``."""
        raise NotImplementedError

    def print_body(self, printer: Printer) -> None:
        """The text between ``<`` and ``>``."""
        raise NotImplementedError

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return cls.parse_body(parser).parameters

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            self.print_body(printer)


def _print_axes(printer: Printer, axes: Sequence[AxisRefAttr], open_: bool) -> None:
    printer.print_string("{")
    items = [a.text() for a in axes] + (["?"] if open_ else [])
    printer.print_string(", ".join(items))
    printer.print_string("}")


@irdl_attr_definition
class MeshAttr(BodyAttr):
    """``<["x"=2, "y"=4], device_ids=[...]>``: named axes and their sizes.

    ``device_ids`` empty means the iota order (device ``i`` at mesh position
    ``i``, row-major); parsed iota ids are dropped, as Shardy does.  A mesh
    without axes (maximal) names at most one device, any id.
    """

    name = "sdy.mesh"

    axis_names: ArrayAttr[StringAttr]
    axis_sizes: ArrayAttr[IntAttr]
    device_ids: ArrayAttr[IntAttr]

    def __init__(
        self,
        axes: Sequence[tuple[str, int]],
        device_ids: Sequence[int] = (),
    ) -> None:
        super().__init__(
            ArrayAttr([StringAttr(n) for n, _ in axes]),
            _ints([s for _, s in axes]),
            _ints(device_ids),
        )

    @property
    def axes(self) -> list[tuple[str, int]]:
        return [
            (n.data, s.data)
            for n, s in zip(self.axis_names.data, self.axis_sizes.data, strict=True)
        ]

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(i.data for i in self.device_ids.data)

    def verify(self) -> None:
        names = [n for n, _ in self.axes]
        if len(set(names)) != len(names):
            raise VerifyException(f"sdy.mesh: duplicate axis names in {names}")
        if any(s <= 0 for _, s in self.axes):
            raise VerifyException("sdy.mesh: axis sizes must be positive")
        size = 1
        for _, s in self.axes:
            size *= s
        ids = self.ids
        if not self.axes:  # a maximal mesh: one device, any id
            if len(ids) > 1 or any(i < 0 for i in ids):
                raise VerifyException(
                    "sdy.mesh: a mesh without axes has at most one device id"
                )
            return
        if ids and sorted(ids) != list(range(len(ids))):
            raise VerifyException(
                "sdy.mesh: device_ids must be a permutation of 0..N-1"
            )
        if ids and len(ids) != size:
            raise VerifyException(
                f"sdy.mesh: {len(ids)} device_ids for a mesh of {size} devices"
            )

    @classmethod
    def parse_body(cls, parser: AttrParser) -> Self:
        """``["x"=2, ...]`` then an optional ``, device_ids=[...]``."""

        start = parser.pos

        def axis() -> tuple[str, int]:
            name = parser.parse_str_literal(" (a mesh axis name)")
            parser.parse_punctuation("=", " between a mesh axis name and its size")
            return name, parser.parse_integer(allow_boolean=False)

        axes = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, axis, " in a mesh's axes"
        )
        ids: list[int] = []
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("device_ids")
            parser.parse_punctuation("=")
            ids = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_integer(False)
            )
        # iota is the default order, printed without ids as Shardy does;
        # compared without listing the mesh's devices (2^31 of them, maybe)
        iota = axes and len(ids) == math.prod(s for _, s in axes)
        if iota and ids == list(range(len(ids))):
            ids = []
        try:
            return cls(axes, ids)
        except VerifyException as e:
            parser.raise_error(str(e), start, parser.pos)

    def print_body(self, printer: Printer) -> None:
        axes = ", ".join(f'"{n}"={s}' for n, s in self.axes)
        printer.print_string(f"[{axes}]")
        if self.ids:
            printer.print_string(f", device_ids=[{', '.join(map(str, self.ids))}]")


@irdl_attr_definition
class AxisRefAttr(BodyAttr):
    """``"x"`` or the sub-axis ``"x":(pre)size``; ``sub`` is ``[]`` or ``[pre, size]``."""

    name = "sdy.axis_ref"

    axis: StringAttr
    sub: ArrayAttr[IntAttr]

    def __init__(self, axis: str, sub: Sequence[int] = ()) -> None:
        super().__init__(StringAttr(axis), _ints(sub))

    @property
    def sub_axis(self) -> tuple[int, int] | None:
        vals = tuple(i.data for i in self.sub.data)
        return (vals[0], vals[1]) if vals else None

    def text(self) -> str:
        sub = self.sub_axis
        extra = f":({sub[0]}){sub[1]}" if sub else ""
        return f'"{self.axis.data}"{extra}'

    @classmethod
    def parse_body(cls, parser: AttrParser) -> Self:
        name = parser.parse_str_literal(" (a mesh axis name)")
        if parser.parse_optional_punctuation(":") is None:
            return cls(name)
        parser.parse_punctuation("(", " before a sub-axis pre-size")
        pre = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(")")
        return cls(name, (pre, parser.parse_integer(allow_boolean=False)))

    def print_body(self, printer: Printer) -> None:
        printer.print_string(self.text())


def parse_axis_set(parser: AttrParser) -> list[AxisRefAttr]:
    """``{"x", "y"}``."""
    return parser.parse_comma_separated_list(
        parser.Delimiter.BRACES, lambda: AxisRefAttr.parse_body(parser)
    )


@irdl_attr_definition
class DimShardingAttr(BodyAttr):
    """One tensor dimension: ``{"x", "y"}``, ``{"x", ?}`` (open), ``{}p1``."""

    name = "sdy.dimension_sharding"

    axes: ArrayAttr[AxisRefAttr]
    is_open: IntAttr
    priority: ArrayAttr[IntAttr]  # [] or [p]

    def __init__(
        self,
        axes: Sequence[AxisRefAttr],
        is_open: bool = False,
        priority: int | None = None,
    ) -> None:
        super().__init__(
            ArrayAttr(axes),
            IntAttr(int(is_open)),
            _ints(() if priority is None else (priority,)),
        )

    @property
    def open(self) -> bool:
        return bool(self.is_open.data)

    @classmethod
    def parse_body(cls, parser: AttrParser) -> Self:
        parser.parse_punctuation("{", " to start a dimension sharding")
        axes: list[AxisRefAttr] = []
        is_open = False
        if parser.parse_optional_punctuation("}") is None:
            while True:
                if parser.parse_optional_punctuation("?") is not None:
                    is_open = True
                    break
                axes.append(AxisRefAttr.parse_body(parser))
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation("}", " to close a dimension sharding")
        priority = None
        pos = parser.pos
        word = parser.parse_optional_identifier()
        if word is not None:
            if not (word.startswith("p") and word[1:].isdigit()):
                parser.raise_error(
                    f"expected a priority p<N> after a dimension sharding, got '{word}'",
                    pos,
                    parser.pos,
                )
            priority = int(word[1:])
        return cls(axes, is_open, priority)

    def print_body(self, printer: Printer) -> None:
        _print_axes(printer, self.axes.data, self.open)
        if self.priority.data:
            printer.print_string(f"p{self.priority.data[0].data}")


@irdl_attr_definition
class TensorShardingAttr(BodyAttr):
    """``#sdy.sharding<@mesh, [dims], replicated={...}, unreduced={...}>``.

    ``mesh`` is a ``@name`` of an ``sdy.mesh`` or an inline ``MeshAttr``.
    """

    name = "sdy.sharding"

    mesh: Attribute
    dims: ArrayAttr[DimShardingAttr]
    replicated: ArrayAttr[AxisRefAttr]
    unreduced: ArrayAttr[AxisRefAttr]
    reduction: StringAttr  # how unreduced values combine: sum (default), max, min

    def __init__(
        self,
        mesh: str | MeshAttr | SymbolRefAttr,
        dims: Sequence[DimShardingAttr],
        replicated: Sequence[AxisRefAttr] = (),
        unreduced: Sequence[AxisRefAttr] = (),
        reduction: str = "sum",
    ) -> None:
        if isinstance(mesh, str):
            mesh = SymbolRefAttr(mesh)
        super().__init__(
            mesh,
            ArrayAttr(dims),
            ArrayAttr(replicated),
            ArrayAttr(unreduced),
            StringAttr(reduction),
        )

    def verify(self) -> None:
        if not isinstance(self.mesh, SymbolRefAttr | MeshAttr):
            raise VerifyException(
                f"sdy.sharding: the mesh must be @name or <[...]>, got {self.mesh}"
            )

    @property
    def mesh_name(self) -> str | None:
        if isinstance(self.mesh, SymbolRefAttr):
            return self.mesh.root_reference.data
        return None

    @classmethod
    def parse_body(cls, parser: AttrParser) -> Self:
        """The text between ``<`` and ``>``."""
        symbol = parser.parse_optional_symbol_name()
        if symbol is not None:
            mesh: MeshAttr | SymbolRefAttr = SymbolRefAttr(symbol.data)
        else:
            if parser.parse_optional_keyword("mesh") is None:
                parser.raise_error(
                    "expected @name or mesh<[...]> as the sharding's mesh"
                )
            parser.parse_punctuation("<")
            mesh = MeshAttr.parse_body(parser)
            parser.parse_punctuation(">")
        parser.parse_punctuation(",", " after the sharding's mesh")
        dims = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE,
            lambda: DimShardingAttr.parse_body(parser),
            " in dimension shardings",
        )
        replicated: list[AxisRefAttr] = []
        unreduced: list[AxisRefAttr] = []
        reduction = "sum"
        while parser.parse_optional_punctuation(",") is not None:
            pos = parser.pos
            word = parser.parse_optional_identifier()
            if word not in ("replicated", "unreduced"):
                parser.raise_error(
                    "expected 'replicated' or 'unreduced'", pos, parser.pos
                )
            parser.parse_punctuation("=")
            if word == "unreduced":
                reduction = parser.parse_optional_identifier() or "sum"
            (replicated if word == "replicated" else unreduced).extend(
                parse_axis_set(parser)
            )
        return cls(mesh, dims, replicated, unreduced, reduction)

    def print_body(self, printer: Printer) -> None:
        if isinstance(self.mesh, SymbolRefAttr):
            printer.print_symbol_name(self.mesh.root_reference.data)
        else:
            printer.print_string("mesh<")
            assert isinstance(self.mesh, MeshAttr)
            self.mesh.print_body(printer)
            printer.print_string(">")
        printer.print_string(", [")
        for i, d in enumerate(self.dims.data):
            if i:
                printer.print_string(", ")
            d.print_body(printer)
        printer.print_string("]")
        for word, axes in (
            ("replicated", self.replicated),
            ("unreduced", self.unreduced),
        ):
            if axes.data:
                printer.print_string(f", {word}=")
                if word == "unreduced" and self.reduction.data != "sum":
                    printer.print_string(self.reduction.data)
                _print_axes(printer, axes.data, False)

    @classmethod
    def parse_stripped(cls, parser: AttrParser) -> TensorShardingAttr:
        """``<@mesh, [...]>`` as sdy ops spell it."""
        with parser.in_angle_brackets():
            return cls.parse_body(parser)


def parse_sharding_list(parser: AttrParser) -> list[TensorShardingAttr]:
    """``[<@mesh, ...>, ...]``; an entry may also be spelled in full,
    ``#sdy.sharding<@mesh, ...>``, as Shardy's parser accepts."""

    def one() -> TensorShardingAttr:
        parser.parse_optional_characters("#sdy.sharding")
        return TensorShardingAttr.parse_stripped(parser)

    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)


def print_sharding_list(
    printer: Printer, shardings: Sequence[TensorShardingAttr]
) -> None:
    printer.print_string("[")
    for i, s in enumerate(shardings):
        if i:
            printer.print_string(", ")
        s.print_parameters(printer)
    printer.print_string("]")


@irdl_attr_definition
class TensorShardingPerValueAttr(BodyAttr):
    """``#sdy.sharding_per_value<[<@mesh, ...>, ...]>``: one per op result."""

    name = "sdy.sharding_per_value"

    shardings: ArrayAttr[TensorShardingAttr]

    def __init__(self, shardings: Sequence[TensorShardingAttr]) -> None:
        super().__init__(ArrayAttr(shardings))

    @classmethod
    def parse_body(cls, parser: AttrParser) -> Self:
        return cls(parse_sharding_list(parser))

    def print_body(self, printer: Printer) -> None:
        print_sharding_list(printer, self.shardings.data)


@irdl_attr_definition
class ManualAxesAttr(BodyAttr):
    """``#sdy<manual_axes{"x", "y"}>`` generically; ops print it ``{"x", "y"}``."""

    name = "sdy.manual_axes"

    axes: ArrayAttr[StringAttr]

    def __init__(self, axes: Sequence[str]) -> None:
        super().__init__(ArrayAttr([StringAttr(a) for a in axes]))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(a.data for a in self.axes.data)

    @classmethod
    def parse_body(cls, parser: AttrParser) -> Self:
        return cls(
            parser.parse_comma_separated_list(
                parser.Delimiter.BRACES, lambda: parser.parse_str_literal()
            )
        )

    def print_body(self, printer: Printer) -> None:
        printer.print_string("{" + ", ".join(f'"{a}"' for a in self.names) + "}")
