"""constant and iota: MLIR's result names, builders, verifiers."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
    f32,
    i32,
)
from xdsl.ir import Block, Region

from sbpc.dialects import stablehlo as shlo


def test_built_constants_are_named_as_mlir_names_them(show):
    floats = shlo.ConstantOp(
        DenseIntOrFPElementsAttr.from_list(TensorType(f32, []), [1])
    )
    ints = shlo.ConstantOp(
        DenseIntOrFPElementsAttr.from_list(TensorType(i32, [2]), [1, 2])
    )
    iota = shlo.IotaOp(0, TensorType(i32, [4]))
    block = Block()
    block.add_ops([floats, ints, iota, func.ReturnOp()])
    module = ModuleOp([func.FuncOp("f", ([], []), Region(block))])
    module.verify()
    text = show(module)
    assert "%cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>" in text
    assert "%c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>" in text
    assert "stablehlo.iota dim = 0 : tensor<4xi32>" in text
    assert iota.iota_dimension == 0


@pytest.mark.parametrize(
    ("op_text", "message"),
    [
        (
            "%0 = stablehlo.iota dim = 2 : tensor<8x16xi32>",
            "stablehlo.iota: iota dimension 2 is out of range for rank 2",
        ),
        (
            "%0 = stablehlo.iota dim = 0 : tensor<i32>",
            "stablehlo.iota: output must have rank at least 1",
        ),
        (
            '%0 = "stablehlo.constant"() <{value = dense<0> : tensor<2xi32>}> '
            ": () -> tensor<3xi32>",
            "stablehlo.constant: value type tensor<2xi32> differs from result type",
        ),
    ],
)
def test_verifier(expect_verify_error, op_text, message):
    expect_verify_error(op_text, message)
