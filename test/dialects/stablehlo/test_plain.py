"""StableHLO attributes as plain values (``plain_attrs``, ``constant_array``)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import builtin, func

from sbpc.dialects import stablehlo as shlo
from sbpc.dialects.stablehlo.constants import numpy_dtype


def test_plain_attrs_of_exported_programs(parse, program):
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


def test_plain_attrs_values(parse, row_gather):
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
        **row_gather(1, (1, 16)),
        "indices_are_sorted": False,
    }
    assert shlo.plain_attrs(reduce) == {"dimensions": (1,), "kind": "max"}
    assert shlo.plain_attrs(tanh) == {}


@pytest.mark.parametrize(
    ("element", "values"),
    [
        (builtin.i1, [True, False, True]),
        (builtin.IntegerType(8), [-128, 0, 127]),
        (builtin.IntegerType(8, builtin.Signedness.UNSIGNED), [0, 200, 255]),
        (builtin.IntegerType(16), [-30000, 5, 30000]),
        (builtin.IntegerType(32, builtin.Signedness.UNSIGNED), [0, 1, 2**32 - 1]),
        (builtin.IntegerType(64), [-(2**62), 3, 2**62]),
        (builtin.Float16Type(), [0.5, -65504.0, float("inf")]),
        (builtin.BFloat16Type(), [1.5, -2.0, float("-inf")]),
        (builtin.Float32Type(), [1e-30, -3.25, float("nan")]),
        (builtin.Float64Type(), [1e300, -0.0, 2.5]),
        (builtin.ComplexType(builtin.f32), [(1.0, -2.0), (0.5, 3.0)]),
        (builtin.ComplexType(builtin.f64), [(1e200, 0.0), (-1.0, 1.0)]),
    ],
)
def test_constant_array_reads_the_bytes_as_xdsl_decodes_them(element, values):
    """The numpy read of a dense attribute's bytes gives the values, dtype and
    shape that xDSL's element-by-element ``get_values`` gives."""
    n = len(values)
    attr = builtin.DenseIntOrFPElementsAttr.from_list(
        builtin.TensorType(element, [1, n]), values
    )
    array = shlo.constant_array(attr)
    expected = attr.get_values()
    if isinstance(element, builtin.ComplexType):
        expected = [complex(*v) for v in expected]
    assert array.shape == (1, n)
    assert array.dtype == numpy_dtype(element)
    assert array.flags.writeable
    np.testing.assert_array_equal(
        array.ravel(), np.array(expected, dtype=array.dtype), strict=True
    )
