"""The StableHLO dialect on real JAX output: parse, verify, print, round-trip."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, linalg
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
    f32,
    i32,
)
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from sbpc.dialects import stablehlo as shlo

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROGRAMS = ("mlp", "transformer_block", "train_step")


def make_context() -> Context:
    ctx = Context()
    for dialect in (builtin.Builtin, func.Func, arith.Arith, linalg.Linalg):
        ctx.load_dialect(dialect)
    ctx.load_dialect(shlo.StableHLO)
    return ctx


def parse(text: str, verify: bool = True) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    if verify:
        module.verify()
    return module


def show(module: ModuleOp, generic: bool = False) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue()


def stablehlo_lines(text: str) -> list[str]:
    """The lines of stablehlo ops (and reducer bodies), SSA names erased.

    xDSL names values its own way (``%0, %1 = `` where MLIR writes ``%0:2 =``,
    ``%cst_1`` for ``%cst_0``); the ops themselves must read exactly as JAX
    printed them.
    """
    lines = []
    for line in text.splitlines():
        line = line.strip()
        if "stablehlo." in line or line.startswith("reducer"):
            line = re.sub(r"%[\w.$-]+(#\d+)?", "%_", line)
            line = re.sub(r"^%_(, %_)*(:\d+)? = ", "", line)
            lines.append(line)
    return lines


def one_op(text: str):
    """The first stablehlo op of a module parsed from ``text``."""
    module = parse(text)
    return next(op for op in module.walk() if op.name.startswith("stablehlo."))


# --------------------------------------------------------------- JAX programs


@pytest.fixture(scope="module", params=PROGRAMS)
def program(request) -> tuple[str, str]:
    path = EXAMPLES / "stablehlo" / f"{request.param}.mlir"
    return request.param, path.read_text()


def test_exported_program_parses_verifies_and_round_trips(program):
    _, text = program
    module = parse(text)
    printed = show(module)
    again = show(parse(printed))
    assert again == printed


def test_exported_program_prints_ops_exactly_as_jax(program):
    _, text = program
    jax_lines = stablehlo_lines(text)
    assert jax_lines, "no stablehlo ops found"
    assert stablehlo_lines(show(parse(text))) == jax_lines


def test_exported_program_uses_only_dialect_ops(program):
    _, text = program
    module = parse(text)
    names = {op.name for op in module.walk()}
    known = {op.name for op in shlo.StableHLO.operations}
    others = names - known
    assert others <= {"builtin.module", "func.func", "func.call", "func.return"}
    assert any(isinstance(op, func.CallOp) for op in module.walk())


def test_exported_program_generic_form_round_trips(program):
    _, text = program
    module = parse(text)
    generic = show(module, generic=True)
    assert '"stablehlo.dot_general"' in generic
    assert show(parse(generic)) == show(module)


def test_exports_are_up_to_date():
    """The committed .mlir files are what the export script writes today."""
    import runpy

    script = runpy.run_path(str(EXAMPLES / "export_stablehlo.py"), run_name="export")
    for name in PROGRAMS:
        committed = (EXAMPLES / "stablehlo" / f"{name}.mlir").read_text()
        assert script["export"](name) == committed, name


def test_mlir_itself_reads_our_output_back_to_jax_text():
    """jaxlib's MLIR (with the real stablehlo dialect) parses what we print,
    pretty or generic, and prints JAX's original text again."""
    mlir = pytest.importorskip("jax._src.interpreters.mlir")
    ir = pytest.importorskip("jax._src.lib.mlir").ir
    for name in PROGRAMS:
        text = (EXAMPLES / "stablehlo" / f"{name}.mlir").read_text()
        module = parse(text)
        for ours in (show(module), show(module, generic=True)):
            with mlir.make_ir_context():
                assert str(ir.Module.parse(ours)) == text, name


# --------------------------------------------------------------- generic form

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


def test_generic_form_parses_and_prints_pretty():
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


