"""The StableHLO subset that JAX emits for real models, as an xDSL dialect.

xDSL 0.74 ships no ``stablehlo`` dialect. This one reads both spellings MLIR
has for every op:

* the pretty form that ``jax.jit(f).lower(*args).as_text()`` prints, e.g.
  ``%0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], ...``;
* the generic form ``"stablehlo.add"(%a, %b) : (...) -> ...`` with
  ``<{...}>`` properties and the ``#stablehlo.dot<...>``,
  ``#stablehlo.gather<...>``, ``#stablehlo<comparison_direction GT>``,
  ``#stablehlo<comparison_type FLOAT>`` and ``#stablehlo<precision DEFAULT>``
  attributes,

and prints the pretty form exactly as MLIR (and so JAX) prints it, constants
included (see ``_mlir_text``), so printed text re-parses to identical text.
``stablehlo.gather`` and ``stablehlo.scatter`` (with its
``#stablehlo.scatter<...>`` dimension numbers and combiner region) have no
custom syntax in StableHLO either: they print in the generic form, exactly
as JAX does.

Every op verifies shapes and element types and reports a problem as a
``VerifyException`` whose message starts with the op name, e.g.
``stablehlo.dot_general: contracting dimension sizes differ: 16 vs 8``.

Python accessors return plain values (``DotGeneralOp.lhs_contracting_dimensions
-> tuple[int, ...]``, ``CompareOp.comparison_direction -> str``,
``ReduceOp.reduction_kind -> "add" | "max" | ... | None``); the underlying
attributes are the ``*_attr`` fields. Elementwise ops carry the
``Elementwise`` trait so passes can treat them alike.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, cast

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    i1,
    i64,
)
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    SameVariadicOperandSize,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    Commutative,
    ConstantLike,
    IsTerminator,
    OpTrait,
    Pure,
    RecursiveMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from . import _xdsl_fixes
from ._mlir_text import format_dense

# JAX writes -inf as dense<0xFF800000>; xDSL 0.74 misreads that without this.
_xdsl_fixes.install()


# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------


def _tensor(value: SSAValue | Attribute) -> TensorType:
    """The ranked tensor type of a value (or the type itself)."""
    type_ = value.type if isinstance(value, SSAValue) else value
    if not isinstance(type_, TensorType):
        raise VerifyException(f"expected a ranked tensor, got {type_}")
    return cast(TensorType, type_)


def _shape(value: SSAValue | Attribute) -> tuple[int, ...]:
    return tuple(_tensor(value).get_shape())


def _element(value: SSAValue | Attribute) -> Attribute:
    return _tensor(value).get_element_type()


def _i64_array(values: Iterable[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, tuple(values))


def _ints(attr: DenseArrayBase | ArrayAttr) -> tuple[int, ...]:
    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())
    return tuple(cast(IntAttr, a).data for a in attr.data)


def _int_array_attr(values: Iterable[int]) -> ArrayAttr[IntAttr]:
    return ArrayAttr(IntAttr(v) for v in values)


def _i64_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


def _dims_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _check_unique_in_range(op: str, what: str, dims: Sequence[int], rank: int) -> None:
    for d in dims:
        if not 0 <= d < rank:
            raise VerifyException(f"{op}: {what} {d} is out of range for rank {rank}")
    if len(set(dims)) != len(dims):
        raise VerifyException(f"{op}: {what}s are not unique: {_dims_text(dims)}")


# Parsing ------------------------------------------------------------------


def _parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """``%a, %b, ...`` (at least one)."""
    operands = [parser.parse_unresolved_operand()]
    while parser.parse_optional_punctuation(",") is not None:
        operands.append(parser.parse_unresolved_operand())
    return operands


def _parse_trailing_operands(parser: Parser) -> list[UnresolvedOperand]:
    """``%a, %b,`` -- operands each followed by a comma, until a non-operand."""
    operands: list[UnresolvedOperand] = []
    while (operand := parser.parse_optional_unresolved_operand()) is not None:
        operands.append(operand)
        parser.parse_punctuation(",")
    return operands


def _parse_int_list(parser: AttrParser) -> list[int]:
    """``[1, 2, 3]`` or ``[]``."""
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
    )


def _parse_keyword_list(parser: Parser, keyword: str) -> list[int]:
    """``keyword = [1, 2]``."""
    parser.parse_keyword(keyword)
    parser.parse_punctuation("=")
    return _parse_int_list(parser)


def _parse_type_or_function(parser: Parser) -> Attribute:
    if (function := parser.parse_optional_function_type()) is not None:
        return function
    return parser.parse_type()


def _parse_function_type(parser: Parser) -> FunctionType:
    return parser.parse_function_type()


def _resolve(
    parser: Parser, operands: Sequence[UnresolvedOperand], types: Sequence[Attribute]
) -> list[SSAValue]:
    return list(parser.resolve_operands(operands, types, parser.pos))


def _parse_same_operands_and_result_type(
    parser: Parser, operands: Sequence[UnresolvedOperand]
) -> tuple[list[SSAValue], Attribute]:
    """StableHLO's ``custom<SameOperandsAndResultType>``: ``T`` or ``(Ts) -> R``."""
    pos = parser.pos
    type_ = _parse_type_or_function(parser)
    if isinstance(type_, FunctionType):
        inputs, outputs = type_.inputs.data, type_.outputs.data
        if len(inputs) != len(operands):
            parser.raise_error(
                f"{len(operands)} operands present, but expected {len(inputs)}", pos
            )
        if len(outputs) != 1:
            parser.raise_error("expected single output", pos)
        return _resolve(parser, operands, inputs), outputs[0]
    return _resolve(parser, operands, [type_] * len(operands)), type_


def _parse_functional_type(
    parser: Parser, operands: Sequence[UnresolvedOperand]
) -> tuple[list[SSAValue], tuple[Attribute, ...]]:
    """``functional-type(operands, results)``."""
    pos = parser.pos
    function = _parse_function_type(parser)
    if len(function.inputs.data) != len(operands):
        parser.raise_error(
            f"expected {len(function.inputs.data)} operand types "
            f"but had {len(operands)}",
            pos,
        )
    return _resolve(parser, operands, function.inputs.data), function.outputs.data


def _single_result(parser: Parser, results: Sequence[Attribute]) -> Attribute:
    if len(results) != 1:
        parser.raise_error(f"expected one result type, got {len(results)}")
    return results[0]


# Printing -----------------------------------------------------------------


def _print_int_list(printer: Printer, values: Iterable[int]) -> None:
    printer.print_string(_dims_text(list(values)))


def _print_operands(printer: Printer, operands: Iterable[SSAValue]) -> None:
    printer.print_list(operands, printer.print_operand)


def _print_attr_dict(printer: Printer, op: Operation) -> None:
    """``attr-dict``: the discardable attributes (properties print elsewhere)."""
    printer.print_op_attributes(op.attributes)


def _print_functional_type(printer: Printer, op: Operation) -> None:
    printer.print_string(" : ")
    printer.print_function_type(op.operand_types, op.result_types)


def _print_same_operands_and_result_type(printer: Printer, op: Operation) -> None:
    printer.print_string(" : ")
    result = op.result_types[0]
    if all(t == result for t in op.operand_types):
        printer.print_attribute(result)
    else:
        printer.print_function_type(op.operand_types, op.result_types)


# --------------------------------------------------------------------------
# Attributes
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


def _parse_struct(
    parser: AttrParser, fields: dict[str, str]
) -> dict[str, list[int] | int]:
    """``<key = [..] or int, ...>`` in any order; ``fields`` maps key -> list|int."""
    values: dict[str, list[int] | int] = {}

    def entry() -> None:
        key = parser.parse_identifier()
        if key not in fields:
            parser.raise_error(f"unknown field '{key}', expected one of {list(fields)}")
        if key in values:
            parser.raise_error(f"duplicate field '{key}'")
        parser.parse_punctuation("=")
        if fields[key] == "list":
            values[key] = _parse_int_list(parser)
        else:
            values[key] = parser.parse_integer(allow_boolean=False)

    parser.parse_punctuation("<")
    if parser.parse_optional_punctuation(">") is None:
        entry()
        while parser.parse_optional_punctuation(",") is not None:
            entry()
        parser.parse_punctuation(">")
    return values


def _print_struct(printer: Printer, items: Sequence[tuple[str, Sequence[int] | int]]):
    """Fields equal to their default (empty list, 0) are left out, as MLIR does."""
    parts = []
    for key, value in items:
        if isinstance(value, int):
            if value:
                parts.append(f"{key} = {value}")
        elif value:
            parts.append(f"{key} = {_dims_text(value)}")
    printer.print_string("<" + ", ".join(parts) + ">")


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
            _int_array_attr(lhs_batching_dimensions),
            _int_array_attr(rhs_batching_dimensions),
            _int_array_attr(lhs_contracting_dimensions),
            _int_array_attr(rhs_contracting_dimensions),
        )

    @property
    def lhs_batching_dimensions(self) -> tuple[int, ...]:
        return _ints(self.lhs_batching_dimensions_attr)

    @property
    def rhs_batching_dimensions(self) -> tuple[int, ...]:
        return _ints(self.rhs_batching_dimensions_attr)

    @property
    def lhs_contracting_dimensions(self) -> tuple[int, ...]:
        return _ints(self.lhs_contracting_dimensions_attr)

    @property
    def rhs_contracting_dimensions(self) -> tuple[int, ...]:
        return _ints(self.rhs_contracting_dimensions_attr)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        values = _parse_struct(parser, dict.fromkeys(cls._FIELDS, "list"))
        return [
            _int_array_attr(cast(list[int], values.get(k, ()))) for k in cls._FIELDS
        ]

    def print_parameters(self, printer: Printer) -> None:
        _print_struct(printer, [(k, getattr(self, k)) for k in self._FIELDS])


@irdl_attr_definition
class GatherDimensionNumbersAttr(ParametrizedAttribute):
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
        return cls(
            _int_array_attr(offset_dims),
            _int_array_attr(collapsed_slice_dims),
            _int_array_attr(operand_batching_dims),
            _int_array_attr(start_indices_batching_dims),
            _int_array_attr(start_index_map),
            IntAttr(index_vector_dim),
        )

    @property
    def offset_dims(self) -> tuple[int, ...]:
        return _ints(self.offset_dims_attr)

    @property
    def collapsed_slice_dims(self) -> tuple[int, ...]:
        return _ints(self.collapsed_slice_dims_attr)

    @property
    def operand_batching_dims(self) -> tuple[int, ...]:
        return _ints(self.operand_batching_dims_attr)

    @property
    def start_indices_batching_dims(self) -> tuple[int, ...]:
        return _ints(self.start_indices_batching_dims_attr)

    @property
    def start_index_map(self) -> tuple[int, ...]:
        return _ints(self.start_index_map_attr)

    @property
    def index_vector_dim(self) -> int:
        return self.index_vector_dim_attr.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        fields = dict.fromkeys(cls._LISTS, "list") | {"index_vector_dim": "int"}
        values = _parse_struct(parser, fields)
        params: list[Attribute] = [
            _int_array_attr(cast(list[int], values.get(k, []))) for k in cls._LISTS
        ]
        params.append(IntAttr(cast(int, values.get("index_vector_dim", 0))))
        return params

    def print_parameters(self, printer: Printer) -> None:
        items: list[tuple[str, Sequence[int] | int]] = [
            (k, getattr(self, k)) for k in self._LISTS
        ]
        items.append(("index_vector_dim", self.index_vector_dim))
        _print_struct(printer, items)


