"""What StableHLO's ops share: type accessors, checks, abstract ops, and
properties kept in MLIR's (sorted) order whoever builds the op."""

from __future__ import annotations

import re

import pytest
from xdsl.dialects.builtin import TensorType, f32, i32
from xdsl.ir import Block
from xdsl.utils.exceptions import VerifyException

from sbpc.dialects import stablehlo as shlo
from sbpc.dialects.stablehlo.base import (
    check_unique_in_range,
    element_type,
    shape_of,
    tensor_type,
)


def test_type_accessors_take_values_and_types():
    block = Block(arg_types=[TensorType(i32, [2, 3])])
    (x,) = block.args
    assert shape_of(x) == shape_of(x.type) == (2, 3)
    assert element_type(x) == i32
    assert tensor_type(x) == x.type
    with pytest.raises(VerifyException, match="expected a ranked tensor, got f32"):
        shape_of(f32)


@pytest.mark.parametrize(
    ("dims", "message"),
    [
        ((0, 2), "stablehlo.x: dimension 2 is out of range for rank 2"),
        ((1, 1), "stablehlo.x: dimensions are not unique: [1, 1]"),
    ],
)
def test_check_unique_in_range(dims, message):
    check_unique_in_range("stablehlo.x", "dimension", (1, 0), 2)
    with pytest.raises(VerifyException, match=re.escape(message)):
        check_unique_in_range("stablehlo.x", "dimension", dims, 2)


def test_builders_default_the_result_type_to_the_operands():
    block = Block(arg_types=[TensorType(f32, [4])] * 2)
    a, b = block.args
    assert shlo.NegOp(a).result.type == a.type
    assert shlo.AddOp(a, b).result.type == a.type


def test_parsed_ops_keep_properties_sorted_as_mlir_prints_them(parse, show):
    """The pretty syntax spells compare's direction before its type and pad's
    low before high; the generic form lists them by name, as MLIR does."""
    module = parse(
        "func.func @f(%a: tensor<4xf32>, %s: tensor<f32>) {\n"
        "  %0 = stablehlo.compare GT, %a, %a, FLOAT : "
        "(tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>\n"
        "  %1 = stablehlo.pad %a, %s, low = [1], high = [2], interior = [0] : "
        "(tensor<4xf32>, tensor<f32>) -> tensor<7xf32>\n"
        "  %2 = stablehlo.slice %a [0:4:2] : (tensor<4xf32>) -> tensor<2xf32>\n"
        "  return\n}"
    )
    generic = show(module, generic=True)
    assert (
        "<{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction"
        in (generic)
    )
    assert "<{edge_padding_high = array<i64: 2>, edge_padding_low" in generic
    assert "<{limit_indices = array<i64: 4>, start_indices" in generic
