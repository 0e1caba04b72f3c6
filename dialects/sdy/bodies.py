"""The syntax Shardy's computation ops share: a body whose block arguments
print before it, then the attributes and the function type.

::

    (%arg1: tensor<8xf32>) {
      ...
    } {attrs} : (tensor<16xf32>) -> tensor<16xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import FunctionType
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer


def parse_body(
    parser: Parser, operands: Sequence[UnresolvedOperand]
) -> tuple[Region, dict[str, Attribute], FunctionType, list[SSAValue]]:
    """The body, the attributes, the function type and the resolved operands."""
    args = parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, parser.parse_argument
    )
    body = parser.parse_region(args)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ftype = parser.parse_function_type()
    values = parser.resolve_operands(operands, ftype.inputs.data, parser.pos)
    return body, attrs, ftype, values


def print_body(printer: Printer, op: Operation, body: Region) -> None:
    """`` (%a: T, ...) {...} {attrs} : (T, ...) -> (U, ...)``."""

    def argument(arg: SSAValue) -> None:
        printer.print_ssa_value(arg)
        printer.print_string(": ")
        printer.print_attribute(arg.type)

    printer.print_string(" (")
    printer.print_list(body.block.args, argument)
    printer.print_string(") ")
    printer.print_region(body, print_entry_block_args=False)
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_function_type(op.operand_types, op.result_types)