@irdl_attr_definition
class ScatterDimensionNumbersAttr(ParametrizedAttribute):
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
        return cls(
            _int_array_attr(update_window_dims),
            _int_array_attr(inserted_window_dims),
            _int_array_attr(input_batching_dims),
            _int_array_attr(scatter_indices_batching_dims),
            _int_array_attr(scatter_dims_to_operand_dims),
            IntAttr(index_vector_dim),
        )

    @property
    def update_window_dims(self) -> tuple[int, ...]:
        return _ints(self.update_window_dims_attr)

    @property
    def inserted_window_dims(self) -> tuple[int, ...]:
        return _ints(self.inserted_window_dims_attr)

    @property
    def input_batching_dims(self) -> tuple[int, ...]:
        return _ints(self.input_batching_dims_attr)

    @property
    def scatter_indices_batching_dims(self) -> tuple[int, ...]:
        return _ints(self.scatter_indices_batching_dims_attr)

    @property
    def scatter_dims_to_operand_dims(self) -> tuple[int, ...]:
        return _ints(self.scatter_dims_to_operand_dims_attr)

    @property
    def index_vector_dim(self) -> int:
        return self.index_vector_dim_attr.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        fields = dict.fromkeys(cls._LISTS, "list") | {"index_vector_dim": "int"}
        values = _parse_struct(parser, fields)
        params: list[Attribute] = [
            _int_array_attr(cast(list[int], values.get(k, []))) for k in cls._LISTS
        ]
        params.append(IntAttr(cast(int, values.get("index_vector_dim", 0))))
        return params

    def print_parameters(self, printer: Printer) -> None:
        items: list[tuple[str, Sequence[int] | int]] = [
            (k, getattr(self, k)) for k in self._LISTS
        ]
        items.append(("index_vector_dim", self.index_vector_dim))
        _print_struct(printer, items)


# --------------------------------------------------------------------------
# Traits
# --------------------------------------------------------------------------


class Elementwise(OpTrait):
    """The op maps operand elements to result elements position by position.

    Every tensor operand has the result's shape, except rank-0 operands that
    ``clamp``/``select`` broadcast; SBP rules treat such ops uniformly.
    """


# --------------------------------------------------------------------------
# Constant-like ops
# --------------------------------------------------------------------------


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """``%c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>``."""

    name = "stablehlo.constant"

    value = prop_def(DenseIntOrFPElementsAttr)
    output = result_def(TensorType)

    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])
        # MLIR names constants %cst (floats) and %c (integers and booleans).
        is_int = isinstance(value.get_element_type(), IntegerType)
        self.output.name_hint = "c" if is_int else "cst"

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attributes = parser.parse_optional_attr_dict()
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error("expected a dense elements attribute", pos)
        op = cls(value)
        op.attributes |= attributes
        # Parsed values keep the name written in the text, whatever the form.
        op.output.name_hint = None
        return op

    def print(self, printer: Printer) -> None:
        # The result type is the value's type (verify_ checks they agree).
        _print_attr_dict(printer, self)
        printer.print_string(" ")
        if (text := format_dense(self.value)) is not None:
            printer.print_string(text)
        else:
            self.value.print_without_type(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    def verify_(self) -> None:
        if self.value.type != self.output.type:
            raise VerifyException(
                f"{self.name}: value type {self.value.type} differs from result "
                f"type {self.output.type}"
            )


@irdl_op_definition
class IotaOp(IRDLOperation):
    """``%0 = stablehlo.iota dim = 0 : tensor<8xi32>``."""

    name = "stablehlo.iota"

    iota_dimension_attr = prop_def(IntegerAttr, prop_name="iota_dimension")
    output = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(self, iota_dimension: int, result_type: Attribute):
        super().__init__(
            properties={"iota_dimension": _i64_attr(iota_dimension)},
            result_types=[result_type],
        )

    @property
    def iota_dimension(self) -> int:
        return self.iota_dimension_attr.value.data

    @classmethod
    def parse(cls, parser: Parser) -> IotaOp:
        parser.parse_keyword("dim")
        parser.parse_punctuation("=")
        dim = parser.parse_integer(allow_boolean=False)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = cls(dim, parser.parse_type())
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" dim = {self.iota_dimension}")
        _print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.output.type)

    def verify_(self) -> None:
        rank = len(_shape(self.output))
        if rank == 0:
            raise VerifyException(f"{self.name}: output must have rank at least 1")
        if not 0 <= self.iota_dimension < rank:
            raise VerifyException(
                f"{self.name}: iota dimension {self.iota_dimension} is out of range "
                f"for rank {rank}"
            )


# --------------------------------------------------------------------------
# Elementwise ops
# --------------------------------------------------------------------------


