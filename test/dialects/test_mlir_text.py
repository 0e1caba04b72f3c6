"""Constants print as MLIR prints them, and hex float literals parse as MLIR's."""

from __future__ import annotations

import random
import struct

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import (
    Builtin,
    DenseIntOrFPElementsAttr,
    IntegerType,
    Signedness,
    TensorType,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i32,
)
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from sbpc.dialects import _xdsl_fixes
from sbpc.dialects._mlir_text import format_dense, format_float

_xdsl_fixes.install()


def f32_value(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


@pytest.mark.parametrize(
    ("value", "type_", "text"),
    [
        (1.0, f32, "1.000000e+00"),
        (0.5, f32, "5.000000e-01"),
        (16.0, f32, "1.600000e+01"),
        (0.0, f32, "0.000000e+00"),
        (-0.0, f32, "-0.000000e+00"),
        (f32_value(0.797884583), f32, "0.797884583"),
        (f32_value(1e-5), f32, "9.99999974E-6"),
        (f32_value(1e-9), f32, "9.99999971E-10"),
        (f32_value(3.14159274), f32, "3.14159274"),
        (f32_value(123456789.0), f32, "0x4CEB79A3"),
        (float("-inf"), f32, "0xFF800000"),
        (float("inf"), f32, "0x7F800000"),
        (float("nan"), f32, "0x7FC00000"),
        (0.1, f64, "1.000000e-01"),
        (1e10, f32, "1.000000e+10"),
        (float(struct.unpack("<e", struct.pack("<e", 0.1))[0]), f16, "9.997550e-02"),
        (0.10009765625, bf16, "1.000980e-01"),
    ],
)
def test_format_float_matches_mlir(value, type_, text):
    assert format_float(value, type_) == text


def test_format_float_against_mlir_itself():
    """Random bit patterns, printed by jaxlib's MLIR and by us."""
    mlir = pytest.importorskip("jax._src.interpreters.mlir")
    ir = pytest.importorskip("jax._src.lib.mlir").ir
    rng = random.Random(0)
    with mlir.make_ir_context(), ir.Location.unknown():
        for name, type_, fmt, bits in (
            ("f32", f32, "<f", 32),
            ("f64", f64, "<d", 64),
            ("f16", f16, "<e", 16),
        ):
            mlir_type = ir.Type.parse(name)
            code = {32: "<I", 64: "<Q", 16: "<H"}[bits]
            for _ in range(300):
                raw = struct.pack(code, rng.getrandbits(bits))
                value = struct.unpack(fmt, raw)[0]
                if value != value:  # NaN payloads: MLIR keeps them, so do we
                    continue
                expected = str(ir.FloatAttr.get(mlir_type, value)).rsplit(" : ", 1)[0]
                assert format_float(value, type_) == expected, (name, value)


def dense(values, type_, shape):
    return DenseIntOrFPElementsAttr.from_list(TensorType(type_, shape), values)


def test_format_dense_forms():
    assert format_dense(dense([1.0] * 4, f32, [2, 2])) == "dense<1.000000e+00>"
    assert format_dense(dense([1, -2, 3, 4], i32, [2, 2])) == "dense<[[1, -2], [3, 4]]>"
    assert format_dense(dense([1, 0], i1, [2])) == "dense<[true, false]>"
    assert format_dense(dense([], f32, [0])) == "dense<>"
    # -0.0 and 0.0 are different elements, so this is no splat.
    assert format_dense(dense([0.0, -0.0], f32, [2])) == (
        "dense<[0.000000e+00, -0.000000e+00]>"
    )
    ui8 = IntegerType(8, Signedness.UNSIGNED)
    assert format_dense(dense([255, 1], ui8, [2])) == "dense<[255, 1]>"


def test_format_dense_uses_hex_above_100_elements():
    values = list(range(101))
    text = format_dense(dense(values, i32, [101]))
    assert text.startswith('dense<"0x0000000001000000')
    flags = format_dense(dense([i % 2 for i in range(101)], i1, [101]))
    assert flags.startswith('dense<"0x00010001')
    assert format_dense(dense(list(range(100)), i32, [100])).startswith("dense<[0, 1,")


def parse_attr(text: str):
    ctx = Context()
    ctx.load_dialect(Builtin)
    return Parser(ctx, text).parse_attribute()


def test_hex_float_dense_literals_are_bit_patterns():
    assert parse_attr("dense<0xFF800000> : tensor<f32>").get_values() == (
        float("-inf"),
    )
    values = parse_attr("dense<[0x7F800000, 1.0]> : tensor<2xf32>").get_values()
    assert values == (float("inf"), 1.0)
    assert parse_attr("dense<0x3C00> : tensor<2xf16>").get_values() == (1.0, 1.0)
    assert parse_attr("dense<0xFFF0000000000000> : tensor<f64>").get_values() == (
        float("-inf"),
    )
    # Integers are untouched.
    assert parse_attr("dense<0x10> : tensor<i32>").get_values() == (16,)


def test_hex_float_out_of_range():
    with pytest.raises(ParseError, match="out of range"):
        parse_attr("dense<0x1FF800000> : tensor<f32>")
