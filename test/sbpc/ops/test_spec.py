"""OpSpec: plain op descriptions with comparable attributes."""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.algebra.tensor_type import TensorType
from sbpc.ops.spec import OpSpec, is_bool, is_float, is_integer, numpy_dtype


def test_replace_keeps_other_attributes() -> None:
    op = OpSpec("stablehlo.iota", [], [TensorType((8,), "i32")], {"iota_dimension": 0})
    local = op.replace(results=[TensorType((4,), "i32")], iota_offset=4)
    assert local.attrs == {"iota_dimension": 0, "iota_offset": 4}
    assert op.attrs == {"iota_dimension": 0}
    assert local.results[0].shape == (4,)


def test_operand_count_is_checked_with_the_callers_error() -> None:
    op = OpSpec("stablehlo.add", [TensorType((4,), "f32")] * 2)
    op.check_operand_count(2)
    with pytest.raises(ValueError, match=r"'stablehlo\.add' takes 2 operands, got 1"):
        op.check_operand_count(1)
    with pytest.raises(KeyError):
        op.check_operand_count(3, KeyError)


def test_equality_compares_array_attributes() -> None:
    t = [TensorType((2,), "f32")]
    a = OpSpec("stablehlo.constant", [], t, {"value": np.zeros(2, np.float32)})
    b = OpSpec("stablehlo.constant", [], t, {"value": np.zeros(2, np.float32)})
    c = OpSpec("stablehlo.constant", [], t, {"value": np.ones(2, np.float32)})
    assert a == b and a != c
    assert "array<(2,), float32>" in str(a)


def test_element_kinds() -> None:
    assert is_float("bf16") and is_bool("i1") and is_integer("ui8")
    assert not is_integer("f32") and not is_integer("i1")
    assert numpy_dtype("i1") == np.bool_
    assert numpy_dtype("bf16").itemsize == 2
    with pytest.raises(KeyError):
        numpy_dtype("complex")
