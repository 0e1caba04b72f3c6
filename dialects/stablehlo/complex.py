"""StableHLO's complex-number ops, as JAX prints them: ``stablehlo.fft``
(``jnp.fft.*``), ``real``, ``imag`` (``jnp.real``/``imag``) and ``complex``
(``lax.complex``)::

    %0 = stablehlo.complex %a, %b : tensor<4x8xcomplex<f32>>
    %1 = stablehlo.fft %0, type = FFT, length = [8] : (T) -> T
    %2 = stablehlo.real %1 : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xf32>

The elementwise ops on complex tensors (``add``, ``multiply``,
``exponential``, ``abs`` ...) are the ordinary ones (``elementwise.py``).
"""

from __future__ import annotations

from xdsl.dialects.builtin import ComplexType, TensorType
from xdsl.irdl import irdl_op_definition, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from .attrs import FftTypeAttr, i64_array_prop, ints_view
from .base import BinaryTensorOp, TensorOp, UnaryTensorOp, element_type, shape_of


@irdl_op_definition
class FftOp(TensorOp):
    """``%r = stablehlo.fft %x, type = FFT, length = [8] : (T) -> R``: a
    (real, inverse) discrete Fourier transform over the trailing
    ``len(fft_length)`` dimensions."""

    name = "stablehlo.fft"

    fft_type_attr = prop_def(FftTypeAttr, prop_name="fft_type")
    fft_length_attr = i64_array_prop("fft_length")

    assembly_format = (
        "$operand `,` `type` `=` $fft_type `,` `length` `=` $fft_length "
        "attr-dict `:` functional-type(operands, results)"
    )

    fft_length = ints_view("fft_length_attr")

    @property
    def fft_type(self) -> str:
        return self.fft_type_attr.data.value

    def plain_attrs(self) -> dict[str, object]:
        """``fft_type`` (``FFT``, ``IFFT``, ``RFFT``, ``IRFFT``), ``fft_length``."""
        return {"fft_type": self.fft_type, "fft_length": self.fft_length}

    def verify_(self) -> None:
        kind, lengths = self.fft_type, self.fft_length
        shape_in, shape_out = shape_of(self.operand), shape_of(self.result)
        n = len(lengths)
        if not 1 <= n <= 3 or n > len(shape_in):
            raise VerifyException(
                f"{self.name}: fft_length {list(lengths)} must name 1 to 3 of the "
                f"operand's {len(shape_in)} dimensions"
            )
        real_in = kind == "RFFT"
        real_out = kind == "IRFFT"
        for what, value, real in (
            ("operand", self.operand, real_in),
            ("result", self.result, real_out),
        ):
            is_complex = isinstance(element_type(value), ComplexType)
            if is_complex == real:
                want = "real" if real else "complex"
                raise VerifyException(f"{self.name} {kind}: {what} must be {want}")
        want = list(shape_in)
        if kind == "RFFT":
            want[-1] = lengths[-1] // 2 + 1
        elif kind == "IRFFT":
            want[-1] = lengths[-1]
        if list(shape_out) != want or (
            kind != "IRFFT" and tuple(shape_in[-n:]) != tuple(lengths)
        ):
            raise VerifyException(
                f"{self.name} {kind}: result shape {list(shape_out)} does not follow "
                f"from operand shape {list(shape_in)} and fft_length {list(lengths)}"
            )


class _ComplexPart(UnaryTensorOp):
    """complex -> its float part, elementwise."""

    assembly_format = "$operand attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        inner = element_type(self.operand)
        if not isinstance(inner, ComplexType) or element_type(self.result) != (
            inner.element_type
        ):
            raise VerifyException(
                f"{self.name}: operand must be complex and the result its element "
                f"type: {self.operand.type} -> {self.result.type}"
            )
        if shape_of(self.operand) != shape_of(self.result):
            raise VerifyException(f"{self.name}: operand and result shapes differ")


@irdl_op_definition
class RealOp(_ComplexPart):
    name = "stablehlo.real"


@irdl_op_definition
class ImagOp(_ComplexPart):
    name = "stablehlo.imag"


@irdl_op_definition
class ComplexOp(BinaryTensorOp):
    """``%r = stablehlo.complex %re, %im : tensor<..xcomplex<f32>>`` (the
    operands' float type follows from the result's)."""

    name = "stablehlo.complex"

    @classmethod
    def parse(cls, parser: Parser) -> ComplexOp:
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        if parser.parse_optional_punctuation("(") is not None:
            types = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_type
            )
            parser.parse_punctuation(")")
            parser.parse_punctuation("->")
            result = parser.parse_type()
        else:
            result = parser.parse_type()
            if not isinstance(result, TensorType) or not isinstance(
                result.element_type, ComplexType
            ):
                parser.raise_error(f"{cls.name}: result must be complex, got {result}")
            part = TensorType(result.element_type.element_type, result.get_shape())
            types = [part, part]
        operands = parser.resolve_operands([lhs, rhs], types, parser.pos)
        op = cls(operands[0], operands[1], result_type=result)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        out = element_type(self.result)
        if not isinstance(out, ComplexType):
            raise VerifyException(f"{self.name}: result must be complex")
        for side in (self.lhs, self.rhs):
            if element_type(side) != out.element_type or shape_of(side) != shape_of(
                self.result
            ):
                raise VerifyException(
                    f"{self.name}: operands must be {out.element_type} tensors of "
                    f"the result's shape: {side.type} -> {self.result.type}"
                )


COMPLEX_OPS = (FftOp, RealOp, ImagOp, ComplexOp)
COMPLEX_ATTRS = (FftTypeAttr,)
