"""dot_general and reduce: accessors, reduction kinds, builders, verifiers."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
    f32,
)
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import ParseError

from sbpc.dialects import stablehlo as shlo


def test_dot_general_accessors(one_op):
    op = one_op(
        "func.func @f(%a: tensor<2x4x16xf32>, %b: tensor<2x16x8xf32>) {\n"
        "  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], "
        "contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : "
        "(tensor<2x4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>\n"
        "  return\n}"
    )
    assert isinstance(op, shlo.DotGeneralOp)
    assert op.lhs_batching_dimensions == (0,)
    assert op.rhs_batching_dimensions == (0,)
    assert op.lhs_contracting_dimensions == (2,)
    assert op.rhs_contracting_dimensions == (1,)
    assert op.lhs_free_dimensions == (1,)
    assert op.rhs_free_dimensions == (2,)
    assert op.precision == ("DEFAULT", "DEFAULT")


@pytest.mark.parametrize(
    ("body_op", "kind"),
    [
        ("add", "add"),
        ("multiply", "mul"),
        ("maximum", "max"),
        ("minimum", "min"),
        ("and", "and"),
        ("or", "or"),
        ("xor", "xor"),
    ],
)
def test_reduce_kind_of_short_form(one_op, body_op, kind):
    element = "i1" if kind in ("and", "or", "xor") else "f32"
    op = one_op(
        f"func.func @f(%x: tensor<8x16x{element}>, %i: tensor<{element}>) {{\n"
        f"  %0 = stablehlo.reduce(%x init: %i) applies stablehlo.{body_op} across "
        f"dimensions = [0, 1] : (tensor<8x16x{element}>, tensor<{element}>) "
        f"-> tensor<{element}>\n  return\n}}"
    )
    assert isinstance(op, shlo.ReduceOp)
    assert op.dimensions == (0, 1)
    assert op.reduction_kind == kind


def test_reduce_kind_of_region_forms(parse, show):
    module = parse(
        "func.func @f(%x: tensor<8x16xf32>, %y: tensor<8x16xi32>, %i: tensor<f32>,"
        " %j: tensor<i32>) {\n"
        # A commutative body with swapped operands is still a max reduction.
        "  %0 = stablehlo.reduce(%x init: %i) across dimensions = [1] : "
        "(tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>\n"
        "   reducer(%a: tensor<f32>, %b: tensor<f32>)  {\n"
        "    %m = stablehlo.maximum %b, %a : tensor<f32>\n"
        "    stablehlo.return %m : tensor<f32>\n  }\n"
        # Subtraction is no reduction kind sbpc knows.
        "  %1 = stablehlo.reduce(%x init: %i) across dimensions = [1] : "
        "(tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>\n"
        "   reducer(%a: tensor<f32>, %b: tensor<f32>)  {\n"
        "    %m = stablehlo.subtract %a, %b : tensor<f32>\n"
        "    stablehlo.return %m : tensor<f32>\n  }\n"
        # Argmax: two inputs, a compare/select body.
        "  %2:2 = stablehlo.reduce(%x init: %i), (%y init: %j) across dimensions = [1]"
        " : (tensor<8x16xf32>, tensor<8x16xi32>, tensor<f32>, tensor<i32>) -> "
        "(tensor<8xf32>, tensor<8xi32>)\n"
        "   reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>)"
        "  {\n"
        "    %p = stablehlo.compare GT, %a, %c, FLOAT : "
        "(tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %v = stablehlo.select %p, %a, %c : tensor<i1>, tensor<f32>\n"
        "    %k = stablehlo.select %p, %b, %d : tensor<i1>, tensor<i32>\n"
        "    stablehlo.return %v, %k : tensor<f32>, tensor<i32>\n  }\n"
        "  return\n}"
    )
    swapped, subtract, argmax = (
        op for op in module.walk() if isinstance(op, shlo.ReduceOp)
    )
    assert swapped.reduction_kind == "max"
    assert subtract.reduction_kind is None
    assert argmax.reduction_kind is None
    assert len(argmax.inputs) == len(argmax.init_values) == 2
    # Only the exact `op(arg0, arg1)` body prints short, as in StableHLO.
    assert "reducer" in show(module).split("stablehlo.subtract")[0]


def test_builders_infer_result_types_and_print_like_jax(parse, show):
    x_type = TensorType(f32, [8, 16])
    w_type = TensorType(f32, [16, 4])
    block = Block(arg_types=[x_type, w_type])
    x, w = block.args
    zero = shlo.ConstantOp(DenseIntOrFPElementsAttr.from_list(TensorType(f32, []), [0]))
    dot = shlo.DotGeneralOp(
        x,
        w,
        shlo.DotDimensionNumbersAttr.get(
            lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0]
        ),
        precision=["DEFAULT", "DEFAULT"],
    )
    reduce = shlo.ReduceOp.of_kind("max", dot, zero, [1])
    bcast = shlo.BroadcastInDimOp(reduce.results[0], [0], TensorType(f32, [8, 4]))
    sub = shlo.SubtractOp(dot, bcast)
    cmp = shlo.CompareOp("GT", sub, dot, "FLOAT")
    sel = shlo.SelectOp(cmp, sub, dot)
    tr = shlo.TransposeOp(sel, [1, 0])
    block.add_ops([zero, dot, reduce, bcast, sub, cmp, sel, tr, func.ReturnOp(tr)])
    function = func.FuncOp("f", ([x_type, w_type], [tr.result.type]), Region(block))
    module = ModuleOp([function])
    module.verify()
    assert dot.result.type == TensorType(f32, [8, 4])
    assert reduce.results[0].type == TensorType(f32, [8])
    assert reduce.reduction_kind == "max"
    assert tr.result.type == TensorType(f32, [4, 8])
    printed = show(module)
    assert "%cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>" in printed
    assert (
        "init: %cst) applies stablehlo.maximum across "
        "dimensions = [1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>"
    ) in printed
    assert show(parse(printed)) == printed


INVALID = [
    (
        "%0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [1] : "
        "(tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>",
        None,  # valid: a @ a.T
    ),
    (
        "%0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [1] : "
        "(tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>",
        "stablehlo.dot_general: contracting dimension sizes differ: 16 vs 8",
    ),
    (
        "%0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
        "(tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>",
        r"stablehlo.dot_general: result shape \[8, 16\] should be \[8, 8\]",
    ),
    (
        "%0 = stablehlo.reduce(%a init: %s) applies stablehlo.add across "
        "dimensions = [2] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>",
        "stablehlo.reduce: dimension 2 is out of range for rank 2",
    ),
]


def test_verifier(expect_verify_error, invalid_op):
    """Each ``INVALID`` op (see conftest) fails to verify with its message."""
    expect_verify_error(*invalid_op)


def test_short_reduce_form_needs_a_commutative_op(parse):
    with pytest.raises(ParseError, match="commutative binary-op"):
        parse(
            "func.func @f(%a: tensor<8xf32>, %s: tensor<f32>) {\n"
            "  %0 = stablehlo.reduce(%a init: %s) applies stablehlo.divide across "
            "dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>\n"
            "  return\n}"
        )
