"""StableHLO's syntax on real JAX output: parse, print exactly as JAX and
jaxlib's MLIR do, round-trip, in the pretty and the generic form."""

from __future__ import annotations

import re

import pytest
from xdsl.utils.exceptions import ParseError

from sbpc.dialects import stablehlo as shlo


def test_exported_program_parses_verifies_and_round_trips(parse, show, program):
    _, text = program
    module = parse(text)
    printed = show(module)
    again = show(parse(printed))
    assert again == printed


def test_exported_program_prints_ops_exactly_as_jax(
    parse, show, stablehlo_lines, program
):
    _, text = program
    jax_lines = stablehlo_lines(text)
    assert jax_lines, "no stablehlo ops found"
    assert stablehlo_lines(show(parse(text))) == jax_lines


def test_exported_program_generic_form_round_trips(parse, show, program):
    _, text = program
    module = parse(text)
    generic = show(module, generic=True)
    assert '"stablehlo.dot_general"' in generic
    assert show(parse(generic)) == show(module)


def test_mlir_itself_reads_our_output_back_to_jax_text(parse, show, program):
    """jaxlib's MLIR (with the real stablehlo dialect) parses what we print,
    pretty or generic, and prints JAX's original text again."""
    mlir = pytest.importorskip("jax._src.interpreters.mlir")
    ir = pytest.importorskip("jax._src.lib.mlir").ir
    name, text = program
    module = parse(text)
    for ours in (show(module), show(module, generic=True)):
        with mlir.make_ir_context():
            assert str(ir.Module.parse(ours)) == text, name


GENERIC = """
"func.func"() <{function_type = (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8xf32>,
                sym_name = "f"}> ({
^bb0(%x: tensor<8x16xf32>, %y: tensor<16x8xf32>):
  %0 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
  %1 = "stablehlo.dot_general"(%x, %y) <{dot_dimension_numbers = #stablehlo.dot<
      lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>,
      precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGH>]}>
      : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %2 = "stablehlo.compare"(%1, %1) <{
      compare_type = #stablehlo<comparison_type FLOAT>,
      comparison_direction = #stablehlo<comparison_direction GE>}>
      : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xi1>
  %3 = "stablehlo.select"(%2, %1, %1)
      : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %4 = "stablehlo.reduce"(%3, %0) <{dimensions = array<i64: 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%m) : (tensor<f32>) -> ()
  }) : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
  "func.return"(%4) : (tensor<8xf32>) -> ()
}) : () -> ()
"""


def test_generic_form_parses_and_prints_pretty(parse, show, stablehlo_lines):
    printed = show(parse(GENERIC))
    assert stablehlo_lines(printed) == [
        "stablehlo.constant dense<0xFF800000> : tensor<f32>",
        "stablehlo.dot_general %_, %_, contracting_dims = [1] x [0], "
        "precision = [DEFAULT, HIGH] : (tensor<8x16xf32>, tensor<16x8xf32>) "
        "-> tensor<8x8xf32>",
        "stablehlo.compare GE, %_, %_, FLOAT : (tensor<8x8xf32>, tensor<8x8xf32>) "
        "-> tensor<8x8xi1>",
        "stablehlo.select %_, %_, %_ : tensor<8x8xi1>, tensor<8x8xf32>",
        "stablehlo.reduce(%_ init: %_) applies stablehlo.maximum across "
        "dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>",
    ]
    assert show(parse(printed)) == printed


def test_generic_form_keeps_minus_infinity(parse):
    module = parse(GENERIC)
    constant = next(op for op in module.walk() if isinstance(op, shlo.ConstantOp))
    assert constant.value.get_values() == (float("-inf"),)


# --------------------------------------------------------------- directives


def test_same_operands_and_result_type_prints_one_type_or_a_function(parse, show):
    text = (
        "func.func @f(%a: tensor<4xf32>, %s: tensor<f32>) {\n"
        "  %0 = stablehlo.add %a, %a : tensor<4xf32>\n"
        "  %1 = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xi32>\n"
        "  %2 = stablehlo.clamp %s, %a, %s : "
        "(tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>\n"
        "  %3 = stablehlo.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
        "  return\n}"
    )
    printed = show(parse(text))
    assert "stablehlo.add %a, %a : tensor<4xf32>" in printed
    assert "stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xi32>" in printed
    assert "(tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>" in printed
    # A function type whose types all agree prints as the one type.
    assert printed.count("stablehlo.add %a, %a : tensor<4xf32>") == 2


_CONV = (
    "%0 = stablehlo.convolution(%a, %a) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], "
)
_CONV_TYPE = "(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>"


@pytest.mark.parametrize(
    ("op_text", "message"),
    [
        (
            "%0 = stablehlo.add %a, %a : (tensor<4xf32>) -> tensor<4xf32>",
            "2 operands present, but expected 1",
        ),
        (
            "%0 = stablehlo.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> "
            "(tensor<4xf32>, tensor<4xf32>)",
            "expected single output",
        ),
        (
            "%0 = stablehlo.select %a, %a, %a : tensor<4xf32>",
            "expected functional type or list of two types",
        ),
        (
            "%0 = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0], "
            "algorithm = 1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>",
            "'<' expected",
        ),
        (
            "%0 = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0], "
            "algorithm = <lhs_precision_type = f32> "
            ": (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>",
            "dot_algorithm: missing field(s) rhs_precision_type, accumulation_type",
        ),
        (
            "%0 = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0], "
            "algorithm = <lhs_precision_type = f32, lhs_precision_type = f32> "
            ": (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>",
            "duplicate field 'lhs_precision_type'",
        ),
        (
            "%0 = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0], "
            "algorithm = <precision_type = f32> "
            ": (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>",
            "unknown field 'precision_type'",
        ),
        (
            _CONV + "window = {strides = [1]} : " + _CONV_TYPE,
            "unknown window attribute 'strides', expected one of stride, pad",
        ),
        (
            _CONV + "window = {stride = [1], stride = [1]} : " + _CONV_TYPE,
            "duplicate window attribute 'stride'",
        ),
    ],
)
def test_directive_parse_errors(parse, op_text: str, message: str):
    with pytest.raises(ParseError, match=re.escape(message)):
        parse(f"func.func @f(%a: tensor<4xf32>) {{\n  {op_text}\n  return\n}}")


def test_format_type_errors_are_located(parse):
    """A type the op's constraints reject is a parse error at the op's text
    (xDSL's declarative parser alone would raise it without a location)."""
    text = "func.func @f(%a: tensor<4xf32>) {\n  %0 = stablehlo.negate %a : f32\n  return\n}"
    with pytest.raises(
        ParseError, match="f32 should be of base attribute tensor"
    ) as info:
        parse(text)
    assert info.value.span.get_location().line == 2


def test_variadic_operands_before_an_attribute(parse, show):
    text = (
        "func.func @f(%a: tensor<4xf32>, %i: tensor<i32>) {\n"
        "  %0 = stablehlo.concatenate %a, %a, %a, dim = 0 : "
        "(tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<12xf32>\n"
        "  %1 = stablehlo.dynamic_slice %a, %i, sizes = [2] : "
        "(tensor<4xf32>, tensor<i32>) -> tensor<2xf32>\n"
        "  return\n}"
    )
    printed = show(parse(text))
    assert "stablehlo.concatenate %a, %a, %a, dim = 0 :" in printed
    assert "stablehlo.dynamic_slice %a, %i, sizes = [2] :" in printed
    assert show(parse(printed)) == printed