class UnaryElementwiseOp(IRDLOperation):
    """``%r = stablehlo.<op> %x : T`` (``: (T) -> R`` when the types differ)."""

    operand = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure(), Elementwise())

    # Whether operand and result may have different element types.
    CHANGES_ELEMENT_TYPE: ClassVar[bool] = False

    def __init__(
        self,
        operand: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        operand = SSAValue.get(operand)
        super().__init__(
            operands=[operand],
            result_types=[result_type or operand.type],
            attributes=attributes,
        )

    @classmethod
    def parse(cls, parser: Parser) -> UnaryElementwiseOp:
        operand = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operands, result = _parse_same_operands_and_result_type(parser, [operand])
        return cls(operands[0], result, attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        _print_attr_dict(printer, self)
        _print_same_operands_and_result_type(printer, self)

    def verify_(self) -> None:
        if _shape(self.operand) != _shape(self.result):
            raise VerifyException(
                f"{self.name}: operand and result shapes differ: "
                f"{self.operand.type} vs {self.result.type}"
            )
        if self.CHANGES_ELEMENT_TYPE:
            return
        operand_element = _element(self.operand)
        if isinstance(operand_element, ComplexType) and self.name == "stablehlo.abs":
            return
        if operand_element != _element(self.result):
            raise VerifyException(
                f"{self.name}: operand and result element types differ: "
                f"{self.operand.type} vs {self.result.type}"
            )


@irdl_op_definition
class AbsOp(UnaryElementwiseOp):
    name = "stablehlo.abs"


@irdl_op_definition
class CbrtOp(UnaryElementwiseOp):
    name = "stablehlo.cbrt"


@irdl_op_definition
class CeilOp(UnaryElementwiseOp):
    name = "stablehlo.ceil"


@irdl_op_definition
class ConvertOp(UnaryElementwiseOp):
    """Element type conversion; shapes equal, element types may differ."""

    name = "stablehlo.convert"
    CHANGES_ELEMENT_TYPE: ClassVar[bool] = True


@irdl_op_definition
class CosineOp(UnaryElementwiseOp):
    name = "stablehlo.cosine"


@irdl_op_definition
class CountLeadingZerosOp(UnaryElementwiseOp):
    name = "stablehlo.count_leading_zeros"


@irdl_op_definition
class ExpOp(UnaryElementwiseOp):
    name = "stablehlo.exponential"


@irdl_op_definition
class Expm1Op(UnaryElementwiseOp):
    name = "stablehlo.exponential_minus_one"


@irdl_op_definition
class FloorOp(UnaryElementwiseOp):
    name = "stablehlo.floor"


@irdl_op_definition
class LogOp(UnaryElementwiseOp):
    name = "stablehlo.log"


@irdl_op_definition
class Log1pOp(UnaryElementwiseOp):
    name = "stablehlo.log_plus_one"


@irdl_op_definition
class LogisticOp(UnaryElementwiseOp):
    name = "stablehlo.logistic"


@irdl_op_definition
class NegOp(UnaryElementwiseOp):
    name = "stablehlo.negate"


@irdl_op_definition
class NotOp(UnaryElementwiseOp):
    name = "stablehlo.not"


@irdl_op_definition
class PopulationCountOp(UnaryElementwiseOp):
    name = "stablehlo.popcnt"


@irdl_op_definition
class RoundNearestAfzOp(UnaryElementwiseOp):
    name = "stablehlo.round_nearest_afz"


@irdl_op_definition
class RoundNearestEvenOp(UnaryElementwiseOp):
    name = "stablehlo.round_nearest_even"


@irdl_op_definition
class RsqrtOp(UnaryElementwiseOp):
    name = "stablehlo.rsqrt"


@irdl_op_definition
class SignOp(UnaryElementwiseOp):
    name = "stablehlo.sign"


@irdl_op_definition
class SineOp(UnaryElementwiseOp):
    name = "stablehlo.sine"


@irdl_op_definition
class SqrtOp(UnaryElementwiseOp):
    name = "stablehlo.sqrt"


@irdl_op_definition
class TanOp(UnaryElementwiseOp):
    name = "stablehlo.tan"


@irdl_op_definition
class TanhOp(UnaryElementwiseOp):
    name = "stablehlo.tanh"


@irdl_op_definition
class IsFiniteOp(IRDLOperation):
    """``%y = stablehlo.is_finite %x : (tensor<8xf32>) -> tensor<8xi1>``."""

    name = "stablehlo.is_finite"

    x = operand_def(TensorType)
    y = result_def(TensorType)

    traits = traits_def(Pure(), Elementwise())

    def __init__(
        self,
        x: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        x = SSAValue.get(x)
        if result_type is None:
            result_type = TensorType(i1, _shape(x))
        super().__init__(
            operands=[x], result_types=[result_type], attributes=attributes
        )

    @classmethod
    def parse(cls, parser: Parser) -> IsFiniteOp:
        operand = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operands, results = _parse_functional_type(parser, [operand])
        return cls(operands[0], _single_result(parser, results), attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.x)
        _print_attr_dict(printer, self)
        _print_functional_type(printer, self)

    def verify_(self) -> None:
        if _shape(self.x) != _shape(self.y):
            raise VerifyException(
                f"{self.name}: operand and result shapes differ: "
                f"{self.x.type} vs {self.y.type}"
            )
        if _element(self.y) != i1:
            raise VerifyException(f"{self.name}: result must be a tensor of i1")


class BinaryElementwiseOp(IRDLOperation):
    """``%r = stablehlo.<op> %a, %b : T`` (``: (A, B) -> R`` when types differ)."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure(), Elementwise())

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        super().__init__(
            operands=[lhs, rhs],
            result_types=[result_type or lhs.type],
            attributes=attributes,
        )

    @classmethod
    def parse(cls, parser: Parser) -> BinaryElementwiseOp:
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operands, result = _parse_same_operands_and_result_type(parser, [lhs, rhs])
        return cls(operands[0], operands[1], result, attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        _print_attr_dict(printer, self)
        _print_same_operands_and_result_type(printer, self)

    def verify_(self) -> None:
        result_shape = _shape(self.result)
        for side, value in (("lhs", self.lhs), ("rhs", self.rhs)):
            if _shape(value) != result_shape:
                raise VerifyException(
                    f"{self.name}: {side} and result shapes differ: "
                    f"{value.type} vs {self.result.type}"
                )
        if not _element(self.lhs) == _element(self.rhs) == _element(self.result):
            raise VerifyException(
                f"{self.name}: operand and result element types differ: "
                f"{self.lhs.type}, {self.rhs.type} -> {self.result.type}"
            )


class _CommutativeBinaryOp(BinaryElementwiseOp):
    """Binary ops a reduce body can be (``applies stablehlo.add`` short form)."""

    traits = traits_def(Pure(), Elementwise(), Commutative())

    # How ReduceOp.reduction_kind names a reduction whose body is this op.
    REDUCTION_KIND: ClassVar[str]


@irdl_op_definition
class AddOp(_CommutativeBinaryOp):
    name = "stablehlo.add"
    REDUCTION_KIND: ClassVar[str] = "add"


@irdl_op_definition
class MulOp(_CommutativeBinaryOp):
    name = "stablehlo.multiply"
    REDUCTION_KIND: ClassVar[str] = "mul"


@irdl_op_definition
class MaxOp(_CommutativeBinaryOp):
    name = "stablehlo.maximum"
    REDUCTION_KIND: ClassVar[str] = "max"


@irdl_op_definition
class MinOp(_CommutativeBinaryOp):
    name = "stablehlo.minimum"
    REDUCTION_KIND: ClassVar[str] = "min"


@irdl_op_definition
class AndOp(_CommutativeBinaryOp):
    name = "stablehlo.and"
    REDUCTION_KIND: ClassVar[str] = "and"


@irdl_op_definition
class OrOp(_CommutativeBinaryOp):
    name = "stablehlo.or"
    REDUCTION_KIND: ClassVar[str] = "or"


@irdl_op_definition
class XorOp(_CommutativeBinaryOp):
    name = "stablehlo.xor"
    REDUCTION_KIND: ClassVar[str] = "xor"


@irdl_op_definition
class SubtractOp(BinaryElementwiseOp):
    name = "stablehlo.subtract"


@irdl_op_definition
class DivOp(BinaryElementwiseOp):
    name = "stablehlo.divide"


@irdl_op_definition
class RemOp(BinaryElementwiseOp):
    name = "stablehlo.remainder"


@irdl_op_definition
class PowOp(BinaryElementwiseOp):
    name = "stablehlo.power"


@irdl_op_definition
class Atan2Op(BinaryElementwiseOp):
    name = "stablehlo.atan2"


@irdl_op_definition
class ShiftLeftOp(BinaryElementwiseOp):
    name = "stablehlo.shift_left"


@irdl_op_definition
class ShiftRightArithmeticOp(BinaryElementwiseOp):
    name = "stablehlo.shift_right_arithmetic"


@irdl_op_definition
class ShiftRightLogicalOp(BinaryElementwiseOp):
    name = "stablehlo.shift_right_logical"


@irdl_op_definition
class ClampOp(IRDLOperation):
    """``%r = stablehlo.clamp %min, %x, %max : T``; min/max may be rank 0."""

    name = "stablehlo.clamp"

    min = operand_def(TensorType)
    operand = operand_def(TensorType)
    max = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure(), Elementwise())

    def __init__(
        self,
        min: SSAValue | Operation,
        operand: SSAValue | Operation,
        max: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        operand = SSAValue.get(operand)
        super().__init__(
            operands=[min, operand, max],
            result_types=[result_type or operand.type],
            attributes=attributes,
        )

    @classmethod
    def parse(cls, parser: Parser) -> ClampOp:
        operands = _parse_operand_list(parser)
        if len(operands) != 3:
            parser.raise_error(f"expected 3 operands, got {len(operands)}")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        values, result = _parse_same_operands_and_result_type(parser, operands)
        return cls(*values, result_type=result, attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        _print_attr_dict(printer, self)
        _print_same_operands_and_result_type(printer, self)

    def verify_(self) -> None:
        shape = _shape(self.operand)
        for what, value in (("min", self.min), ("max", self.max)):
            if _shape(value) not in ((), shape):
                raise VerifyException(
                    f"{self.name}: {what} must be rank 0 or have the operand's "
                    f"shape: {value.type} vs {self.operand.type}"
                )
            if _element(value) != _element(self.operand):
                raise VerifyException(
                    f"{self.name}: {what} element type differs from the operand's: "
                    f"{value.type} vs {self.operand.type}"
                )
        if self.result.type != self.operand.type:
            raise VerifyException(
                f"{self.name}: result type {self.result.type} differs from operand "
                f"type {self.operand.type}"
            )


@irdl_op_definition
class CompareOp(IRDLOperation):
    """``%r = stablehlo.compare GT, %a, %b, FLOAT : (T, T) -> tensor<..xi1>``."""

    name = "stablehlo.compare"

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    comparison_direction_attr = prop_def(
        ComparisonDirectionAttr, prop_name="comparison_direction"
    )
    compare_type_attr = opt_prop_def(ComparisonTypeAttr, prop_name="compare_type")

    traits = traits_def(Pure(), Elementwise())

    def __init__(
        self,
        direction: str | ComparisonDirection,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        compare_type: str | ComparisonType | None = None,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        lhs = SSAValue.get(lhs)
        properties: dict[str, Attribute] = {
            "comparison_direction": ComparisonDirectionAttr(
                ComparisonDirection(direction)
            )
        }
        if compare_type is not None:
            kind = ComparisonType(compare_type)
            properties["compare_type"] = ComparisonTypeAttr(kind)
        if result_type is None:
            result_type = TensorType(i1, _shape(lhs))
        super().__init__(
            operands=[lhs, rhs],
            result_types=[result_type],
            properties=dict(sorted(properties.items())),
            attributes=attributes,
        )

    @property
    def comparison_direction(self) -> str:
        return self.comparison_direction_attr.data.value

    @property
    def compare_type(self) -> str | None:
        attr = self.compare_type_attr
        return None if attr is None else attr.data.value

    @classmethod
    def parse(cls, parser: Parser) -> CompareOp:
        direction = parser.parse_str_enum(ComparisonDirection)
        parser.parse_punctuation(",")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        compare_type = None
        if parser.parse_optional_punctuation(",") is not None:
            compare_type = parser.parse_str_enum(ComparisonType)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operands, results = _parse_functional_type(parser, [lhs, rhs])
        return cls(
            direction,
            operands[0],
            operands[1],
            compare_type,
            _single_result(parser, results),
            attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.comparison_direction}, ")
        _print_operands(printer, self.operands)
        if self.compare_type is not None:
            printer.print_string(f", {self.compare_type}")
        _print_attr_dict(printer, self)
        _print_functional_type(printer, self)

    def verify_(self) -> None:
        if _shape(self.lhs) != _shape(self.rhs):
            raise VerifyException(
                f"{self.name}: operand shapes differ: "
                f"{self.lhs.type} vs {self.rhs.type}"
            )
        if _element(self.lhs) != _element(self.rhs):
            raise VerifyException(
                f"{self.name}: operand element types differ: "
                f"{self.lhs.type} vs {self.rhs.type}"
            )
        if _element(self.result) != i1:
            raise VerifyException(
                f"{self.name}: result must be a tensor of i1, got {self.result.type}"
            )
        if _shape(self.result) != _shape(self.lhs):
            raise VerifyException(
                f"{self.name}: result shape differs from the operands': "
                f"{self.result.type} vs {self.lhs.type}"
            )


@irdl_op_definition
class SelectOp(IRDLOperation):
    """``%r = stablehlo.select %pred, %t, %f : tensor<..xi1>, T``."""

    name = "stablehlo.select"

    pred = operand_def(TensorType)
    on_true = operand_def(TensorType)
    on_false = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure(), Elementwise())

    def __init__(
        self,
        pred: SSAValue | Operation,
        on_true: SSAValue | Operation,
        on_false: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        on_true = SSAValue.get(on_true)
        super().__init__(
            operands=[pred, on_true, on_false],
            result_types=[result_type or on_true.type],
            attributes=attributes,
        )

    @classmethod
    def parse(cls, parser: Parser) -> SelectOp:
        operands = _parse_operand_list(parser)
        if len(operands) != 3:
            parser.raise_error(f"expected 3 operands, got {len(operands)}")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        first = _parse_type_or_function(parser)
        if isinstance(first, FunctionType):
            if len(first.inputs.data) != 3 or len(first.outputs.data) != 1:
                parser.raise_error("expected functional type (P, T, F) -> R", pos)
            values = _resolve(parser, operands, first.inputs.data)
            result = first.outputs.data[0]
        else:
            if parser.parse_optional_punctuation(",") is None:
                parser.raise_error("expected functional type or list of two types", pos)
            result = parser.parse_type()
            values = _resolve(parser, operands, [first, result, result])
        return cls(*values, result_type=result, attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        _print_attr_dict(printer, self)
        printer.print_string(" : ")
        result = self.result.type
        if self.on_true.type != result or self.on_false.type != result:
            printer.print_function_type(self.operand_types, self.result_types)
        else:
            printer.print_attribute(self.pred.type)
            printer.print_string(", ")
            printer.print_attribute(result)

    def verify_(self) -> None:
        if _element(self.pred) != i1:
            raise VerifyException(
                f"{self.name}: predicate must be a tensor of i1, got {self.pred.type}"
            )
        if self.on_true.type != self.on_false.type:
            raise VerifyException(
                f"{self.name}: branch types differ: "
                f"{self.on_true.type} vs {self.on_false.type}"
            )
        if _shape(self.pred) not in ((), _shape(self.on_true)):
            raise VerifyException(
                f"{self.name}: predicate must be rank 0 or have the branches' shape: "
                f"{self.pred.type} vs {self.on_true.type}"
            )
        if self.result.type != self.on_true.type:
            raise VerifyException(
                f"{self.name}: result type {self.result.type} differs from branch "
                f"type {self.on_true.type}"
            )


# --------------------------------------------------------------------------
# Shape ops
# --------------------------------------------------------------------------


@irdl_op_definition
class BroadcastInDimOp(IRDLOperation):
    """``%r = stablehlo.broadcast_in_dim %x, dims = [0] : (A) -> B``.

    Operand dimension ``i`` becomes result dimension ``broadcast_dimensions[i]``;
    its size is either the result's or 1 (then it is broadcast).
    """

    name = "stablehlo.broadcast_in_dim"

    operand = operand_def(TensorType)
    result = result_def(TensorType)
    broadcast_dimensions_attr = prop_def(
        DenseArrayBase.constr(i64), prop_name="broadcast_dimensions"
    )

    traits = traits_def(Pure())

    def __init__(
        self,
        operand: SSAValue | Operation,
        broadcast_dimensions: Sequence[int],
        result_type: Attribute,
        attributes: dict[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[operand],
            result_types=[result_type],
            properties={"broadcast_dimensions": _i64_array(broadcast_dimensions)},
            attributes=attributes,
        )

    @property
    def broadcast_dimensions(self) -> tuple[int, ...]:
        return _ints(self.broadcast_dimensions_attr)

    @classmethod
    def parse(cls, parser: Parser) -> BroadcastInDimOp:
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        dims = _parse_keyword_list(parser, "dims")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operands, results = _parse_functional_type(parser, [operand])
        return cls(operands[0], dims, _single_result(parser, results), attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        printer.print_string(", dims = ")
        _print_int_list(printer, self.broadcast_dimensions)
        _print_attr_dict(printer, self)
        _print_functional_type(printer, self)

    def verify_(self) -> None:
        dims = self.broadcast_dimensions
        operand_shape, result_shape = _shape(self.operand), _shape(self.result)
        if len(dims) != len(operand_shape):
            raise VerifyException(
                f"{self.name}: broadcast_dimensions has {len(dims)} entries but the "
                f"operand has rank {len(operand_shape)}"
            )
        _check_unique_in_range(
            self.name, "broadcast dimension", dims, len(result_shape)
        )
        for i, (size, dim) in enumerate(zip(operand_shape, dims, strict=True)):
            if size not in (1, result_shape[dim]):
                raise VerifyException(
                    f"{self.name}: operand dimension {i} of size {size} cannot be "
                    f"broadcast to result dimension {dim} of size {result_shape[dim]}"
                )
        if _element(self.operand) != _element(self.result):
            raise VerifyException(
                f"{self.name}: operand and result element types differ: "
                f"{self.operand.type} vs {self.result.type}"
            )


@irdl_op_definition
class ReshapeOp(IRDLOperation):
    """``%r = stablehlo.reshape %x : (tensor<8x16xf32>) -> tensor<128xf32>``."""

    name = "stablehlo.reshape"

    operand = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(
        self,
        operand: SSAValue | Operation,
        result_type: Attribute,
        attributes: dict[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[operand], result_types=[result_type], attributes=attributes
        )

    @classmethod
    def parse(cls, parser: Parser) -> ReshapeOp:
        operand = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operands, results = _parse_functional_type(parser, [operand])
        return cls(operands[0], _single_result(parser, results), attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        _print_attr_dict(printer, self)
        _print_functional_type(printer, self)

    def verify_(self) -> None:
        before, after = math.prod(_shape(self.operand)), math.prod(_shape(self.result))
        if before != after:
            raise VerifyException(
                f"{self.name}: element counts differ: {self.operand.type} has "
                f"{before}, {self.result.type} has {after}"
            )
        if _element(self.operand) != _element(self.result):
            raise VerifyException(
                f"{self.name}: operand and result element types differ: "
                f"{self.operand.type} vs {self.result.type}"
            )


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """``%r = stablehlo.transpose %x, dims = [1, 0] : (A) -> B``.

    Result dimension ``i`` is operand dimension ``permutation[i]``.
    """

    name = "stablehlo.transpose"

    operand = operand_def(TensorType)
    result = result_def(TensorType)
    permutation_attr = prop_def(DenseArrayBase.constr(i64), prop_name="permutation")

    traits = traits_def(Pure())

    def __init__(
        self,
        operand: SSAValue | Operation,
        permutation: Sequence[int],
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        operand = SSAValue.get(operand)
        if result_type is None:
            shape = _shape(operand)
            result_type = TensorType(_element(operand), [shape[p] for p in permutation])
        super().__init__(
            operands=[operand],
            result_types=[result_type],
            properties={"permutation": _i64_array(permutation)},
            attributes=attributes,
        )

    @property
    def permutation(self) -> tuple[int, ...]:
        return _ints(self.permutation_attr)

    @classmethod
    def parse(cls, parser: Parser) -> TransposeOp:
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        dims = _parse_keyword_list(parser, "dims")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operands, results = _parse_functional_type(parser, [operand])
        return cls(operands[0], dims, _single_result(parser, results), attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        printer.print_string(", dims = ")
        _print_int_list(printer, self.permutation)
        _print_attr_dict(printer, self)
        _print_functional_type(printer, self)

    def verify_(self) -> None:
        perm = self.permutation
        shape = _shape(self.operand)
        if sorted(perm) != list(range(len(shape))):
            raise VerifyException(
                f"{self.name}: {_dims_text(perm)} is not a permutation of the "
                f"operand's {len(shape)} dimensions"
            )
        expected = tuple(shape[p] for p in perm)
        if _shape(self.result) != expected:
            raise VerifyException(
                f"{self.name}: result shape {_dims_text(_shape(self.result))} should "
                f"be {_dims_text(expected)}"
            )
        if _element(self.operand) != _element(self.result):
            raise VerifyException(
                f"{self.name}: operand and result element types differ: "
                f"{self.operand.type} vs {self.result.type}"
            )


@irdl_op_definition
class ReverseOp(IRDLOperation):
    """``%r = stablehlo.reverse %x, dims = [0] : T``."""

    name = "stablehlo.reverse"

    operand = operand_def(TensorType)
    result = result_def(TensorType)
    dimensions_attr = prop_def(DenseArrayBase.constr(i64), prop_name="dimensions")

    traits = traits_def(Pure())

    def __init__(
        self,
        operand: SSAValue | Operation,
        dimensions: Sequence[int],
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        operand = SSAValue.get(operand)
        super().__init__(
            operands=[operand],
            result_types=[result_type or operand.type],
            properties={"dimensions": _i64_array(dimensions)},
            attributes=attributes,
        )

    @property
    def dimensions(self) -> tuple[int, ...]:
        return _ints(self.dimensions_attr)

    @classmethod
    def parse(cls, parser: Parser) -> ReverseOp:
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        dims = _parse_keyword_list(parser, "dims")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operands, result = _parse_same_operands_and_result_type(parser, [operand])
        return cls(operands[0], dims, result, attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        printer.print_string(", dims = ")
        _print_int_list(printer, self.dimensions)
        _print_attr_dict(printer, self)
        _print_same_operands_and_result_type(printer, self)

    def verify_(self) -> None:
        _check_unique_in_range(
            self.name, "dimension", self.dimensions, len(_shape(self.operand))
        )
        if self.result.type != self.operand.type:
            raise VerifyException(
                f"{self.name}: result type {self.result.type} differs from operand "
                f"type {self.operand.type}"
            )


@irdl_op_definition
class ConcatenateOp(IRDLOperation):
    """``%r = stablehlo.concatenate %a, %b, dim = 0 : (A, B) -> R``."""

    name = "stablehlo.concatenate"

    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)
    dimension_attr = prop_def(IntegerAttr, prop_name="dimension")

    traits = traits_def(Pure())

    def __init__(
        self,
        inputs: Sequence[SSAValue | Operation],
        dimension: int,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        values = [SSAValue.get(v) for v in inputs]
        if result_type is None:
            shape = list(_shape(values[0]))
            shape[dimension] = sum(_shape(v)[dimension] for v in values)
            result_type = TensorType(_element(values[0]), shape)
        super().__init__(
            operands=[values],
            result_types=[result_type],
            properties={"dimension": _i64_attr(dimension)},
            attributes=attributes,
        )

    @property
    def dimension(self) -> int:
        return self.dimension_attr.value.data

    @classmethod
    def parse(cls, parser: Parser) -> ConcatenateOp:
        operands = _parse_trailing_operands(parser)
        parser.parse_keyword("dim")
        parser.parse_punctuation("=")
        dim = parser.parse_integer(allow_boolean=False)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        values, results = _parse_functional_type(parser, operands)
        return cls(values, dim, _single_result(parser, results), attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.inputs)
        printer.print_string(f", dim = {self.dimension}")
        _print_attr_dict(printer, self)
        _print_functional_type(printer, self)

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException(f"{self.name}: expects at least one input")
        first = _shape(self.inputs[0])
        rank, dim = len(first), self.dimension
        if not 0 <= dim < rank:
            raise VerifyException(
                f"{self.name}: dimension {dim} is out of range for rank {rank}"
            )
        total = 0
        for i, value in enumerate(self.inputs):
            shape = _shape(value)
            if len(shape) != rank:
                raise VerifyException(
                    f"{self.name}: input {i} has rank {len(shape)}, expected {rank}"
                )
            for d in range(rank):
                if d != dim and shape[d] != first[d]:
                    raise VerifyException(
                        f"{self.name}: input {i} has size {shape[d]} in dimension "
                        f"{d}, expected {first[d]}"
                    )
            if _element(value) != _element(self.result):
                raise VerifyException(
                    f"{self.name}: input {i} element type differs from the result's"
                )
            total += shape[dim]
        expected = (*first[:dim], total, *first[dim + 1 :])
        if _shape(self.result) != expected:
            raise VerifyException(
                f"{self.name}: result shape {_dims_text(_shape(self.result))} should "
                f"be {_dims_text(expected)}"
            )


@irdl_op_definition
class SliceOp(IRDLOperation):
    """``%r = stablehlo.slice %x [1:3, 0:16:2] : (A) -> B`` (start:limit[:stride])."""

    name = "stablehlo.slice"

    operand = operand_def(TensorType)
    result = result_def(TensorType)
    start_indices_attr = prop_def(DenseArrayBase.constr(i64), prop_name="start_indices")
    limit_indices_attr = prop_def(DenseArrayBase.constr(i64), prop_name="limit_indices")
    strides_attr = prop_def(DenseArrayBase.constr(i64), prop_name="strides")

    traits = traits_def(Pure())

    def __init__(
        self,
        operand: SSAValue | Operation,
        start_indices: Sequence[int],
        limit_indices: Sequence[int],
        strides: Sequence[int] | None = None,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        operand = SSAValue.get(operand)
        if strides is None:
            strides = [1] * len(start_indices)
        if result_type is None:
            shape = [
                max(0, -(-(limit - start) // stride))
                for start, limit, stride in zip(
                    start_indices, limit_indices, strides, strict=True
                )
            ]
            result_type = TensorType(_element(operand), shape)
        super().__init__(
            operands=[operand],
            result_types=[result_type],
            properties={
                "limit_indices": _i64_array(limit_indices),
                "start_indices": _i64_array(start_indices),
                "strides": _i64_array(strides),
            },
            attributes=attributes,
        )

    @property
    def start_indices(self) -> tuple[int, ...]:
        return _ints(self.start_indices_attr)

    @property
    def limit_indices(self) -> tuple[int, ...]:
        return _ints(self.limit_indices_attr)

    @property
    def strides(self) -> tuple[int, ...]:
        return _ints(self.strides_attr)

    @classmethod
    def parse(cls, parser: Parser) -> SliceOp:
        operand = parser.parse_unresolved_operand()
        starts: list[int] = []
        limits: list[int] = []
        strides: list[int] = []

        def one_range() -> None:
            starts.append(parser.parse_integer(allow_boolean=False))
            parser.parse_punctuation(":")
            limits.append(parser.parse_integer(allow_boolean=False))
            if parser.parse_optional_punctuation(":") is not None:
                strides.append(parser.parse_integer(allow_boolean=False))
            else:
                strides.append(1)

        parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one_range)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operands, results = _parse_functional_type(parser, [operand])
        result = _single_result(parser, results)
        return cls(operands[0], starts, limits, strides, result, attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        ranges = []
        for start, limit, stride in zip(
            self.start_indices, self.limit_indices, self.strides, strict=False
        ):
            ranges.append(f"{start}:{limit}" + (f":{stride}" if stride != 1 else ""))
        printer.print_string(" [" + ", ".join(ranges) + "]")
        _print_attr_dict(printer, self)
        _print_functional_type(printer, self)

    def verify_(self) -> None:
        shape = _shape(self.operand)
        starts, limits, strides = self.start_indices, self.limit_indices, self.strides
        if not len(starts) == len(limits) == len(strides) == len(shape):
            raise VerifyException(
                f"{self.name}: start_indices, limit_indices and strides need one "
                f"entry per operand dimension ({len(shape)})"
            )
        expected = []
        for d, (start, limit, stride, size) in enumerate(
            zip(starts, limits, strides, shape, strict=True)
        ):
            if not 0 <= start <= limit <= size:
                raise VerifyException(
                    f"{self.name}: range {start}:{limit} of dimension {d} is out of "
                    f"bounds for size {size}"
                )
            if stride < 1:
                raise VerifyException(
                    f"{self.name}: stride {stride} of dimension {d} must be positive"
                )
            expected.append(-(-(limit - start) // stride))
        if _shape(self.result) != tuple(expected):
            raise VerifyException(
                f"{self.name}: result shape {_dims_text(_shape(self.result))} should "
                f"be {_dims_text(expected)}"
            )
        if _element(self.operand) != _element(self.result):
            raise VerifyException(
                f"{self.name}: operand and result element types differ: "
                f"{self.operand.type} vs {self.result.type}"
            )


def _check_start_indices(op: Operation, indices: Sequence[SSAValue], rank: int) -> None:
    if len(indices) != rank:
        raise VerifyException(
            f"{op.name}: expects {rank} start indices (one per operand dimension), "
            f"got {len(indices)}"
        )
    for i, index in enumerate(indices):
        if _shape(index) != () or not isinstance(_element(index), IntegerType):
            raise VerifyException(
                f"{op.name}: start index {i} must be a rank-0 integer tensor, "
                f"got {index.type}"
            )


@irdl_op_definition
class DynamicSliceOp(IRDLOperation):
    """``%r = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 4] : (...) -> R``."""

    name = "stablehlo.dynamic_slice"

    operand = operand_def(TensorType)
    start_indices = var_operand_def(TensorType)
    result = result_def(TensorType)
    slice_sizes_attr = prop_def(DenseArrayBase.constr(i64), prop_name="slice_sizes")

    traits = traits_def(Pure())

    def __init__(
        self,
        operand: SSAValue | Operation,
        start_indices: Sequence[SSAValue | Operation],
        slice_sizes: Sequence[int],
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        operand = SSAValue.get(operand)
        if result_type is None:
            result_type = TensorType(_element(operand), slice_sizes)
        super().__init__(
            operands=[operand, list(start_indices)],
            result_types=[result_type],
            properties={"slice_sizes": _i64_array(slice_sizes)},
            attributes=attributes,
        )

    @property
    def slice_sizes(self) -> tuple[int, ...]:
        return _ints(self.slice_sizes_attr)

    @classmethod
    def parse(cls, parser: Parser) -> DynamicSliceOp:
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        indices = _parse_trailing_operands(parser)
        sizes = _parse_keyword_list(parser, "sizes")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        values, results = _parse_functional_type(parser, [operand, *indices])
        return cls(
            values[0], values[1:], sizes, _single_result(parser, results), attributes
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        printer.print_string(", sizes = ")
        _print_int_list(printer, self.slice_sizes)
        _print_attr_dict(printer, self)
        _print_functional_type(printer, self)

    def verify_(self) -> None:
        shape = _shape(self.operand)
        _check_start_indices(self, self.start_indices, len(shape))
        sizes = self.slice_sizes
        if len(sizes) != len(shape):
            raise VerifyException(
                f"{self.name}: slice_sizes has {len(sizes)} entries but the operand "
                f"has rank {len(shape)}"
            )
        for d, (size, bound) in enumerate(zip(sizes, shape, strict=True)):
            if not 0 <= size <= bound:
                raise VerifyException(
                    f"{self.name}: slice size {size} of dimension {d} exceeds the "
                    f"operand size {bound}"
                )
        if _shape(self.result) != sizes:
            raise VerifyException(
                f"{self.name}: result shape {_dims_text(_shape(self.result))} should "
                f"be the slice sizes {_dims_text(sizes)}"
            )


@irdl_op_definition
class DynamicUpdateSliceOp(IRDLOperation):
    """``%r = stablehlo.dynamic_update_slice %x, %u, %i, %j : (...) -> R``."""

    name = "stablehlo.dynamic_update_slice"

    operand = operand_def(TensorType)
    update = operand_def(TensorType)
    start_indices = var_operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(
        self,
        operand: SSAValue | Operation,
        update: SSAValue | Operation,
        start_indices: Sequence[SSAValue | Operation],
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        operand = SSAValue.get(operand)
        super().__init__(
            operands=[operand, update, list(start_indices)],
            result_types=[result_type or operand.type],
            attributes=attributes,
        )

    @classmethod
    def parse(cls, parser: Parser) -> DynamicUpdateSliceOp:
        operands = _parse_operand_list(parser)
        if len(operands) < 2:
            parser.raise_error("expected an operand and an update")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        values, results = _parse_functional_type(parser, operands)
        result = _single_result(parser, results)
        return cls(values[0], values[1], values[2:], result, attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        _print_attr_dict(printer, self)
        _print_functional_type(printer, self)

    def verify_(self) -> None:
        shape, update = _shape(self.operand), _shape(self.update)
        _check_start_indices(self, self.start_indices, len(shape))
        if len(update) != len(shape):
            raise VerifyException(
                f"{self.name}: update has rank {len(update)}, operand has rank "
                f"{len(shape)}"
            )
        for d, (u, s) in enumerate(zip(update, shape, strict=True)):
            if u > s:
                raise VerifyException(
                    f"{self.name}: update size {u} of dimension {d} exceeds the "
                    f"operand size {s}"
                )
        if _element(self.update) != _element(self.operand):
            raise VerifyException(
                f"{self.name}: update and operand element types differ"
            )
        if self.result.type != self.operand.type:
            raise VerifyException(
                f"{self.name}: result type {self.result.type} differs from operand "
                f"type {self.operand.type}"
            )


@irdl_op_definition
class PadOp(IRDLOperation):
    """``%r = stablehlo.pad %x, %v, low = [..], high = [..], interior = [..] : ..``."""

    name = "stablehlo.pad"

    operand = operand_def(TensorType)
    padding_value = operand_def(TensorType)
    result = result_def(TensorType)
    edge_padding_low_attr = prop_def(
        DenseArrayBase.constr(i64), prop_name="edge_padding_low"
    )
    edge_padding_high_attr = prop_def(
        DenseArrayBase.constr(i64), prop_name="edge_padding_high"
    )
    interior_padding_attr = prop_def(
        DenseArrayBase.constr(i64), prop_name="interior_padding"
    )

    traits = traits_def(Pure())

    def __init__(
        self,
        operand: SSAValue | Operation,
        padding_value: SSAValue | Operation,
        low: Sequence[int],
        high: Sequence[int],
        interior: Sequence[int] | None = None,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        operand = SSAValue.get(operand)
        if interior is None:
            interior = [0] * len(low)
        if result_type is None:
            sizes = zip(_shape(operand), low, high, interior, strict=True)
            shape = [lo + hi + d + max(d - 1, 0) * it for d, lo, hi, it in sizes]
            result_type = TensorType(_element(operand), shape)
        super().__init__(
            operands=[operand, padding_value],
            result_types=[result_type],
            properties={
                "edge_padding_high": _i64_array(high),
                "edge_padding_low": _i64_array(low),
                "interior_padding": _i64_array(interior),
            },
            attributes=attributes,
        )

    @property
    def edge_padding_low(self) -> tuple[int, ...]:
        return _ints(self.edge_padding_low_attr)

    @property
    def edge_padding_high(self) -> tuple[int, ...]:
        return _ints(self.edge_padding_high_attr)

    @property
    def interior_padding(self) -> tuple[int, ...]:
        return _ints(self.interior_padding_attr)

    @classmethod
    def parse(cls, parser: Parser) -> PadOp:
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        low = _parse_keyword_list(parser, "low")
        parser.parse_punctuation(",")
        high = _parse_keyword_list(parser, "high")
        parser.parse_punctuation(",")
        interior = _parse_keyword_list(parser, "interior")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        values, results = _parse_functional_type(parser, [operand, value])
        return cls(
            values[0],
            values[1],
            low,
            high,
            interior,
            _single_result(parser, results),
            attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        printer.print_string(", low = ")
        _print_int_list(printer, self.edge_padding_low)
        printer.print_string(", high = ")
        _print_int_list(printer, self.edge_padding_high)
        printer.print_string(", interior = ")
        _print_int_list(printer, self.interior_padding)
        _print_attr_dict(printer, self)
        _print_functional_type(printer, self)

    def verify_(self) -> None:
        shape = _shape(self.operand)
        low, high, interior = (
            self.edge_padding_low,
            self.edge_padding_high,
            self.interior_padding,
        )
        if not len(low) == len(high) == len(interior) == len(shape):
            raise VerifyException(
                f"{self.name}: low, high and interior padding need one entry per "
                f"operand dimension ({len(shape)})"
            )
        if _shape(self.padding_value) != ():
            raise VerifyException(f"{self.name}: padding value must be rank 0")
        if _element(self.padding_value) != _element(self.operand):
            raise VerifyException(
                f"{self.name}: padding value element type differs from the operand's"
            )
        expected = []
        for d, (size, lo, hi, it) in enumerate(
            zip(shape, low, high, interior, strict=True)
        ):
            if it < 0:
                raise VerifyException(
                    f"{self.name}: interior padding {it} of dimension {d} is negative"
                )
            expected.append(lo + hi + size + max(size - 1, 0) * it)
        if _shape(self.result) != tuple(expected):
            raise VerifyException(
                f"{self.name}: result shape {_dims_text(_shape(self.result))} should "
                f"be {_dims_text(expected)}"
            )


# --------------------------------------------------------------------------
# Contractions, reductions, gathers
# --------------------------------------------------------------------------


@irdl_op_definition
class DotGeneralOp(IRDLOperation):
    """``stablehlo.dot_general %a, %b, batching_dims = [0] x [0],
    contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (A, B) -> R``.

    The result dimensions are the batch dimensions, then the lhs free
    dimensions, then the rhs free dimensions (each in operand order).
    """

    name = "stablehlo.dot_general"

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    dot_dimension_numbers = prop_def(DotDimensionNumbersAttr)
    precision_config = opt_prop_def(ArrayAttr[PrecisionAttr])
    algorithm = opt_prop_def(Attribute)

    traits = traits_def(Pure())

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        dot_dimension_numbers: DotDimensionNumbersAttr,
        result_type: Attribute | None = None,
        precision: Sequence[str | Precision] | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        if result_type is None:
            result_type = TensorType(
                _element(lhs),
                _dot_result_shape(_shape(lhs), _shape(rhs), dot_dimension_numbers),
            )
        properties: dict[str, Attribute] = {
            "dot_dimension_numbers": dot_dimension_numbers
        }
        if precision is not None:
            properties["precision_config"] = ArrayAttr(
                PrecisionAttr(Precision(p)) for p in precision
            )
        super().__init__(
            operands=[lhs, rhs],
            result_types=[result_type],
            properties=properties,
            attributes=attributes,
        )

    @property
    def lhs_batching_dimensions(self) -> tuple[int, ...]:
        return self.dot_dimension_numbers.lhs_batching_dimensions

    @property
    def rhs_batching_dimensions(self) -> tuple[int, ...]:
        return self.dot_dimension_numbers.rhs_batching_dimensions

    @property
    def lhs_contracting_dimensions(self) -> tuple[int, ...]:
        return self.dot_dimension_numbers.lhs_contracting_dimensions

    @property
    def rhs_contracting_dimensions(self) -> tuple[int, ...]:
        return self.dot_dimension_numbers.rhs_contracting_dimensions

    @property
    def lhs_free_dimensions(self) -> tuple[int, ...]:
        """Lhs dimensions neither batching nor contracting, in order."""
        used = set(self.lhs_batching_dimensions) | set(self.lhs_contracting_dimensions)
        return tuple(d for d in range(len(_shape(self.lhs))) if d not in used)

    @property
    def rhs_free_dimensions(self) -> tuple[int, ...]:
        """Rhs dimensions neither batching nor contracting, in order."""
        used = set(self.rhs_batching_dimensions) | set(self.rhs_contracting_dimensions)
        return tuple(d for d in range(len(_shape(self.rhs))) if d not in used)

    @property
    def precision(self) -> tuple[str, ...] | None:
        if self.precision_config is None:
            return None
        return tuple(p.data.value for p in self.precision_config.data)

    @classmethod
    def parse(cls, parser: Parser) -> DotGeneralOp:
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")

        def lhs_rhs() -> tuple[list[int], list[int]]:
            parser.parse_punctuation("=")
            left = _parse_int_list(parser)
            parser.parse_keyword("x")
            return left, _parse_int_list(parser)

        lhs_batch: list[int] = []
        rhs_batch: list[int] = []
        if parser.parse_optional_keyword("batching_dims") is not None:
            lhs_batch, rhs_batch = lhs_rhs()
            parser.parse_punctuation(",")
        parser.parse_keyword("contracting_dims")
        lhs_contract, rhs_contract = lhs_rhs()
        precision: list[Precision] | None = None
        while parser.parse_optional_punctuation(",") is not None:
            pos = parser.pos
            if parser.parse_optional_keyword("precision") is not None:
                parser.parse_punctuation("=")
                precision = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, lambda: parser.parse_str_enum(Precision)
                )
            elif parser.parse_optional_keyword("algorithm") is not None:
                parser.raise_error(
                    "stablehlo.dot_general: 'algorithm' is not supported", pos
                )
            else:
                parser.raise_error("expected 'precision' or 'algorithm'", pos)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operands, results = _parse_functional_type(parser, [lhs, rhs])
        numbers = DotDimensionNumbersAttr.get(
            lhs_batch, rhs_batch, lhs_contract, rhs_contract
        )
        return cls(
            operands[0],
            operands[1],
            numbers,
            _single_result(parser, results),
            precision,
            attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        lb, rb = self.lhs_batching_dimensions, self.rhs_batching_dimensions
        if lb or rb:
            printer.print_string(", batching_dims = ")
            printer.print_string(f"{_dims_text(lb)} x {_dims_text(rb)}")
        lc, rc = self.lhs_contracting_dimensions, self.rhs_contracting_dimensions
        printer.print_string(", contracting_dims = ")
        printer.print_string(f"{_dims_text(lc)} x {_dims_text(rc)}")
        if (precision := self.precision) is not None:
            printer.print_string(", precision = [" + ", ".join(precision) + "]")
        if self.algorithm is not None:
            printer.print_string(", algorithm = ")
            printer.print_attribute(self.algorithm)
        _print_attr_dict(printer, self)
        _print_functional_type(printer, self)

    def verify_(self) -> None:
        lhs_shape, rhs_shape = _shape(self.lhs), _shape(self.rhs)
        lb, rb = self.lhs_batching_dimensions, self.rhs_batching_dimensions
        lc, rc = self.lhs_contracting_dimensions, self.rhs_contracting_dimensions
        if len(lb) != len(rb):
            raise VerifyException(
                f"{self.name}: lhs and rhs have different numbers of batching "
                f"dimensions: {len(lb)} vs {len(rb)}"
            )
        if len(lc) != len(rc):
            raise VerifyException(
                f"{self.name}: lhs and rhs have different numbers of contracting "
                f"dimensions: {len(lc)} vs {len(rc)}"
            )
        for side, dims, rank in (
            ("lhs", lb + lc, len(lhs_shape)),
            ("rhs", rb + rc, len(rhs_shape)),
        ):
            _check_unique_in_range(
                self.name, f"{side} batching/contracting dimension", dims, rank
            )
        for kind, ldims, rdims in (("batching", lb, rb), ("contracting", lc, rc)):
            for ld, rd in zip(ldims, rdims, strict=True):
                if lhs_shape[ld] != rhs_shape[rd]:
                    raise VerifyException(
                        f"{self.name}: {kind} dimension sizes differ: "
                        f"{lhs_shape[ld]} vs {rhs_shape[rd]}"
                    )
        if self.algorithm is not None:
            raise VerifyException(f"{self.name}: 'algorithm' is not supported")
        precision = self.precision
        if precision is not None and len(precision) not in (0, 2):
            raise VerifyException(
                f"{self.name}: precision_config needs 0 or 2 entries, "
                f"got {len(precision)}"
            )
        expected = _dot_result_shape(lhs_shape, rhs_shape, self.dot_dimension_numbers)
        if _shape(self.result) != expected:
            raise VerifyException(
                f"{self.name}: result shape {_dims_text(_shape(self.result))} should "
                f"be {_dims_text(expected)} (batch, lhs free, rhs free dimensions)"
            )


def _dot_result_shape(
    lhs: Sequence[int], rhs: Sequence[int], numbers: DotDimensionNumbersAttr
) -> tuple[int, ...]:
    lb, lc = numbers.lhs_batching_dimensions, numbers.lhs_contracting_dimensions
    rb, rc = numbers.rhs_batching_dimensions, numbers.rhs_contracting_dimensions
    batch = tuple(lhs[d] for d in lb if 0 <= d < len(lhs))
    lhs_free = tuple(s for d, s in enumerate(lhs) if d not in lb and d not in lc)
    rhs_free = tuple(s for d, s in enumerate(rhs) if d not in rb and d not in rc)
    return batch + lhs_free + rhs_free


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``stablehlo.return %a, %b : T, U`` -- terminator of reduce bodies."""

    name = "stablehlo.return"

    values = var_operand_def(TensorType)

    traits = traits_def(Pure(), IsTerminator())

    def __init__(
        self,
        values: Sequence[SSAValue | Operation] = (),
        attributes: dict[str, Attribute] | None = None,
    ):
        super().__init__(operands=[list(values)], attributes=attributes)

    @classmethod
    def parse(cls, parser: Parser) -> ReturnOp:
        operands: list[UnresolvedOperand] = []
        if (first := parser.parse_optional_unresolved_operand()) is not None:
            operands.append(first)
            while parser.parse_optional_punctuation(",") is not None:
                operands.append(parser.parse_unresolved_operand())
        attributes = parser.parse_optional_attr_dict()
        types: list[Attribute] = []
        if parser.parse_optional_punctuation(":") is not None:
            types = [parser.parse_type()]
            while parser.parse_optional_punctuation(",") is not None:
                types.append(parser.parse_type())
        return cls(_resolve(parser, operands, types), attributes)

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            _print_operands(printer, self.operands)
        _print_attr_dict(printer, self)
        if self.operands:
            printer.print_string(" : ")
            printer.print_list(self.operand_types, printer.print_attribute)


def _binary_combiner(region: Region) -> Operation | None:
    """The single op of a two-argument body that is just ``return op(a, b)``."""
    block = region.blocks.first
    if block is None or len(block.ops) != 2 or len(block.args) != 2:
        return None
    inner, ret = block.first_op, block.last_op
    assert inner is not None and ret is not None
    if not isinstance(ret, ReturnOp) or len(inner.results) != 1:
        return None
    # x op acc is the same reduction as acc op x for the ops we name.
    if tuple(inner.operands) not in (tuple(block.args), tuple(block.args)[::-1]):
        return None
    if tuple(ret.operands) != tuple(inner.results):
        return None
    return inner


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """Reduces ``inputs`` over ``dimensions`` with the body from ``init_values``.

    Short form when the body is one commutative binary op::

        %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across
             dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>

    otherwise the body prints after ``reducer(...)`` pairs. Body block arguments
    are the N accumulators then the N elements (N = number of inputs).
    """

    name = "stablehlo.reduce"

    inputs = var_operand_def(TensorType)
    init_values = var_operand_def(TensorType)
    results_ = var_result_def(TensorType)
    dimensions_attr = prop_def(DenseArrayBase.constr(i64), prop_name="dimensions")
    body = region_def("single_block")

    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        inputs: Sequence[SSAValue | Operation],
        init_values: Sequence[SSAValue | Operation],
        dimensions: Sequence[int],
        body: Region,
        result_types: Sequence[Attribute] | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        inputs = [SSAValue.get(v) for v in inputs]
        init_values = [SSAValue.get(v) for v in init_values]
        if result_types is None:
            result_types = [
                TensorType(
                    _element(init),
                    [s for d, s in enumerate(_shape(x)) if d not in dimensions],
                )
                for x, init in zip(inputs, init_values, strict=True)
            ]
        super().__init__(
            operands=[inputs, init_values],
            result_types=[list(result_types)],
            properties={"dimensions": _i64_array(dimensions)},
            regions=[body],
            attributes=attributes,
        )

    @classmethod
    def of_kind(
        cls,
        kind: str,
        input: SSAValue | Operation,
        init_value: SSAValue | Operation,
        dimensions: Sequence[int],
        result_type: Attribute | None = None,
    ) -> ReduceOp:
        """A single-input reduction whose body is ``REDUCTION_OPS[kind]``."""
        init_value = SSAValue.get(init_value)
        scalar = TensorType(_element(init_value), [])
        block = Block(arg_types=[scalar, scalar])
        combiner = REDUCTION_OPS[kind](block.args[0], block.args[1], scalar)
        block.add_ops([combiner, ReturnOp([combiner.result])])
        return cls(
            [input],
            [init_value],
            dimensions,
            Region(block),
            None if result_type is None else [result_type],
        )

    @property
    def dimensions(self) -> tuple[int, ...]:
        return _ints(self.dimensions_attr)

    @property
    def combiner(self) -> Operation | None:
        """The body's single binary op, when the body is just ``return op(acc, x)``."""
        return _binary_combiner(self.body)

    @property
    def reduction_kind(self) -> str | None:
        """``add``/``mul``/``max``/``min``/``and``/``or``/``xor``, or None.

        None when the body is anything but one of those commutative binary ops
        applied to the two block arguments (e.g. argmax's two-input body).
        """
        inner = self.combiner
        if isinstance(inner, _CommutativeBinaryOp):
            return inner.REDUCTION_KIND
        return None

    def _compact_op(self) -> Operation | None:
        """The inner op when StableHLO prints the ``applies`` short form."""
        block = self.body.blocks.first
        if block is None or len(block.ops) != 2:
            return None
        inner, ret = block.first_op, block.last_op
        assert inner is not None and ret is not None
        if not isinstance(inner, _CommutativeBinaryOp):
            return None
        if not all(t == inner.result.type for t in inner.operand_types):
            return None
        if not self.inputs:
            return None
        if inner.lhs.type != TensorType(_element(self.inputs[0]), []):
            return None
        if tuple(block.args) != tuple(inner.operands):
            return None
        if ret.name.split(".")[-1] != "return":
            return None
        if tuple(ret.operands) != tuple(inner.results):
            return None
        return inner

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        inputs: list[UnresolvedOperand] = []
        inits: list[UnresolvedOperand] = []

        def pair() -> None:
            inputs.append(parser.parse_unresolved_operand())
            parser.parse_keyword("init")
            parser.parse_punctuation(":")
            inits.append(parser.parse_unresolved_operand())

        parser.parse_comma_separated_list(parser.Delimiter.PAREN, pair)
        while parser.parse_optional_punctuation(",") is not None:
            parser.parse_punctuation("(")
            pair()
            parser.parse_punctuation(")")

        combiner: type[BinaryElementwiseOp] | None = None
        if parser.parse_optional_keyword("applies") is not None:
            pos = parser.pos
            op_name = parser.parse_identifier()
            op_type = parser.ctx.get_optional_op(op_name)
            if op_type is None or not issubclass(op_type, _CommutativeBinaryOp):
                parser.raise_error(
                    "expected the inner-op to be a commutative binary-op from the "
                    "stablehlo dialect, with zero region, producing single result",
                    pos,
                )
            combiner = op_type
        parser.parse_keyword("across")
        dims = _parse_keyword_list(parser, "dimensions")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        function = _parse_function_type(parser)
        if not function.inputs.data:
            parser.raise_error("input types missing in reduce-op function type", pos)
        values = _resolve(parser, inputs + inits, function.inputs.data)
        n = len(inputs)

        if combiner is not None:
            scalar = TensorType(_element(function.inputs.data[0]), [])
            block = Block(arg_types=[scalar, scalar])
            inner = combiner(block.args[0], block.args[1], scalar)
            block.add_ops([inner, ReturnOp([inner.result])])
            body = Region(block)
        else:
            parser.parse_keyword("reducer")
            firsts: list[Parser.Argument] = []
            seconds: list[Parser.Argument] = []
            while parser.parse_optional_punctuation("(") is not None:
                firsts.append(parser.parse_argument())
                parser.parse_punctuation(",")
                seconds.append(parser.parse_argument())
                parser.parse_punctuation(")")
            body = parser.parse_region(firsts + seconds)
        return cls(
            values[:n], values[n:], dims, body, function.outputs.data, attributes
        )

    def print(self, printer: Printer) -> None:
        n = len(self.inputs)
        for i in range(n):
            if i:
                printer.print_string(", ")
            printer.print_string("(")
            printer.print_operand(self.inputs[i])
            printer.print_string(" init: ")
            printer.print_operand(self.init_values[i])
            printer.print_string(")")
        compact = self._compact_op()
        if compact is not None:
            printer.print_string(f" applies {compact.name}")
        printer.print_string(" across dimensions = ")
        _print_int_list(printer, self.dimensions)
        _print_attr_dict(printer, self)
        _print_functional_type(printer, self)
        if compact is not None:
            return
        printer.print_string("\n reducer")
        block = self.body.blocks.first
        args = block.args if block is not None else ()
        # Pairs (arg i, arg i + N); invalid IR with other arities prints none.
        for i in range(n if len(args) == 2 * n else 0):
            printer.print_string("(")
            printer.print_block_argument(args[i])
            printer.print_string(", ")
            printer.print_block_argument(args[i + n])
            printer.print_string(") ")
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    def verify_(self) -> None:
        n = len(self.inputs)
        if n == 0:
            raise VerifyException(f"{self.name}: expects at least one input")
        if len(self.init_values) != n or len(self.results_) != n:
            raise VerifyException(
                f"{self.name}: expects as many init values and results as inputs"
            )
        shape = _shape(self.inputs[0])
        for i, value in enumerate(self.inputs):
            if _shape(value) != shape:
                raise VerifyException(
                    f"{self.name}: input {i} has shape {_dims_text(_shape(value))}, "
                    f"input 0 has {_dims_text(shape)}"
                )
        dims = self.dimensions
        _check_unique_in_range(self.name, "dimension", dims, len(shape))
        expected = tuple(s for d, s in enumerate(shape) if d not in dims)
        for i, (init, result) in enumerate(
            zip(self.init_values, self.results_, strict=True)
        ):
            if _shape(init) != ():
                raise VerifyException(
                    f"{self.name}: init value {i} must be rank 0, got {init.type}"
                )
            if _shape(result) != expected:
                raise VerifyException(
                    f"{self.name}: result {i} has shape {_dims_text(_shape(result))}, "
                    f"expected {_dims_text(expected)} after reducing dimensions "
                    f"{_dims_text(dims)}"
                )
            if _element(result) != _element(init):
                raise VerifyException(
                    f"{self.name}: result {i} element type differs from its init "
                    f"value's: {result.type} vs {init.type}"
                )
        block = self.body.blocks.first
        assert block is not None
        if len(block.args) != 2 * n:
            raise VerifyException(
                f"{self.name}: body must take {2 * n} arguments, "
                f"takes {len(block.args)}"
            )
        for arg in block.args:
            if _shape(arg.type) != ():
                raise VerifyException(
                    f"{self.name}: body arguments must be rank-0 tensors, "
                    f"got {arg.type}"
                )
        terminator = block.last_op
        if terminator is None or terminator.name.split(".")[-1] != "return":
            raise VerifyException(f"{self.name}: body must end in stablehlo.return")
        if len(terminator.operands) != n:
            raise VerifyException(
                f"{self.name}: body returns {len(terminator.operands)} values, "
                f"expected {n}"
            )


@irdl_op_definition
class GatherOp(IRDLOperation):
    """``stablehlo.gather``; like JAX, it only has the generic syntax.

    ``"stablehlo.gather"(%x, %idx) <{dimension_numbers = #stablehlo.gather<...>,
    indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (...) -> R``
    """

    name = "stablehlo.gather"

    operand = operand_def(TensorType)
    start_indices = operand_def(TensorType)
    result = result_def(TensorType)
    dimension_numbers = prop_def(GatherDimensionNumbersAttr)
    slice_sizes_attr = prop_def(DenseArrayBase.constr(i64), prop_name="slice_sizes")
    indices_are_sorted_attr = opt_prop_def(IntegerAttr, prop_name="indices_are_sorted")

    traits = traits_def(Pure())

    def __init__(
        self,
        operand: SSAValue | Operation,
        start_indices: SSAValue | Operation,
        dimension_numbers: GatherDimensionNumbersAttr,
        slice_sizes: Sequence[int],
        result_type: Attribute | None = None,
        indices_are_sorted: bool = False,
        attributes: dict[str, Attribute] | None = None,
    ):
        operand, start_indices = SSAValue.get(operand), SSAValue.get(start_indices)
        if result_type is None:
            result_type = TensorType(
                _element(operand),
                _gather_result_shape(
                    _shape(start_indices), dimension_numbers, slice_sizes
                ),
            )
        super().__init__(
            operands=[operand, start_indices],
            result_types=[result_type],
            properties={
                "dimension_numbers": dimension_numbers,
                "indices_are_sorted": IntegerAttr.from_bool(indices_are_sorted),
                "slice_sizes": _i64_array(slice_sizes),
            },
            attributes=attributes,
        )

    @property
    def slice_sizes(self) -> tuple[int, ...]:
        return _ints(self.slice_sizes_attr)

    @property
    def indices_are_sorted(self) -> bool:
        attr = self.indices_are_sorted_attr
        return attr is not None and bool(attr.value.data)

    def verify_(self) -> None:
        numbers = self.dimension_numbers
        shape = _shape(self.operand)
        sizes = self.slice_sizes
        if len(sizes) != len(shape):
            raise VerifyException(
                f"{self.name}: slice_sizes has {len(sizes)} entries but the operand "
                f"has rank {len(shape)}"
            )
        for d, (size, bound) in enumerate(zip(sizes, shape, strict=True)):
            if not 0 <= size <= bound:
                raise VerifyException(
                    f"{self.name}: slice size {size} of dimension {d} exceeds the "
                    f"operand size {bound}"
                )
        for d in numbers.collapsed_slice_dims + numbers.operand_batching_dims:
            if not 0 <= d < len(shape) or sizes[d] > 1:
                raise VerifyException(
                    f"{self.name}: collapsed/batching dimension {d} must be in range "
                    f"and have slice size at most 1"
                )
        index_shape = _shape(self.start_indices)
        if not 0 <= numbers.index_vector_dim <= len(index_shape):
            raise VerifyException(
                f"{self.name}: index_vector_dim {numbers.index_vector_dim} is out of "
                f"range for start indices of rank {len(index_shape)}"
            )
        expected = _gather_result_shape(index_shape, numbers, sizes)
        if _shape(self.result) != expected:
            raise VerifyException(
                f"{self.name}: result shape {_dims_text(_shape(self.result))} should "
                f"be {_dims_text(expected)}"
            )


def _gather_result_shape(
    index_shape: Sequence[int],
    numbers: GatherDimensionNumbersAttr,
    slice_sizes: Sequence[int],
) -> tuple[int, ...]:
    """The spec's shape rule: batch dims of the indices, offset dims of the slice."""
    batch = [s for d, s in enumerate(index_shape) if d != numbers.index_vector_dim]
    dropped = set(numbers.collapsed_slice_dims) | set(numbers.operand_batching_dims)
    offsets = [s for d, s in enumerate(slice_sizes) if d not in dropped]
    offset_dims = numbers.offset_dims
    rank = len(batch) + len(offset_dims)
    shape: list[int] = []
    batch_iter, offset_iter = iter(batch), iter(offsets)
    for d in range(rank):
        source = offset_iter if d in offset_dims else batch_iter
        shape.append(next(source, -1))
    return tuple(shape)


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """``stablehlo.scatter``; like JAX, it only has the generic syntax.

    ``"stablehlo.scatter"(%x, %idx, %upd) <{indices_are_sorted = false,
    scatter_dimension_numbers = #stablehlo.scatter<...>, unique_indices = false}>
    ({ ^bb0(%a: tensor<f32>, %b: tensor<f32>): ... }) : (X, I, U) -> X``

    The body combines the current element (first argument) with the update
    (second).  StableHLO allows N inputs and N updates; only N = 1 verifies.
    """

    name = "stablehlo.scatter"

    inputs = var_operand_def(TensorType)
    scatter_indices = operand_def(TensorType)
    updates = var_operand_def(TensorType)
    results_ = var_result_def(TensorType)
    scatter_dimension_numbers = prop_def(ScatterDimensionNumbersAttr)
    indices_are_sorted_attr = opt_prop_def(IntegerAttr, prop_name="indices_are_sorted")
    unique_indices_attr = opt_prop_def(IntegerAttr, prop_name="unique_indices")
    update_computation = region_def("single_block")

    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        operand: SSAValue | Operation,
        scatter_indices: SSAValue | Operation,
        updates: SSAValue | Operation,
        scatter_dimension_numbers: ScatterDimensionNumbersAttr,
        update_computation: Region,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        result_type: Attribute | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        operand = SSAValue.get(operand)
        super().__init__(
            operands=[
                [operand],
                SSAValue.get(scatter_indices),
                [SSAValue.get(updates)],
            ],
            result_types=[[result_type or operand.type]],
            properties={
                "indices_are_sorted": IntegerAttr.from_bool(indices_are_sorted),
                "scatter_dimension_numbers": scatter_dimension_numbers,
                "unique_indices": IntegerAttr.from_bool(unique_indices),
            },
            regions=[update_computation],
            attributes=attributes,
        )

    @classmethod
    def of_kind(
        cls,
        kind: str,
        operand: SSAValue | Operation,
        scatter_indices: SSAValue | Operation,
        updates: SSAValue | Operation,
        scatter_dimension_numbers: ScatterDimensionNumbersAttr,
        **kwargs: Any,
    ) -> ScatterOp:
        """A scatter whose body is ``REDUCTION_OPS[kind]`` or, for ``replace``,
        returns the update."""
        operand = SSAValue.get(operand)
        scalar = TensorType(_element(operand), [])
        block = Block(arg_types=[scalar, scalar])
        if kind == "replace":
            block.add_op(ReturnOp([block.args[1]]))
        else:
            combiner = REDUCTION_OPS[kind](block.args[0], block.args[1], scalar)
            block.add_ops([combiner, ReturnOp([combiner.result])])
        return cls(
            operand,
            scatter_indices,
            updates,
            scatter_dimension_numbers,
            Region(block),
            **kwargs,
        )

    @property
    def operand(self) -> SSAValue:
        return self.inputs[0]

    @property
    def update(self) -> SSAValue:
        return self.updates[0]

    @property
    def result(self) -> SSAValue:
        return self.results_[0]

    @property
    def indices_are_sorted(self) -> bool:
        attr = self.indices_are_sorted_attr
        return attr is not None and bool(attr.value.data)

    @property
    def unique_indices(self) -> bool:
        attr = self.unique_indices_attr
        return attr is not None and bool(attr.value.data)

    @property
    def combiner_kind(self) -> str | None:
        """``add``/``mul``/``max``/``min``/``and``/``or``/``xor``, ``replace``
        (the body returns the update, as ``x.at[i].set(u)`` emits), or None."""
        block = self.update_computation.blocks.first
        if block is not None and len(block.args) == 2 and len(block.ops) == 1:
            ret = block.first_op
            if isinstance(ret, ReturnOp) and tuple(ret.operands) == (block.args[1],):
                return "replace"
        inner = _binary_combiner(self.update_computation)
        if isinstance(inner, _CommutativeBinaryOp):
            return inner.REDUCTION_KIND
        return None

    def verify_(self) -> None:
        name = self.name
        if len(self.inputs) != 1 or len(self.results_) != 1:
            raise VerifyException(
                f"{name}: only single-operand scatter is supported, got "
                f"{len(self.inputs)} inputs and {len(self.results_)} results"
            )
        numbers = self.scatter_dimension_numbers
        shape, index_shape = _shape(self.operand), _shape(self.scatter_indices)
        update_shape = _shape(self.update)
        rank, index_rank = len(shape), len(index_shape)
        uwd, iwd = numbers.update_window_dims, numbers.inserted_window_dims
        ibd, sibd = numbers.input_batching_dims, numbers.scatter_indices_batching_dims
        sdod, ivd = numbers.scatter_dims_to_operand_dims, numbers.index_vector_dim
        if _shape(self.result) != shape or _element(self.result) != _element(
            self.operand
        ):
            raise VerifyException(
                f"{name}: result type {self.result.type} differs from the operand's "
                f"{self.operand.type}"
            )
        if _element(self.update) != _element(self.operand):
            raise VerifyException(
                f"{name}: updates element type differs from the operand's: "
                f"{self.update.type} vs {self.operand.type}"
            )
        if not 0 <= ivd <= index_rank:
            raise VerifyException(
                f"{name}: index_vector_dim {ivd} is out of range for scatter indices "
                f"of rank {index_rank}"
            )
        _check_unique_in_range(name, "update window dimension", uwd, len(update_shape))
        _check_unique_in_range(name, "inserted window dimension", iwd, rank)
        _check_unique_in_range(name, "input batching dimension", ibd, rank)
        _check_unique_in_range(
            name, "scatter indices batching dimension", sibd, index_rank
        )
        _check_unique_in_range(name, "scatter_dims_to_operand_dims entry", sdod, rank)
        if list(uwd) != sorted(uwd) or list(iwd) != sorted(iwd):
            raise VerifyException(
                f"{name}: update_window_dims and inserted_window_dims must be sorted"
            )
        if set(iwd) & set(ibd) or set(sdod) & set(ibd):
            raise VerifyException(
                f"{name}: input batching dimensions may be neither inserted window "
                f"dimensions nor scattered to"
            )
        if ivd in sibd:
            raise VerifyException(
                f"{name}: index_vector_dim {ivd} cannot be a batching dimension"
            )
        if len(ibd) != len(sibd):
            raise VerifyException(
                f"{name}: {len(ibd)} input batching dimensions but {len(sibd)} "
                f"scatter indices batching dimensions"
            )
        if rank != len(uwd) + len(iwd) + len(ibd):
            raise VerifyException(
                f"{name}: operand rank {rank} should be the number of update window "
                f"({len(uwd)}), inserted window ({len(iwd)}) and input batching "
                f"({len(ibd)}) dimensions"
            )
        vector = index_shape[ivd] if ivd < index_rank else 1
        if len(sdod) != vector:
            raise VerifyException(
                f"{name}: scatter_dims_to_operand_dims has {len(sdod)} entries but "
                f"the index vector has {vector}"
            )
        for d, i in zip(ibd, sibd, strict=True):
            if shape[d] != index_shape[i]:
                raise VerifyException(
                    f"{name}: batching dimension sizes differ: operand dimension {d} "
                    f"is {shape[d]}, scatter indices dimension {i} is {index_shape[i]}"
                )
        scatter_sizes = [s for d, s in enumerate(index_shape) if d != ivd]
        if len(update_shape) != len(uwd) + len(scatter_sizes):
            raise VerifyException(
                f"{name}: updates rank {len(update_shape)} should be "
                f"{len(uwd) + len(scatter_sizes)} (window plus scatter dimensions)"
            )
        window = iter(d for d in range(rank) if d not in iwd and d not in ibd)
        batch = iter(scatter_sizes)
        for d, size in enumerate(update_shape):
            if d in uwd:
                od = next(window)
                if size > shape[od]:
                    raise VerifyException(
                        f"{name}: update window dimension {d} has size {size}, larger "
                        f"than operand dimension {od} ({shape[od]})"
                    )
            elif size != (want := next(batch)):
                raise VerifyException(
                    f"{name}: update scatter dimension {d} has size {size}, the "
                    f"scatter indices say {want}"
                )
        block = self.update_computation.blocks.first
        assert block is not None
        if len(block.args) != 2 or any(_shape(a.type) != () for a in block.args):
            raise VerifyException(
                f"{name}: update_computation must take two rank-0 tensors"
            )
        terminator = block.last_op
        if terminator is None or terminator.name.split(".")[-1] != "return":
            raise VerifyException(f"{name}: body must end in stablehlo.return")
        if len(terminator.operands) != 1:
            raise VerifyException(
                f"{name}: body returns {len(terminator.operands)} values, expected 1"
            )


# --------------------------------------------------------------------------
# Plain attributes, for code that works on values rather than IR
# --------------------------------------------------------------------------


def _numpy_dtype(element: Attribute) -> Any:
    if isinstance(element, IntegerType):
        width = element.width.data
        if width == 1:
            return np.bool_
        unsigned = element.signedness.data == Signedness.UNSIGNED
        return np.dtype(f"{'u' if unsigned else ''}int{width}")
    if isinstance(element, BFloat16Type):
        import ml_dtypes  # a jax dependency; numpy has no bfloat16

        return ml_dtypes.bfloat16
    names = {Float16Type: "float16", Float32Type: "float32", Float64Type: "float64"}
    if type(element) in names:
        return np.dtype(names[type(element)])
    raise NotImplementedError(f"no numpy dtype for {element}")


def constant_array(value: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The elements of a dense attribute as a numpy array of its shape."""
    element = value.get_element_type()
    values = value.get_values()
    if isinstance(element, IntegerType) and element.width.data > 1:
        mask = (1 << element.width.data) - 1
        if element.signedness.data == Signedness.UNSIGNED:
            values = tuple(int(v) & mask for v in values)
    array = np.array(values, dtype=_numpy_dtype(element))
    return array.reshape(tuple(value.get_shape()))


def plain_attrs(op: Operation) -> dict[str, Any]:
    """A StableHLO op's attributes as plain values, under StableHLO's names.

    Ints, tuples of ints, strings and (for ``constant``) a numpy array: what
    ``sbpc.ops.spec.OpSpec.attrs`` expects (see ``sbpc.ops.stablehlo``). A
    reduce gets ``kind`` (``ReduceOp.reduction_kind``, None for other bodies),
    a scatter too (``ScatterOp.combiner_kind``: also ``replace``).
    Ops without attributes, and ops of other dialects, give ``{}``.
    """
    match op:
        case ConstantOp():
            return {"value": constant_array(op.value)}
        case IotaOp():
            return {"iota_dimension": op.iota_dimension}
        case CompareOp():
            attrs: dict[str, Any] = {"comparison_direction": op.comparison_direction}
            if op.compare_type is not None:
                attrs["compare_type"] = op.compare_type
            return attrs
        case BroadcastInDimOp():
            return {"broadcast_dimensions": op.broadcast_dimensions}
        case TransposeOp():
            return {"permutation": op.permutation}
        case DotGeneralOp():
            attrs = {
                "lhs_batching_dimensions": op.lhs_batching_dimensions,
                "rhs_batching_dimensions": op.rhs_batching_dimensions,
                "lhs_contracting_dimensions": op.lhs_contracting_dimensions,
                "rhs_contracting_dimensions": op.rhs_contracting_dimensions,
            }
            if op.precision is not None:
                attrs["precision"] = op.precision
            return attrs
        case ReduceOp():
            return {"dimensions": op.dimensions, "kind": op.reduction_kind}
        case ConcatenateOp():
            return {"dimension": op.dimension}
        case SliceOp():
            return {
                "start_indices": op.start_indices,
                "limit_indices": op.limit_indices,
                "strides": op.strides,
            }
        case DynamicSliceOp():
            return {"slice_sizes": op.slice_sizes}
        case GatherOp():
            numbers = op.dimension_numbers
            return {
                "offset_dims": numbers.offset_dims,
                "collapsed_slice_dims": numbers.collapsed_slice_dims,
                "operand_batching_dims": numbers.operand_batching_dims,
                "start_indices_batching_dims": numbers.start_indices_batching_dims,
                "start_index_map": numbers.start_index_map,
                "index_vector_dim": numbers.index_vector_dim,
                "slice_sizes": op.slice_sizes,
                "indices_are_sorted": op.indices_are_sorted,
            }
        case ScatterOp():
            numbers = op.scatter_dimension_numbers
            return {
                "update_window_dims": numbers.update_window_dims,
                "inserted_window_dims": numbers.inserted_window_dims,
                "input_batching_dims": numbers.input_batching_dims,
                "scatter_indices_batching_dims": numbers.scatter_indices_batching_dims,
                "scatter_dims_to_operand_dims": numbers.scatter_dims_to_operand_dims,
                "index_vector_dim": numbers.index_vector_dim,
                "indices_are_sorted": op.indices_are_sorted,
                "unique_indices": op.unique_indices,
                "kind": op.combiner_kind,
            }
        case PadOp():
            return {
                "edge_padding_low": op.edge_padding_low,
                "edge_padding_high": op.edge_padding_high,
                "interior_padding": op.interior_padding,
            }
        case ReverseOp():
            return {"dimensions": op.dimensions}
        case _:
            return {}


# --------------------------------------------------------------------------
# The dialect
# --------------------------------------------------------------------------

# ReduceOp.reduction_kind names and the body op each stands for.
REDUCTION_OPS: dict[str, type[_CommutativeBinaryOp]] = {
    op.REDUCTION_KIND: op for op in (AddOp, MulOp, MaxOp, MinOp, AndOp, OrOp, XorOp)
}

UNARY_ELEMENTWISE_OPS: tuple[type[UnaryElementwiseOp], ...] = (
    AbsOp,
    CbrtOp,
    CeilOp,
    ConvertOp,
    CosineOp,
    CountLeadingZerosOp,
    ExpOp,
    Expm1Op,
    FloorOp,
    LogOp,
    Log1pOp,
    LogisticOp,
    NegOp,
    NotOp,
    PopulationCountOp,
    RoundNearestAfzOp,
    RoundNearestEvenOp,
    RsqrtOp,
    SignOp,
    SineOp,
    SqrtOp,
    TanOp,
    TanhOp,
)

BINARY_ELEMENTWISE_OPS: tuple[type[BinaryElementwiseOp], ...] = (
    AddOp,
    SubtractOp,
    MulOp,
    DivOp,
    RemOp,
    MaxOp,
    MinOp,
    PowOp,
    AndOp,
    OrOp,
    XorOp,
    Atan2Op,
    ShiftLeftOp,
    ShiftRightArithmeticOp,
    ShiftRightLogicalOp,
)

StableHLO = Dialect(
    "stablehlo",
    [
        ConstantOp,
        IotaOp,
        *UNARY_ELEMENTWISE_OPS,
        IsFiniteOp,
        *BINARY_ELEMENTWISE_OPS,
        ClampOp,
        CompareOp,
        SelectOp,
        BroadcastInDimOp,
        ReshapeOp,
        TransposeOp,
        ReverseOp,
        ConcatenateOp,
        SliceOp,
        DynamicSliceOp,
        DynamicUpdateSliceOp,
        PadOp,
        DotGeneralOp,
        ReduceOp,
        ReturnOp,
        GatherOp,
        ScatterOp,
    ],
    [
        ComparisonDirectionAttr,
        ComparisonTypeAttr,
        PrecisionAttr,
        DotDimensionNumbersAttr,
        GatherDimensionNumbersAttr,
        ScatterDimensionNumbersAttr,
    ],
)
