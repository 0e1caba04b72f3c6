"""scatter: builders, combiner kinds, plain attributes, generic round trip."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ModuleOp,
    TensorType,
    f32,
    i32,
)
from xdsl.ir import Block, Region

from sbpc.dialects import stablehlo as shlo

_EMBED_GRAD = dict(
    update_window_dims=[1], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0]
)


@pytest.mark.parametrize("kind", ["add", "mul", "max", "min", "replace"])
def test_scatter_builder_kind_and_plain_attrs(parse, kind: str):
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
def test_scatter_combiner_kind(parse, body: str, kind: str | None):
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