def test_generic_form_keeps_minus_infinity():
    module = parse(GENERIC)
    constant = next(op for op in module.walk() if isinstance(op, shlo.ConstantOp))
    assert constant.value.get_values() == (float("-inf"),)


# --------------------------------------------------------------- accessors


def test_dot_general_accessors():
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


def test_shape_op_accessors():
    module = parse(
        "func.func @f(%x: tensor<8x16xf32>, %s: tensor<f32>, %i: tensor<i32>) {\n"
        "  %0 = stablehlo.broadcast_in_dim %x, dims = [0, 2] : "
        "(tensor<8x16xf32>) -> tensor<8x4x16xf32>\n"
        "  %1 = stablehlo.transpose %x, dims = [1, 0] : "
        "(tensor<8x16xf32>) -> tensor<16x8xf32>\n"
        "  %2 = stablehlo.slice %x [1:3, 0:16:2] : (tensor<8x16xf32>) -> tensor<2x8xf32>\n"
        "  %3 = stablehlo.concatenate %x, %x, dim = 1 : "
        "(tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x32xf32>\n"
        "  %4 = stablehlo.pad %x, %s, low = [1, 0], high = [2, 3], interior = [0, 1] : "
        "(tensor<8x16xf32>, tensor<f32>) -> tensor<11x34xf32>\n"
        "  %5 = stablehlo.dynamic_slice %x, %i, %i, sizes = [2, 4] : "
        "(tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>\n"
        "  %6 = stablehlo.iota dim = 1 : tensor<8x16xi32>\n"
        "  %7 = stablehlo.reverse %x, dims = [0, 1] : tensor<8x16xf32>\n"
        "  %8 = stablehlo.compare LT, %x, %x, FLOAT : "
        "(tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>\n"
        "  %9 = stablehlo.compare EQ, %x, %x : "
        "(tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>\n"
        "  return\n}"
    )
    ops = [op for op in module.walk() if op.name.startswith("stablehlo.")]
    bcast, transpose, slice_, concat, pad, dslice, iota, reverse, lt, eq = ops
    assert bcast.broadcast_dimensions == (0, 2)
    assert transpose.permutation == (1, 0)
    assert (slice_.start_indices, slice_.limit_indices, slice_.strides) == (
        (1, 0),
        (3, 16),
        (1, 2),
    )
    assert concat.dimension == 1 and len(concat.inputs) == 2
    assert pad.edge_padding_low == (1, 0)
    assert pad.edge_padding_high == (2, 3)
    assert pad.interior_padding == (0, 1)
    assert dslice.slice_sizes == (2, 4) and len(dslice.start_indices) == 2
    assert iota.iota_dimension == 1
    assert reverse.dimensions == (0, 1)
    assert (lt.comparison_direction, lt.compare_type) == ("LT", "FLOAT")
    assert (eq.comparison_direction, eq.compare_type) == ("EQ", None)


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
def test_reduce_kind_of_short_form(body_op, kind):
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


def test_reduce_kind_of_region_forms():
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


def test_elementwise_trait():
    assert shlo.AddOp.has_trait(shlo.Elementwise)
    assert shlo.TanhOp.has_trait(shlo.Elementwise)
    assert shlo.SelectOp.has_trait(shlo.Elementwise)
    assert shlo.CompareOp.has_trait(shlo.Elementwise)
    assert not shlo.DotGeneralOp.has_trait(shlo.Elementwise)
    assert not shlo.BroadcastInDimOp.has_trait(shlo.Elementwise)


def test_plain_attrs_of_exported_programs(program):
    """Every op of the real programs yields plain values, under StableHLO names."""
    _, text = program
    seen = set()
    for op in parse(text).walk():
        attrs = shlo.plain_attrs(op)
        seen.add(op.name)
        for key, value in attrs.items():
            assert isinstance(value, int | str | tuple | np.ndarray | None), key
        if isinstance(op, shlo.ReduceOp):
            assert attrs["kind"] in ("add", "max")
        if isinstance(op, shlo.ConstantOp):
            assert attrs["value"].shape == tuple(op.output.type.get_shape())
    assert "stablehlo.dot_general" in seen


