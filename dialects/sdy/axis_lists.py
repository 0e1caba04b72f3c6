"""The axis lists of Shardy's explicit collectives, as its op formats spell them.

- ``{"x", "y"}`` (``AxisRefListAttr``): the axes an ``sdy.all_reduce``
  reduces over;
- ``[{"x"}, {}]`` (``ListOfAxisRefListsAttr``): per tensor dimension, the
  axes an ``all_gather`` gathers, an ``all_slice`` slices, a
  ``reduce_scatter`` scatters;
- ``[{"x"}: 0->1, ...]`` (``AllToAllParamListAttr``): the axes an
  ``all_to_all`` moves from a source to a target dimension;
- ``max`` (``ReductionAttr``): how an ``all_reduce``/``reduce_scatter``
  combines; absent means ``sum``.

Shardy's formats print these bare (no ``#sdy...<>``), so each attribute's
parameters are its bare text; the ops' declarative formats then read and
write them as Shardy does.  Their generic form is ``#sdy<name text>``,
e.g. ``#sdy<reduction max>``.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from .attrs import AxisRefAttr, parse_axis_set

REDUCTIONS = ("sum", "max", "min")


def axes_text(axes: Sequence[AxisRefAttr]) -> str:
    """``{"x", "y":(1)2}``."""
    return "{" + ", ".join(a.text() for a in axes) + "}"


@irdl_attr_definition
class AxisRefListAttr(SpacedOpaqueSyntaxAttribute, ParametrizedAttribute):
    """``{"x", "y"}``: a list of (sub-)axes."""

    name = "sdy.axis_ref_list"

    axes: ArrayAttr[AxisRefAttr]

    def __init__(self, axes: Sequence[AxisRefAttr]) -> None:
        super().__init__(ArrayAttr(axes))

    @property
    def refs(self) -> tuple[AxisRefAttr, ...]:
        return tuple(self.axes.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return (ArrayAttr(parse_axis_set(parser)),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(axes_text(self.refs))


@irdl_attr_definition
class ListOfAxisRefListsAttr(SpacedOpaqueSyntaxAttribute, ParametrizedAttribute):
    """``[{"x"}, {}]``: one axis list per tensor dimension."""

    name = "sdy.list_of_axis_ref_lists"

    lists: ArrayAttr[AxisRefListAttr]

    def __init__(self, lists: Sequence[Sequence[AxisRefAttr]]) -> None:
        super().__init__(ArrayAttr([AxisRefListAttr(a) for a in lists]))

    @property
    def per_dim(self) -> tuple[tuple[AxisRefAttr, ...], ...]:
        return tuple(a.refs for a in self.lists.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        lists = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE,
            lambda: AxisRefListAttr(parse_axis_set(parser)),
            " in per-dimension axis lists",
        )
        return (ArrayAttr(lists),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("[" + ", ".join(map(axes_text, self.per_dim)) + "]")


@irdl_attr_definition
class AllToAllParamAttr(SpacedOpaqueSyntaxAttribute, ParametrizedAttribute):
    """``{"x"}: 0->1``: the axes moved from dimension 0 to dimension 1."""

    name = "sdy.all_to_all_param"

    axes: ArrayAttr[AxisRefAttr]
    src_dim: IntAttr
    tgt_dim: IntAttr

    def __init__(self, axes: Sequence[AxisRefAttr], src: int, tgt: int) -> None:
        super().__init__(ArrayAttr(axes), IntAttr(src), IntAttr(tgt))

    @property
    def src(self) -> int:
        return self.src_dim.data

    @property
    def tgt(self) -> int:
        return self.tgt_dim.data

    def text(self) -> str:
        return f"{axes_text(self.axes.data)}: {self.src}->{self.tgt}"

    @classmethod
    def parse_one(cls, parser: AttrParser) -> AllToAllParamAttr:
        axes = parse_axis_set(parser)
        parser.parse_punctuation(":", " after an all-to-all parameter's axes")
        src = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation("->", " between source and target dimensions")
        tgt = parser.parse_integer(allow_boolean=False, allow_negative=False)
        return cls(axes, src, tgt)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return cls.parse_one(parser).parameters

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(self.text())


@irdl_attr_definition
class AllToAllParamListAttr(SpacedOpaqueSyntaxAttribute, ParametrizedAttribute):
    """``[{"x"}: 0->2, {"y"}: 1->3]``."""

    name = "sdy.all_to_all_param_list"

    params: ArrayAttr[AllToAllParamAttr]

    def __init__(self, params: Sequence[AllToAllParamAttr]) -> None:
        super().__init__(ArrayAttr(params))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        params = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE,
            lambda: AllToAllParamAttr.parse_one(parser),
            " in all-to-all parameters",
        )
        return (ArrayAttr(params),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("[" + ", ".join(p.text() for p in self.params.data) + "]")


@irdl_attr_definition
class ReductionAttr(SpacedOpaqueSyntaxAttribute, ParametrizedAttribute):
    """``sum`` (the default, printed as nothing), ``max`` or ``min``."""

    name = "sdy.reduction"

    kind: StringAttr

    def __init__(self, kind: str = "sum") -> None:
        super().__init__(StringAttr(kind))

    def verify(self) -> None:
        if self.kind.data not in REDUCTIONS:
            raise VerifyException(
                f"sdy.reduction: '{self.kind.data}' is not one of "
                f"{', '.join(REDUCTIONS)}"
            )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        # Optional in the ops' formats: no keyword here is the default, sum.
        pos = parser.pos
        word = parser.parse_optional_identifier()
        if word is None:
            return (StringAttr("sum"),)
        if word not in REDUCTIONS:
            parser.raise_error(
                f"expected a reduction ({', '.join(REDUCTIONS)}), got '{word}'",
                pos,
                parser.pos,
            )
        return (StringAttr(word),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(self.kind.data)
