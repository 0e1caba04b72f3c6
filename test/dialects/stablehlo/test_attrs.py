"""StableHLO attributes: dimension numbers print only what differs from the
default, parse in any field order, and give back plain tuples."""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from sbpc.dialects import stablehlo as shlo


@pytest.fixture
def parse_attr():
    """Parse an attribute in a context that knows the StableHLO dialect."""

    def go(text: str):
        ctx = Context()
        ctx.load_dialect(shlo.StableHLO)
        return Parser(ctx, text).parse_attribute()

    return go


def test_dot_dimension_numbers_print_only_non_default_fields(parse_attr):
    numbers = shlo.DotDimensionNumbersAttr.get(
        lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0]
    )
    text = "#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>"
    assert str(numbers) == text
    assert parse_attr(text) == numbers
    assert numbers.lhs_batching_dimensions == ()
    assert numbers.rhs_contracting_dimensions == (0,)


def test_gather_and_scatter_numbers_parse_in_any_order(parse_attr):
    gather = parse_attr(
        "#stablehlo.gather<index_vector_dim = 1, offset_dims = [1], "
        "start_index_map = [0], collapsed_slice_dims = [0]>"
    )
    assert gather == shlo.GatherDimensionNumbersAttr.get(
        offset_dims=[1],
        collapsed_slice_dims=[0],
        start_index_map=[0],
        index_vector_dim=1,
    )
    assert str(gather) == (
        "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
        "start_index_map = [0], index_vector_dim = 1>"
    )
    scatter = shlo.ScatterDimensionNumbersAttr.get(
        inserted_window_dims=[0], scatter_dims_to_operand_dims=[0]
    )
    assert scatter.index_vector_dim == 0 and scatter.update_window_dims == ()
    assert parse_attr(str(scatter)) == scatter


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("#stablehlo.dot<lhs_batch = [0]>", "unknown field 'lhs_batch'"),
        (
            "#stablehlo.gather<offset_dims = [1], offset_dims = [2]>",
            "duplicate field 'offset_dims'",
        ),
    ],
)
def test_dimension_number_parse_errors(parse_attr, text: str, message: str):
    with pytest.raises(ParseError, match=message):
        parse_attr(text)


def test_enum_attributes_spell_like_mlir(parse_attr):
    direction = shlo.ComparisonDirectionAttr(shlo.ComparisonDirection.GT)
    assert str(direction) == "#stablehlo<comparison_direction GT>"
    assert parse_attr(str(direction)) == direction
    assert str(shlo.PrecisionAttr(shlo.Precision.HIGH)) == "#stablehlo<precision HIGH>"
