"""MLIR's exact spelling of dense constants, so printed StableHLO matches JAX's text.

xDSL prints float elements its own way (``9.99999974e-06``, lower-case hex for
infinities) where MLIR, and so ``jax.jit(f).lower(...).as_text()``, prints
``9.99999974E-6`` and ``0xFF800000``. Both re-parse, but the StableHLO dialect
promises JAX's text, so ``stablehlo.constant`` prints its value through this
module: a port of LLVM's ``APFloat::toString`` and MLIR's ``printFloatValue``
and dense-elements printer (splat, nested lists, hex string above 100 elements).
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)

# (precision in bits including the implicit one, min exponent, max exponent,
#  storage bits) of the float types whose text MLIR prints.
_SEMANTICS: dict[type, tuple[int, int, int, int]] = {
    Float16Type: (11, -14, 15, 16),
    BFloat16Type: (8, -126, 127, 16),
    Float32Type: (24, -126, 127, 32),
    Float64Type: (53, -1022, 1023, 64),
}

# MLIR prints a dense attribute with more elements than this as a hex string.
HEX_THRESHOLD = 100


def _round_to_format(value: Fraction, precision: int, emin: int, emax: int) -> Fraction:
    """``value`` (> 0) rounded to nearest-even in a binary format; inf on overflow."""
    exp = value.numerator.bit_length() - value.denominator.bit_length()
    if Fraction(2) ** exp > value:
        exp -= 1
    exp = max(exp, emin)
    scale = precision - 1 - exp
    scaled = value * Fraction(2) ** scale
    whole, rest = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * rest
    if twice > scaled.denominator or (twice == scaled.denominator and whole % 2):
        whole += 1
    result = Fraction(whole) / Fraction(2) ** scale
    if result >= Fraction(2) ** (emax + 1):
        return Fraction(10) ** 400  # stands for infinity: never equal to a finite
    return result


def _adjust_digits(
    digits: list[str], exp: int, precision: int
) -> tuple[list[str], int]:
    """Round a little-endian decimal digit buffer to ``precision`` digits (half up)."""
    n = len(digits)
    if n <= precision:
        return digits, exp
    first = n - precision
    if digits[first - 1] < "5":
        while first < n and digits[first] == "0":
            first += 1
        return digits[first:], exp + first
    for i in range(first, n):
        if digits[i] == "9":
            first += 1
        else:
            digits[i] = chr(ord(digits[i]) + 1)
            break
    if first == n:
        return ["1"], exp + first
    return digits[first:], exp + first


def apfloat_to_string(
    value: float,
    precision_bits: int,
    format_precision: int,
    format_max_padding: int,
    truncate_zero: bool,
) -> str:
    """LLVM's ``IEEEFloat::toString`` for a finite ``value`` of a binary format."""
    negative = math.copysign(1.0, value) < 0
    sign = "-" if negative else ""
    if value == 0:
        if format_max_padding:
            return sign + "0"
        if truncate_zero:
            return sign + "0.0E+0"
        return sign + "0.0" + "0" * max(format_precision - 1, 0) + "e+00"

    if not format_precision:
        format_precision = 2 + precision_bits * 59 // 196

    numerator, denominator = Fraction(abs(value)).as_integer_ratio()
    # value = significand * 2**exp, trailing binary zeros dropped.
    exp = -(denominator.bit_length() - 1)
    significand = numerator
    while significand % 2 == 0:
        significand //= 2
        exp += 1
    if exp > 0:
        significand <<= exp
        exp = 0
    elif exp < 0:
        significand *= 5 ** (-exp)  # N * 2**-e == N * 5**e * 10**-e

    # First, coarse truncation to about format_precision digits (APInt version).
    bits = significand.bit_length()
    bits_required = (format_precision * 196 + 58) // 59
    if bits > bits_required:
        tens = (bits - bits_required) * 59 // 196
        if tens:
            exp += tens
            significand //= 10**tens

    digits: list[str] = []  # little-endian
    in_trail = True
    while significand:
        significand, d = divmod(significand, 10)
        if in_trail and not d:
            exp += 1
        else:
            digits.append(str(d))
            in_trail = False

    digits, exp = _adjust_digits(digits, exp, format_precision)
    ndigits = len(digits)

    if not format_max_padding:
        scientific = True
    elif exp >= 0:
        scientific = exp > format_max_padding or ndigits + exp > format_precision
    else:
        msd = exp + ndigits - 1
        scientific = msd < 0 and -msd > format_max_padding

    out = [sign]
    if scientific:
        exp += ndigits - 1
        out.append(digits[-1] + ".")
        if ndigits == 1 and truncate_zero:
            out.append("0")
        else:
            out.extend(reversed(digits[:-1]))
        if not truncate_zero and format_precision > ndigits - 1:
            out.append("0" * (format_precision - ndigits + 1))
        out.append("E" if truncate_zero else "e")
        out.append("+" if exp >= 0 else "-")
        exp_digits = str(abs(exp))
        if not truncate_zero and len(exp_digits) < 2:
            exp_digits = "0" + exp_digits
        out.append(exp_digits)
        return "".join(out)

    if exp >= 0:
        out.extend(reversed(digits))
        out.append("0" * exp)
        return "".join(out)

    whole_digits = exp + ndigits
    big_endian = list(reversed(digits))
    if whole_digits > 0:
        out.extend(big_endian[:whole_digits])
        out.append(".")
        out.extend(big_endian[whole_digits:])
    else:
        out.append("0." + "0" * (-whole_digits))
        out.extend(big_endian)
    return "".join(out)


