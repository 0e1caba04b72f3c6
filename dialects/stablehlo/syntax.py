"""StableHLO's textual syntax pieces, shared by every op that prints like JAX.

Most ops spell their syntax with xDSL's declarative ``assembly_format``; the
pieces StableHLO itself writes as ``custom<...>`` directives in its ODS are
the custom directives here (``SameOperandsAndResultType``, ``SelectOpType``,
``VariadicOperandWithAttribute``, ``SliceRanges``; ``dot_general``'s two live
beside it), so printed text matches what jaxlib's MLIR prints byte for byte.
The plain functions serve the ops that keep a hand-written parser and printer
(``constant``, ``reduce``: StableHLO writes those in C++ too), the
dimension-number attributes, and any dialect that reads and prints StableHLO's
way.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TypeVar

from xdsl.dialects.builtin import DenseArrayBase, FunctionType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer

# --------------------------------------------------------------------------
# Text of integer lists
# --------------------------------------------------------------------------

T = TypeVar("T")


def dims_text(values: Sequence[int]) -> str:
    """``[1, 2]``: how StableHLO writes dimension lists, in text and messages."""
    return "[" + ", ".join(str(d) for d in values) + "]"


def parse_int_list(parser: AttrParser) -> list[int]:
    """``[1, 2, 3]`` or ``[]``."""
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
    )


def parse_keyword_list(parser: AttrParser, keyword: str) -> list[int]:
    """``keyword = [1, 2]``."""
    parser.parse_keyword(keyword)
    parser.parse_punctuation("=")
    return parse_int_list(parser)


def print_int_list(printer: Printer, values: Iterable[int]) -> None:
    printer.print_string(dims_text(list(values)))


def parse_fields(
    parser: AttrParser,
    delimiter: AttrParser.Delimiter,
    keys: Collection[str],
    value: Callable[[str], T],
    what: str = "field",
) -> dict[str, T]:
    """``key = value, ...`` between ``delimiter``, each of ``keys`` at most
    once, in any order; ``value(key)`` parses what follows the ``=``.

    The body of StableHLO's structured attributes: dimension numbers,
    ``dot_algorithm``, a convolution's window (``what`` names an entry in
    the diagnostics).
    """
    values: dict[str, T] = {}

    def entry() -> None:
        pos = parser.pos
        key = parser.parse_identifier()
        if key not in keys:
            parser.raise_error(
                f"unknown {what} '{key}', expected one of {', '.join(keys)}", pos
            )
        if key in values:
            parser.raise_error(f"duplicate {what} '{key}'", pos)
        parser.parse_punctuation("=")
        values[key] = value(key)

    parser.parse_comma_separated_list(delimiter, entry)
    return values


def parse_int_struct(
    parser: AttrParser, fields: dict[str, str]
) -> dict[str, list[int] | int]:
    """``<key = [..] or int, ...>`` in any order; ``fields`` maps key -> list|int.

    The body of StableHLO's dimension-number attributes (``#stablehlo.dot<...>``
    and friends), whose fields MLIR may omit when they hold their default.
    """

    def value(key: str) -> list[int] | int:
        if fields[key] == "list":
            return parse_int_list(parser)
        return parser.parse_integer(allow_boolean=False)

    return parse_fields(parser, parser.Delimiter.ANGLE, fields, value)


def print_int_struct(
    printer: Printer, items: Sequence[tuple[str, Sequence[int] | int]]
) -> None:
    """Fields equal to their default (empty list, 0) are left out, as MLIR does."""
    parts = []
    for key, value in items:
        if isinstance(value, int):
            if value:
                parts.append(f"{key} = {value}")
        elif value:
            parts.append(f"{key} = {dims_text(value)}")
    printer.print_string("<" + ", ".join(parts) + ">")


# --------------------------------------------------------------------------
# Operands and types, for hand-written parsers and printers
# --------------------------------------------------------------------------


def resolve_operands(
    parser: Parser, operands: Sequence[UnresolvedOperand], types: Sequence[Attribute]
) -> list[SSAValue]:
    """The SSA values of ``operands`` given their types (errors at the parser)."""
    return list(parser.resolve_operands(operands, types, parser.pos))


def parse_operand_types(
    parser: Parser, operands: Sequence[UnresolvedOperand], what: str
) -> list[SSAValue]:
    """``T, U, ...``: one type per operand (else an error: ``what`` says
    ``op: N things``), then the operands resolved."""
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    if len(types) != len(operands):
        parser.raise_error(f"{what} but {len(types)} types")
    return resolve_operands(parser, operands, types)


def print_attr_dict(printer: Printer, op: Operation) -> None:
    """``attr-dict``: the discardable attributes (properties print elsewhere)."""
    printer.print_op_attributes(op.attributes)


def print_functional_type(printer: Printer, op: Operation) -> None:
    """`` : (A, B) -> R``."""
    printer.print_string(" : ")
    printer.print_function_type(op.operand_types, op.result_types)


# --------------------------------------------------------------------------
# Custom directives of the declarative formats
# --------------------------------------------------------------------------


def _parse_trailing_operands(parser: Parser) -> list[UnresolvedOperand]:
    """``%a, %b,`` -- operands each followed by a comma, until a non-operand."""
    operands: list[UnresolvedOperand] = []
    while (operand := parser.parse_optional_unresolved_operand()) is not None:
        operands.append(operand)
        parser.parse_punctuation(",")
    return operands


def _parse_type_or_function(parser: Parser) -> Attribute:
    """A single type, or a function type when the text starts with ``(``."""
    if (function := parser.parse_optional_function_type()) is not None:
        return function
    return parser.parse_type()


def _check_same_operands_and_result_type(
    parser: Parser, operand_count: int, type_: Attribute, pos: int
) -> tuple[Sequence[Attribute], Attribute]:
    """Operand types and result type meant by ``custom<SameOperandsAndResultType>``.

    ``T`` gives every operand and the result type ``T``; ``(Ts) -> R`` gives
    them one by one (one type per operand, exactly one result).
    """
    if isinstance(type_, FunctionType):
        inputs, outputs = type_.inputs.data, type_.outputs.data
        if len(inputs) != operand_count:
            parser.raise_error(
                f"{operand_count} operands present, but expected {len(inputs)}", pos
            )
        if len(outputs) != 1:
            parser.raise_error("expected single output", pos)
        return inputs, outputs[0]
    return [type_] * operand_count, type_


def _print_operands(printer: Printer, operands: Iterable[SSAValue]) -> None:
    printer.print_list(operands, printer.print_operand)


def _print_same_operands_and_result_type(
    printer: Printer, operand_types: Sequence[Attribute], result_type: Attribute
) -> None:
    """``T`` when every operand has the result's type, else ``(Ts) -> R``."""
    if all(t == result_type for t in operand_types):
        printer.print_attribute(result_type)
    else:
        printer.print_function_type(operand_types, (result_type,))


def _operand_count(state: ParsingState) -> int:
    return sum(len(operands) for operands in state.operands if operands is not None)


def _start(printer: Printer, state: PrintingState) -> None:
    """Whitespace before a directive's text, as the built-in directives do."""
    state.print_whitespace(printer)


def _done(state: PrintingState) -> None:
    """After a directive's text: the next element needs a space before it."""
    state.last_was_punctuation = False
    state.should_emit_space = True


@irdl_custom_directive
class SameOperandsAndResultType(CustomDirective):
    """``custom<SameOperandsAndResultType>(type(operands), type(results))``.

    Prints ``T`` when operands and result share one type, else the function
    type ``(A, B) -> R``; parses either.
    """

    operand_types: TypeDirective
    result_types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        pos = parser.pos
        type_ = _parse_type_or_function(parser)
        inputs, result = _check_same_operands_and_result_type(
            parser, _operand_count(state), type_, pos
        )
        self.operand_types.set(state, inputs)
        self.result_types.set(state, (result,))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        _start(printer, state)
        (result,) = self.result_types.get(op)
        _print_same_operands_and_result_type(
            printer, self.operand_types.get(op), result
        )
        _done(state)


@irdl_custom_directive
class SelectOpType(CustomDirective):
    """``custom<SelectOpType>(type($pred), type($on_true), type($on_false),
    type($result))``: ``P, T`` when both branches have the result type ``T``,
    else the function type ``(P, T, F) -> R``."""

    pred: TypeDirective
    on_true: TypeDirective
    on_false: TypeDirective
    result: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        pos = parser.pos
        first = _parse_type_or_function(parser)
        if isinstance(first, FunctionType):
            if len(first.inputs.data) != 3 or len(first.outputs.data) != 1:
                parser.raise_error("expected functional type (P, T, F) -> R", pos)
            pred, on_true, on_false = first.inputs.data
            result = first.outputs.data[0]
        else:
            if parser.parse_optional_punctuation(",") is None:
                parser.raise_error("expected functional type or list of two types", pos)
            pred, result = first, parser.parse_type()
            on_true = on_false = result
        self.pred.set(state, (pred,))
        self.on_true.set(state, (on_true,))
        self.on_false.set(state, (on_false,))
        self.result.set(state, (result,))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        _start(printer, state)
        (pred,), (on_true,), (on_false,) = (
            self.pred.get(op),
            self.on_true.get(op),
            self.on_false.get(op),
        )
        (result,) = self.result.get(op)
        if on_true != result or on_false != result:
            printer.print_function_type((pred, on_true, on_false), (result,))
        else:
            printer.print_attribute(pred)
            printer.print_string(", ")
            printer.print_attribute(result)
        _done(state)


@irdl_custom_directive
class VariadicOperandWithAttribute(CustomDirective):
    """``custom<VariadicOperandWithAttribute>($operands)``: ``%a, %b,`` -- each
    operand followed by a comma, so that an attribute keyword can follow."""

    operands: VariadicOperandVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.operands.set(state, _parse_trailing_operands(parser))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        values = self.operands.get(op)
        if not values:
            return
        _start(printer, state)
        _print_operands(printer, values)
        printer.print_string(",")
        _done(state)


@irdl_custom_directive
class SliceRanges(CustomDirective):
    """``custom<SliceRanges>($start_indices, $limit_indices, $strides)``:
    ``[start:limit, start:limit:stride, ...]`` (a stride of 1 is left out)."""

    start_indices: AttributeVariable
    limit_indices: AttributeVariable
    strides: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
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
        # Set in name order: MLIR's generic form lists properties sorted.
        self.limit_indices.set(state, DenseArrayBase.from_list(i64, limits))
        self.start_indices.set(state, DenseArrayBase.from_list(i64, starts))
        self.strides.set(state, DenseArrayBase.from_list(i64, strides))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        _start(printer, state)
        columns = (
            _ints_of(self.start_indices.get(op)),
            _ints_of(self.limit_indices.get(op)),
            _ints_of(self.strides.get(op)),
        )
        ranges = [
            f"{start}:{limit}" + (f":{stride}" if stride != 1 else "")
            for start, limit, stride in zip(*columns, strict=False)
        ]
        printer.print_string("[" + ", ".join(ranges) + "]")
        _done(state)


def _ints_of(attr: Attribute | None) -> tuple[int, ...]:
    assert isinstance(attr, DenseArrayBase)
    return tuple(int(v) for v in attr.get_values())
