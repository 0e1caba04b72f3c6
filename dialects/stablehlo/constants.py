"""Ops that make values from nothing: ``stablehlo.constant`` and ``stablehlo.iota``.

``constant`` keeps a hand-written parser and printer, as StableHLO's own
does: its value prints through ``_mlir_text`` (MLIR's exact float spelling,
which xDSL's attribute printer does not reproduce) and its result is named
``%cst``/``%c`` as MLIR names it.  ``constant_array`` reads a dense value
as numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    I64,
    BFloat16Type,
    ComplexType,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from .._mlir_text import format_dense
from .attrs import i64_attr, int_view
from .base import shape_of
from .syntax import print_attr_dict


def numpy_dtype(element: Attribute) -> Any:
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
    if isinstance(element, ComplexType) and type(element.element_type) in names:
        part = np.dtype(names[type(element.element_type)])
        return np.result_type(part, np.complex64)
    raise NotImplementedError(f"no numpy dtype for {element}")


def constant_array(value: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The elements of a dense attribute as a numpy array of its shape.

    Read from the attribute's little-endian bytes in one numpy call: xDSL's
    ``get_values`` decodes element by element in Python, minutes for the
    8192 x 8192 masks of a long-sequence model."""
    element = value.get_element_type()
    dtype = np.dtype(numpy_dtype(element))
    raw = value.data.data
    if isinstance(element, IntegerType) and element.width.data == 1:
        array = np.frombuffer(raw, np.uint8) != 0  # true is stored as 0xff
    elif isinstance(element, ComplexType):  # (re, im) pairs of the part type
        part = np.dtype(numpy_dtype(element.element_type)).newbyteorder("<")
        pairs = np.frombuffer(raw, part).astype(dtype.type(0).real.dtype)
        array = pairs[0::2] + 1j * pairs[1::2]
    else:  # ints of 8-64 bits (two's complement; unsigned alike) and floats
        array = np.frombuffer(raw, dtype.newbyteorder("<"))
    return array.astype(dtype).reshape(tuple(value.get_shape()))


class DenseConstantOp(IRDLOperation):
    """``%c = <op> dense<[1, 2]> : tensor<2xi32>``: the syntax, builder and
    verifier of ``stablehlo.constant``, which ``sdy.constant`` shares."""

    value = prop_def(DenseIntOrFPElementsAttr)
    output = result_def(TensorType)

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])
        # MLIR names constants %cst (floats) and %c (integers and booleans).
        is_int = isinstance(value.get_element_type(), IntegerType)
        self.output.name_hint = "c" if is_int else "cst"

    @classmethod
    def parse(cls, parser: Parser) -> DenseConstantOp:
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
        print_attr_dict(printer, self)
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
class ConstantOp(DenseConstantOp):
    """``%c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>``."""

    name = "stablehlo.constant"

    traits = traits_def(Pure(), ConstantLike())

    def plain_attrs(self) -> dict[str, object]:
        return {"value": constant_array(self.value)}


@irdl_op_definition
class IotaOp(IRDLOperation):
    """``%0 = stablehlo.iota dim = 0 : tensor<8xi32>``."""

    name = "stablehlo.iota"

    iota_dimension_attr = prop_def(IntegerAttr[I64], prop_name="iota_dimension")
    output = result_def(TensorType)

    traits = traits_def(Pure())

    assembly_format = "`dim` `=` $iota_dimension attr-dict `:` type($output)"

    def __init__(self, iota_dimension: int, result_type: Attribute):
        super().__init__(
            properties={"iota_dimension": i64_attr(iota_dimension)},
            result_types=[result_type],
        )

    iota_dimension = int_view("iota_dimension_attr")

    def verify_(self) -> None:
        rank = len(shape_of(self.output))
        if rank == 0:
            raise VerifyException(f"{self.name}: output must have rank at least 1")
        if not 0 <= self.iota_dimension < rank:
            raise VerifyException(
                f"{self.name}: iota dimension {self.iota_dimension} is out of range "
                f"for rank {rank}"
            )