def _raw_bits(value: float, type_cls: type) -> int:
    if type_cls is Float64Type:
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    f32_bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if type_cls is Float32Type:
        return f32_bits
    if type_cls is BFloat16Type:
        return f32_bits >> 16  # values stored in a bf16 attribute are exact bf16
    return struct.unpack("<H", struct.pack("<e", value))[0]


def format_float(value: float, float_type: object) -> str:
    """A float element of type f16, bf16, f32 or f64 as MLIR's ``printFloatValue``."""
    semantics = _SEMANTICS[type(float_type)]
    precision, emin, emax, storage_bits = semantics
    if math.isfinite(value):
        text = apfloat_to_string(value, precision, 6, 0, False)
        mantissa, _, exponent = text.partition("e")
        parsed = Fraction(mantissa) * Fraction(10) ** int(exponent)
        exact = Fraction(value)
        if parsed == 0:
            round_trips = exact == 0
        else:
            rounded = _round_to_format(abs(parsed), precision, emin, emax)
            round_trips = rounded == abs(exact)
        if round_trips:
            return text
        text = apfloat_to_string(value, precision, 0, 3, True)
        if "." in text:
            return text
    bits = _raw_bits(value, type(float_type))
    return f"0x{bits:0{storage_bits // 4}X}"


def _int_text(value: int, int_type: IntegerType) -> str:
    width = int_type.width.data
    if width == 1:
        return "true" if value & 1 else "false"
    value &= (1 << width) - 1
    if int_type.signedness.data != Signedness.UNSIGNED and value >> (width - 1):
        value -= 1 << width
    return str(value)


def format_dense(attr: DenseIntOrFPElementsAttr) -> str | None:
    """``dense<...>`` without its type, exactly as MLIR prints it.

    None for element types this module does not spell (complex, index, the
    small float formats): callers fall back to xDSL's own printing.
    """
    element_type = attr.get_element_type()
    values = attr.get_values()
    shape = attr.get_shape()
    count = len(values)
    if count == 0:
        return "dense<>"

    if isinstance(element_type, IntegerType):

        def one(v: object) -> str:
            return _int_text(int(v), element_type)  # type: ignore[arg-type]

    elif type(element_type) in _SEMANTICS:

        def one(v: object) -> str:
            return format_float(float(v), element_type)  # type: ignore[arg-type]

    else:
        return None

    if _is_splat(values):
        return f"dense<{one(values[0])}>"
    if count > HEX_THRESHOLD:
        return f'dense<"0x{_raw_bytes(attr).hex().upper()}">'

    def nested(flat: list[str], dims: tuple[int, ...]) -> str:
        if len(dims) <= 1:
            return "[" + ", ".join(flat) + "]"
        step = len(flat) // dims[0]
        starts = range(0, len(flat), step)
        parts = (nested(flat[i : i + step], dims[1:]) for i in starts)
        return "[" + ", ".join(parts) + "]"

    return f"dense<{nested([one(v) for v in values], tuple(shape))}>"


def _is_splat(values: tuple) -> bool:
    """All elements equal bit for bit (tells -0.0 from 0.0; NaN equals NaN)."""
    first = values[0]
    if isinstance(first, float):
        head = struct.pack("<d", first)
        return all(struct.pack("<d", v) == head for v in values)
    return all(v == first for v in values)


def _raw_bytes(attr: DenseIntOrFPElementsAttr) -> bytes:
    """The attribute's elements as MLIR stores them (i1: one 0/1 byte each)."""
    element_type = attr.get_element_type()
    if isinstance(element_type, IntegerType) and element_type.width.data == 1:
        return bytes(1 if v else 0 for v in attr.get_values())
    return attr.data.data