def test_plain_attrs_values():
    module = parse(
        "func.func @f(%x: tensor<8x16xf32>, %i: tensor<2x1xi32>) {\n"
        "  %c = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xui8>\n"
        "  %b = stablehlo.constant dense<[true, false]> : tensor<2xi1>\n"
        "  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
        '  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<'
        "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
        "index_vector_dim = 1>, indices_are_sorted = false, "
        "slice_sizes = array<i64: 1, 16>}> : "
        "(tensor<8x16xf32>, tensor<2x1xi32>) -> tensor<2x16xf32>\n"
        "  %1 = stablehlo.reduce(%x init: %m) applies stablehlo.maximum across "
        "dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>\n"
        "  %2 = stablehlo.tanh %x : tensor<8x16xf32>\n"
        "  return\n}"
    )
    body = next(op for op in module.walk() if isinstance(op, func.FuncOp)).body
    ops = [op for op in body.ops if op.name.startswith("stablehlo.")]
    ui8, flags, minus_inf, gather, reduce, tanh = ops
    value = shlo.plain_attrs(ui8)["value"]
    assert value.dtype == np.uint8 and value.tolist() == [[1, 2], [3, 4]]
    assert shlo.plain_attrs(flags)["value"].tolist() == [True, False]
    assert shlo.plain_attrs(minus_inf)["value"] == -np.inf
    assert shlo.plain_attrs(gather) == {
        "offset_dims": (1,),
        "collapsed_slice_dims": (0,),
        "operand_batching_dims": (),
        "start_indices_batching_dims": (),
        "start_index_map": (0,),
        "index_vector_dim": 1,
        "slice_sizes": (1, 16),
        "indices_are_sorted": False,
    }
    assert shlo.plain_attrs(reduce) == {"dimensions": (1,), "kind": "max"}
    assert shlo.plain_attrs(tanh) == {}


# --------------------------------------------------------------- building ops


def test_builders_infer_result_types_and_print_like_jax():
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


# --------------------------------------------------------------- verifier errors

INVALID = [
    (
        "%0 = stablehlo.add %a, %b : (tensor<8x16xf32>, tensor<16x8xf32>) "
        "-> tensor<8x16xf32>",
        "stablehlo.add: rhs and result shapes differ",
    ),
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
        "%0 = stablehlo.broadcast_in_dim %a, dims = [1, 0] : "
        "(tensor<8x16xf32>) -> tensor<8x16xf32>",
        "stablehlo.broadcast_in_dim: operand dimension 0 of size 8 cannot be "
        "broadcast to result dimension 1 of size 16",
    ),
    (
        "%0 = stablehlo.reshape %a : (tensor<8x16xf32>) -> tensor<8x8xf32>",
        "stablehlo.reshape: element counts differ",
    ),
    (
        "%0 = stablehlo.transpose %a, dims = [0, 0] : "
        "(tensor<8x16xf32>) -> tensor<8x8xf32>",
        r"stablehlo.transpose: \[0, 0\] is not a permutation",
    ),
    (
        "%0 = stablehlo.reduce(%a init: %s) applies stablehlo.add across "
        "dimensions = [2] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>",
        "stablehlo.reduce: dimension 2 is out of range for rank 2",
    ),
    (
        "%0 = stablehlo.concatenate %a, %b, dim = 0 : "
        "(tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<24x16xf32>",
        "stablehlo.concatenate: input 1 has size 8 in dimension 1, expected 16",
    ),
    (
        "%0 = stablehlo.slice %a [0:9, 0:16] : (tensor<8x16xf32>) -> tensor<9x16xf32>",
        "stablehlo.slice: range 0:9 of dimension 0 is out of bounds for size 8",
    ),
    (
        "%0 = stablehlo.compare GT, %a, %a : "
        "(tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>",
        "stablehlo.compare: result must be a tensor of i1",
    ),
    (
        "%0 = stablehlo.select %s, %a, %b : "
        "(tensor<f32>, tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>",
        "stablehlo.select: predicate must be a tensor of i1",
    ),
]


