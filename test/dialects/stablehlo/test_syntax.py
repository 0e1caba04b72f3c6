"""StableHLO's syntax on real JAX output: parse, print exactly as JAX and
jaxlib's MLIR do, round-trip, in the pretty and the generic form."""

from __future__ import annotations

import pytest

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
