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

import functools
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, Generic, Self, TypeVar, cast, overload

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    IntAttr,
    IntegerAttr,
    i64,
)
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import (
    Attribute,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    TypeAttribute,
)
from xdsl.irdl import irdl_attr_definition, opt_prop_def, prop_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from sbpc.ops.dot_algorithm import DotAlgorithm

from .syntax import parse_fields, parse_int_struct, print_int_struct

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


def i64_array_prop(name: str, optional: bool = False) -> Any:
    """An op's ``array<i64: ...>`` property ``name`` (declare it as ``<name>_attr``)."""
    define = opt_prop_def if optional else prop_def
    return define(DenseArrayBase.constr(i64), prop_name=name)


_T = TypeVar("_T")


class _View(property, Generic[_T]):
    """A read-only property: an op's or an attribute's field as a plain value."""

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Self: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> _T: ...

    def __get__(self, obj: object, owner: type | None = None) -> _T | Self:
        return super().__get__(obj, owner)


@functools.cache
def _view_names(cls: type) -> tuple[str, ...]:
    names = [
        name
        for klass in reversed(cls.__mro__)
        for name, value in vars(klass).items()
        if isinstance(value, _View)
    ]
    return tuple(dict.fromkeys(names))


def plain_views(obj: object) -> dict[str, Any]:
    """Every plain view of ``obj``'s class by name, in declaration order (base
    classes first): an op's attributes as plain values."""
    return {name: getattr(obj, name) for name in _view_names(type(obj))}


def ints_view(
    field: str, default: Callable[[Any], tuple[int, ...]] | None = None
) -> _View[tuple[int, ...]]:
    """``field`` (an ``array<i64: ...>`` or an ``ArrayAttr`` of ``IntAttr``) as
    a tuple of ints; ``default(self)`` when the optional field is absent."""

    def get(obj: Any) -> tuple[int, ...]:
        attr = getattr(obj, field)
        if attr is None and default is not None:
            return default(obj)
        return int_tuple(attr)

    return _View(get)


def int_view(field: str) -> _View[int]:
    """``field`` (an ``IntAttr`` or an integer attribute) as an int."""

    def get(obj: Any) -> int:
        attr = getattr(obj, field)
        return attr.data if isinstance(attr, IntAttr) else attr.value.data

    return _View(get)


def flag_view(field: str) -> _View[bool]:
    """The optional integer (boolean) attribute ``field`` as a bool: absent is false."""

    def get(obj: Any) -> bool:
        attr = getattr(obj, field)
        return attr is not None and bool(attr.value.data)

    return _View(get)


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


class FftType(StrEnum):
    FFT = "FFT"
    IFFT = "IFFT"
    RFFT = "RFFT"
    IRFFT = "IRFFT"


class RngAlgorithm(StrEnum):
    DEFAULT = "DEFAULT"
    THREE_FRY = "THREE_FRY"
    PHILOX = "PHILOX"


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