@pytest.mark.parametrize(("op_text", "message"), INVALID)
def test_verifier(op_text, message):
    text = (
        "func.func @f(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>, %s: tensor<f32>) {\n"
        f"  {op_text}\n  return\n}}"
    )
    module = parse(text, verify=False)
    if message is None:
        module.verify()
        return
    with pytest.raises(VerifyException, match=message):
        module.verify()


def test_short_reduce_form_needs_a_commutative_op():
    with pytest.raises(ParseError, match="commutative binary-op"):
        parse(
            "func.func @f(%a: tensor<8xf32>, %s: tensor<f32>) {\n"
            "  %0 = stablehlo.reduce(%a init: %s) applies stablehlo.divide across "
            "dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>\n"
            "  return\n}"
        )


# --------------------------------------------------------------- scatter


_EMBED_GRAD = dict(
    update_window_dims=[1], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0]
)


@pytest.mark.parametrize("kind", ["add", "mul", "max", "min", "replace"])
def test_scatter_builder_kind_and_plain_attrs(kind: str):
    table, rows = TensorType(f32, [64, 32]), TensorType(f32, [8, 32])
    block = Block(arg_types=[table, TensorType(i32, [8, 1]), rows])
    numbers = shlo.ScatterDimensionNumbersAttr.get(**_EMBED_GRAD, index_vector_dim=1)
    op = shlo.ScatterOp.of_kind(kind, *block.args, numbers, unique_indices=True)
    block.add_ops([op, func.ReturnOp(op.result)])
    function = func.FuncOp("f", (list(block.arg_types), [table]), Region(block))
    module = ModuleOp([function])
    module.verify()
    assert op.result.type == table and op.combiner_kind == kind
    assert shlo.plain_attrs(op) == {
        "update_window_dims": (1,),
        "inserted_window_dims": (0,),
        "input_batching_dims": (),
        "scatter_indices_batching_dims": (),
        "scatter_dims_to_operand_dims": (0,),
        "index_vector_dim": 1,
        "indices_are_sorted": False,
        "unique_indices": True,
        "kind": kind,
    }
    # Printed in the generic form, it parses back to the same text.
    text = str(module)
    assert '"stablehlo.scatter"(%0, %1, %2) <{indices_are_sorted = false' in text
    assert str(parse(text)) == text


@pytest.mark.parametrize(
    "body, kind",
    [
        ("%r = stablehlo.add %b, %a : tensor<f32>\n stablehlo.return %r", "add"),
        ("stablehlo.return %b", "replace"),
        ("stablehlo.return %a", None),  # keeps the operand: not a kind we name
        ("%r = stablehlo.subtract %a, %b : tensor<f32>\n stablehlo.return %r", None),
        (
            "%r = stablehlo.add %a, %b : tensor<f32>\n"
            " %s = stablehlo.add %r, %b : tensor<f32>\n stablehlo.return %s",
            None,
        ),
    ],
)
def test_scatter_combiner_kind(body: str, kind: str | None):
    module = parse(
        "func.func @f(%x: tensor<8xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>) "
        "-> tensor<8xf32> {\n"
        '  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = '
        "#stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims "
        "= [0], index_vector_dim = 1>}> ({\n"
        "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
        f"    {body} : tensor<f32>\n"
        "  }) : (tensor<8xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<8xf32>\n"
        "  return %0 : tensor<8xf32>\n}"
    )
    op = next(o for o in module.walk() if isinstance(o, shlo.ScatterOp))
    assert op.combiner_kind == kind
    assert not op.indices_are_sorted and not op.unique_indices
