"""StableHLO's attributes: comparison and precision enums, dimension numbers.

``#stablehlo<comparison_direction GT>``, ``#stablehlo<comparison_type FLOAT>``
and ``#stablehlo<precision DEFAULT>`` are enum attributes; in an op's pretty
syntax only the keyword (``GT``) appears.  ``#stablehlo.dot<...>``,
``#stablehlo.gather<...>`` and ``#stablehlo.scatter<...>`` hold dimension
numbers, print fields that hold their default not at all (as MLIR does), and
give them back as plain tuples (``DotDimensionNumbersAttr.lhs_batching_dimensions
-> tuple[int, ...]``).  The small helpers convert between plain ints and the
builtin attributes ops store them in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar, cast

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntAttr, IntegerAttr, i64
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.str_enum import StrEnum

from .syntax import parse_int_struct, print_int_struct

# --------------------------------------------------------------------------
# Plain ints <-> builtin attributes
# --------------------------------------------------------------------------


def i64_array(values: Iterable[int]) -> DenseArrayBase:
    """``array<i64: ...>``, how StableHLO stores dimension lists on ops."""
    return DenseArrayBase.from_list(i64, tuple(values))


def int_tuple(attr: DenseArrayBase | ArrayAttr) -> tuple[int, ...]:
    """The ints of an ``array<i64: ...>`` or an ``ArrayAttr`` of ``IntAttr``."""
    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())
    return tuple(cast(IntAttr, a).data for a in attr.data)


def int_array_attr(values: Iterable[int]) -> ArrayAttr[IntAttr]:
    """An ``ArrayAttr`` of ``IntAttr``: the storage of dimension-number fields."""
    return ArrayAttr(IntAttr(v) for v in values)


def i64_attr(value: int) -> IntegerAttr:
    """``value : i64``, how StableHLO stores a single dimension on ops."""
    return IntegerAttr(value, i64)


# --------------------------------------------------------------------------
# Enums
# --------------------------------------------------------------------------


class ComparisonDirection(StrEnum):
    EQ = "EQ"
    NE = "NE"
    GE = "GE"
    GT = "GT"
    LE = "LE"
    LT = "LT"


class ComparisonType(StrEnum):
    NOTYPE = "NOTYPE"
    FLOAT = "FLOAT"
    TOTALORDER = "TOTALORDER"
    SIGNED = "SIGNED"
    UNSIGNED = "UNSIGNED"


class Precision(StrEnum):
    DEFAULT = "DEFAULT"
    HIGH = "HIGH"
    HIGHEST = "HIGHEST"


@irdl_attr_definition
class ComparisonDirectionAttr(
    EnumAttribute[ComparisonDirection], SpacedOpaqueSyntaxAttribute
):
    """``#stablehlo<comparison_direction GT>``."""

    name = "stablehlo.comparison_direction"