@irdl_attr_definition
class FftTypeAttr(EnumAttribute[FftType], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<fft_type FFT>``."""

    name = "stablehlo.fft_type"


@irdl_attr_definition
class RngAlgorithmAttr(EnumAttribute[RngAlgorithm], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<rng_algorithm DEFAULT>``."""

    name = "stablehlo.rng_algorithm"


# --------------------------------------------------------------------------
# Dimension numbers
# --------------------------------------------------------------------------


class _DimensionNumbers(ParametrizedAttribute):
    """Named dimension lists, then (gather, scatter) ``index_vector_dim``.

    Subclasses name their fields in ``_LISTS`` (dimension lists) then
    ``_INTS`` (single dimensions): each becomes a parameter ``<name>_attr``
    (an ``ArrayAttr`` of ``IntAttr``, an ``IntAttr``), in that order, and a
    plain view ``<name>`` (a tuple of ints, an int).  ``get``, parsing (the
    fields in any order) and printing (non-default fields only) are shared.
    """

    _LISTS: ClassVar[tuple[str, ...]]
    _INTS: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_LISTS" not in cls.__dict__:
            return  # irdl_attr_definition's copy: the fields are in place
        params: dict[str, Any] = {}
        for name in cls._LISTS:
            params[f"{name}_attr"] = ArrayAttr[IntAttr]
            setattr(cls, name, ints_view(f"{name}_attr"))
        for name in cls._INTS:
            params[f"{name}_attr"] = IntAttr
            setattr(cls, name, int_view(f"{name}_attr"))
        cls.__annotations__ = {**inspect.get_annotations(cls), **params}

    @classmethod
    def get(cls, *lists: Sequence[int], **named: Sequence[int] | int) -> Self:
        """From the lists in order, or by name; absent ones are empty (or 0)."""
        unknown = sorted(set(named) - {*cls._LISTS, *cls._INTS})
        if unknown:
            raise TypeError(f"{cls.__name__}.get: unknown fields {unknown}")
        values: dict[str, Any] = dict(zip(cls._LISTS, lists, strict=False)) | named
        params: list[Attribute] = [
            int_array_attr(values.get(k, ())) for k in cls._LISTS
        ]
        params += [IntAttr(values.get(k, 0)) for k in cls._INTS]
        return cls(*params)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        fields = dict.fromkeys(cls._LISTS, "list") | dict.fromkeys(cls._INTS, "int")
        return cls.get(**parse_int_struct(parser, fields)).parameters

    def plain(self) -> dict[str, tuple[int, ...] | int]:
        """The fields under StableHLO's names, as plain values."""
        return {k: getattr(self, k) for k in (*self._LISTS, *self._INTS)}

    def print_parameters(self, printer: Printer) -> None:
        print_int_struct(printer, list(self.plain().items()))


@irdl_attr_definition
class DotDimensionNumbersAttr(_DimensionNumbers):
    """``#stablehlo.dot<lhs_batching_dimensions = [0], ...>``."""

    name = "stablehlo.dot"

    _LISTS: ClassVar[tuple[str, ...]] = (
        "lhs_batching_dimensions",
        "rhs_batching_dimensions",
        "lhs_contracting_dimensions",
        "rhs_contracting_dimensions",
    )


@irdl_attr_definition
class GatherDimensionNumbersAttr(_DimensionNumbers):
    """``#stablehlo.gather<offset_dims = [1], ..., index_vector_dim = 1>``."""

    name = "stablehlo.gather"

    _LISTS: ClassVar[tuple[str, ...]] = (
        "offset_dims",
        "collapsed_slice_dims",
        "operand_batching_dims",
        "start_indices_batching_dims",
        "start_index_map",
    )
    _INTS: ClassVar[tuple[str, ...]] = ("index_vector_dim",)


@irdl_attr_definition
class ScatterDimensionNumbersAttr(_DimensionNumbers):
    """``#stablehlo.scatter<update_window_dims = [1], ..., index_vector_dim = 1>``."""

    name = "stablehlo.scatter"

    _LISTS: ClassVar[tuple[str, ...]] = (
        "update_window_dims",
        "inserted_window_dims",
        "input_batching_dims",
        "scatter_indices_batching_dims",
        "scatter_dims_to_operand_dims",
    )
    _INTS: ClassVar[tuple[str, ...]] = ("index_vector_dim",)


# --------------------------------------------------------------------------
# A product's algorithm
# --------------------------------------------------------------------------

_ALGORITHM_TYPES = ("lhs_precision_type", "rhs_precision_type", "accumulation_type")
_ALGORITHM_INTS = (
    "lhs_component_count",
    "rhs_component_count",
    "num_primitive_operations",
)
_ALGORITHM_FIELDS = (
    *_ALGORITHM_TYPES,
    *_ALGORITHM_INTS,
    "allow_imprecise_accumulation",
)


@irdl_attr_definition
class DotAlgorithmAttr(ParametrizedAttribute):
    """``#stablehlo.dot_algorithm<lhs_precision_type = bf16, rhs_precision_type
    = bf16, accumulation_type = f32, lhs_component_count = 1,
    rhs_component_count = 1, num_primitive_operations = 1,
    allow_imprecise_accumulation = false>``: the types a product's operands are
    rounded to and accumulated in, and how many passes emulate a wider type.
    Every field is required (StableHLO's syntax); they may come in any order.
    """

    name = "stablehlo.dot_algorithm"

    lhs_precision_type: TypeAttribute
    rhs_precision_type: TypeAttribute
    accumulation_type: TypeAttribute
    lhs_component_count: IntAttr
    rhs_component_count: IntAttr
    num_primitive_operations: IntAttr
    allow_imprecise_accumulation: IntAttr

    @classmethod
    def get(cls, algorithm: DotAlgorithm, types: Callable[[str], Attribute]) -> Self:
        """From plain fields; ``types`` reads an element type's name."""
        return cls(
            *(types(getattr(algorithm, k)) for k in _ALGORITHM_TYPES),
            *(IntAttr(getattr(algorithm, k)) for k in _ALGORITHM_INTS),
            IntAttr(int(algorithm.allow_imprecise_accumulation)),
        )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def value(key: str) -> Attribute:
            if key in _ALGORITHM_TYPES:
                return parser.parse_type()
            if key in _ALGORITHM_INTS:
                return IntAttr(parser.parse_integer(allow_boolean=False))
            return IntAttr(int(parser.parse_boolean()))

        values = parse_fields(parser, parser.Delimiter.ANGLE, _ALGORITHM_FIELDS, value)
        missing = [k for k in _ALGORITHM_FIELDS if k not in values]
        if missing:
            parser.raise_error(f"dot_algorithm: missing field(s) {', '.join(missing)}")
        return [values[k] for k in _ALGORITHM_FIELDS]

    def print_parameters(self, printer: Printer) -> None:
        parts = [f"{k} = {getattr(self, k)}" for k in _ALGORITHM_TYPES]
        parts += [f"{k} = {getattr(self, k).data}" for k in _ALGORITHM_INTS]
        imprecise = "true" if self.allow_imprecise_accumulation.data else "false"
        parts.append(f"allow_imprecise_accumulation = {imprecise}")
        printer.print_string("<" + ", ".join(parts) + ">")

    def plain(self) -> DotAlgorithm:
        """The fields as plain data (element types by their MLIR names)."""
        return DotAlgorithm(
            *(str(getattr(self, k)) for k in _ALGORITHM_TYPES),
            *(getattr(self, k).data for k in _ALGORITHM_INTS),
            bool(self.allow_imprecise_accumulation.data),
        )

    def verify(self) -> None:
        for k in _ALGORITHM_INTS:
            if getattr(self, k).data < 1:
                raise VerifyException(
                    f"{self.name}: {k} must be positive, got {getattr(self, k).data}"
                )
        if self.allow_imprecise_accumulation.data not in (0, 1):
            raise VerifyException(
                f"{self.name}: allow_imprecise_accumulation must be a boolean"
            )
        for k in _ALGORITHM_TYPES:
            if not isinstance(getattr(self, k), AnyFloat):
                raise VerifyException(
                    f"{self.name}: {k} must be a floating-point type, "
                    f"got {getattr(self, k)}"
                )