@irdl_attr_definition
class ComparisonTypeAttr(EnumAttribute[ComparisonType], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<comparison_type FLOAT>``."""

    name = "stablehlo.comparison_type"


@irdl_attr_definition
class PrecisionAttr(EnumAttribute[Precision], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<precision DEFAULT>``."""

    name = "stablehlo.precision"


# --------------------------------------------------------------------------
# Dimension numbers
# --------------------------------------------------------------------------


@irdl_attr_definition
class DotDimensionNumbersAttr(ParametrizedAttribute):
    """``#stablehlo.dot<lhs_batching_dimensions = [0], ...>``."""

    name = "stablehlo.dot"

    lhs_batching_dimensions_attr: ArrayAttr[IntAttr]
    rhs_batching_dimensions_attr: ArrayAttr[IntAttr]
    lhs_contracting_dimensions_attr: ArrayAttr[IntAttr]
    rhs_contracting_dimensions_attr: ArrayAttr[IntAttr]

    _FIELDS: ClassVar[tuple[str, ...]] = (
        "lhs_batching_dimensions",
        "rhs_batching_dimensions",
        "lhs_contracting_dimensions",
        "rhs_contracting_dimensions",
    )

    @classmethod
    def get(
        cls,
        lhs_batching_dimensions: Sequence[int] = (),
        rhs_batching_dimensions: Sequence[int] = (),
        lhs_contracting_dimensions: Sequence[int] = (),
        rhs_contracting_dimensions: Sequence[int] = (),
    ) -> DotDimensionNumbersAttr:
        return cls(
            int_array_attr(lhs_batching_dimensions),
            int_array_attr(rhs_batching_dimensions),
            int_array_attr(lhs_contracting_dimensions),
            int_array_attr(rhs_contracting_dimensions),
        )

    @property
    def lhs_batching_dimensions(self) -> tuple[int, ...]:
        return int_tuple(self.lhs_batching_dimensions_attr)

    @property
    def rhs_batching_dimensions(self) -> tuple[int, ...]:
        return int_tuple(self.rhs_batching_dimensions_attr)

    @property
    def lhs_contracting_dimensions(self) -> tuple[int, ...]:
        return int_tuple(self.lhs_contracting_dimensions_attr)

    @property
    def rhs_contracting_dimensions(self) -> tuple[int, ...]:
        return int_tuple(self.rhs_contracting_dimensions_attr)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        values = parse_int_struct(parser, dict.fromkeys(cls._FIELDS, "list"))
        return [int_array_attr(cast(list[int], values.get(k, ()))) for k in cls._FIELDS]

    def print_parameters(self, printer: Printer) -> None:
        print_int_struct(printer, [(k, getattr(self, k)) for k in self._FIELDS])


class _IndexDimensionNumbers(ParametrizedAttribute):
    """Five dimension lists then ``index_vector_dim``: gather's and scatter's shape.

    Subclasses declare the six parameters in that order and name the lists in
    ``_LISTS``; parsing and printing are shared.
    """

    _LISTS: ClassVar[tuple[str, ...]]

    @property
    def index_vector_dim(self) -> int:
        return cast(IntAttr, self.parameters[-1]).data

    @classmethod
    def _from_values(
        cls, lists: Sequence[Sequence[int]], index_vector_dim: int
    ) -> list[Attribute]:
        params: list[Attribute] = [int_array_attr(v) for v in lists]
        params.append(IntAttr(index_vector_dim))
        return params

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        fields = dict.fromkeys(cls._LISTS, "list") | {"index_vector_dim": "int"}
        values = parse_int_struct(parser, fields)
        lists = [cast(list[int], values.get(k, [])) for k in cls._LISTS]
        return cls._from_values(lists, cast(int, values.get("index_vector_dim", 0)))

    def print_parameters(self, printer: Printer) -> None:
        items: list[tuple[str, Sequence[int] | int]] = [
            (k, getattr(self, k)) for k in self._LISTS
        ]
        items.append(("index_vector_dim", self.index_vector_dim))
        print_int_struct(printer, items)


@irdl_attr_definition
class GatherDimensionNumbersAttr(_IndexDimensionNumbers):
    """``#stablehlo.gather<offset_dims = [1], ..., index_vector_dim = 1>``."""

    name = "stablehlo.gather"

    offset_dims_attr: ArrayAttr[IntAttr]
    collapsed_slice_dims_attr: ArrayAttr[IntAttr]
    operand_batching_dims_attr: ArrayAttr[IntAttr]
    start_indices_batching_dims_attr: ArrayAttr[IntAttr]
    start_index_map_attr: ArrayAttr[IntAttr]
    index_vector_dim_attr: IntAttr

    _LISTS: ClassVar[tuple[str, ...]] = (
        "offset_dims",
        "collapsed_slice_dims",
        "operand_batching_dims",
        "start_indices_batching_dims",
        "start_index_map",
    )

    @classmethod
    def get(
        cls,
        offset_dims: Sequence[int] = (),
        collapsed_slice_dims: Sequence[int] = (),
        operand_batching_dims: Sequence[int] = (),
        start_indices_batching_dims: Sequence[int] = (),
        start_index_map: Sequence[int] = (),
        index_vector_dim: int = 0,
    ) -> GatherDimensionNumbersAttr:
        lists = (
            offset_dims,
            collapsed_slice_dims,
            operand_batching_dims,
            start_indices_batching_dims,
            start_index_map,
        )
        return cls(*cls._from_values(lists, index_vector_dim))

    @property
    def offset_dims(self) -> tuple[int, ...]:
        return int_tuple(self.offset_dims_attr)

    @property
    def collapsed_slice_dims(self) -> tuple[int, ...]:
        return int_tuple(self.collapsed_slice_dims_attr)

    @property
    def operand_batching_dims(self) -> tuple[int, ...]:
        return int_tuple(self.operand_batching_dims_attr)

    @property
    def start_indices_batching_dims(self) -> tuple[int, ...]:
        return int_tuple(self.start_indices_batching_dims_attr)

    @property
    def start_index_map(self) -> tuple[int, ...]:
        return int_tuple(self.start_index_map_attr)


@irdl_attr_definition
class ScatterDimensionNumbersAttr(_IndexDimensionNumbers):
    """``#stablehlo.scatter<update_window_dims = [1], ..., index_vector_dim = 1>``."""

    name = "stablehlo.scatter"

    update_window_dims_attr: ArrayAttr[IntAttr]
    inserted_window_dims_attr: ArrayAttr[IntAttr]
    input_batching_dims_attr: ArrayAttr[IntAttr]
    scatter_indices_batching_dims_attr: ArrayAttr[IntAttr]
    scatter_dims_to_operand_dims_attr: ArrayAttr[IntAttr]
    index_vector_dim_attr: IntAttr

    _LISTS: ClassVar[tuple[str, ...]] = (
        "update_window_dims",
        "inserted_window_dims",
        "input_batching_dims",
        "scatter_indices_batching_dims",
        "scatter_dims_to_operand_dims",
    )

    @classmethod
    def get(
        cls,
        update_window_dims: Sequence[int] = (),
        inserted_window_dims: Sequence[int] = (),
        input_batching_dims: Sequence[int] = (),
        scatter_indices_batching_dims: Sequence[int] = (),
        scatter_dims_to_operand_dims: Sequence[int] = (),
        index_vector_dim: int = 0,
    ) -> ScatterDimensionNumbersAttr:
        lists = (
            update_window_dims,
            inserted_window_dims,
            input_batching_dims,
            scatter_indices_batching_dims,
            scatter_dims_to_operand_dims,
        )
        return cls(*cls._from_values(lists, index_vector_dim))

    @property
    def update_window_dims(self) -> tuple[int, ...]:
        return int_tuple(self.update_window_dims_attr)

    @property
    def inserted_window_dims(self) -> tuple[int, ...]:
        return int_tuple(self.inserted_window_dims_attr)

    @property
    def input_batching_dims(self) -> tuple[int, ...]:
        return int_tuple(self.input_batching_dims_attr)

    @property
    def scatter_indices_batching_dims(self) -> tuple[int, ...]:
        return int_tuple(self.scatter_indices_batching_dims_attr)

    @property
    def scatter_dims_to_operand_dims(self) -> tuple[int, ...]:
        return int_tuple(self.scatter_dims_to_operand_dims_attr)
