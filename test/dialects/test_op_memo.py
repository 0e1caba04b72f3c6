"""FastParser's op memo: ops created from it equal xDSL's, and errors stay xDSL's.

Every check compares ``FastParser`` with xDSL's ``Parser`` (as
``KnownOpsParser``, which only words an unknown op's error) on the same text
(the printed module, or the error's message and place), and checks that the
memo was used where it should be, so a memo that never hits fails too.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sbpc.dialects.fast_parser import FastParser
from sbpc.dialects.unknown_ops import KnownOpsParser
from sbpc.passes.pipeline import default_context

# Two identical layers but for their SSA names (one op with an attribute
# dictionary, an alias and a symbol), then ops only the first layer has.
LAYERS = """#nd = #sbp.nd<[S(0), B]>
func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %i: tensor<4x8xi32>) -> tensor<4x8xf32> {
  %c = stablehlo.constant dense<1.000000e+00> : tensor<4x8xf32>
  %0 = stablehlo.add %a, %b : tensor<4x8xf32>
  %1 = stablehlo.multiply %0, %c : tensor<4x8xf32>
  %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = stablehlo.transpose %2, dims = [1, 0] {a = #nd, b = @f} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %c_0 = stablehlo.constant dense<1.000000e+00> : tensor<4x8xf32>
  %4 = stablehlo.add %1, %c_0 : tensor<4x8xf32>
  %5 = stablehlo.multiply %4, %a : tensor<4x8xf32>
  %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = stablehlo.transpose %6, dims = [1, 0] {a = #nd, b = @f} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %8 = stablehlo.compare  GT, %5, %6,  FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %9 = stablehlo.compare  GT, %6, %4,  FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %10 = stablehlo.select %8, %5, %6 : tensor<4x8xi1>, tensor<4x8xf32>
  %11 = stablehlo.select %9, %4, %10 : tensor<4x8xi1>, tensor<4x8xf32>
  return %11 : tensor<4x8xf32>
}
"""


def memo_hits(text: str) -> int:
    parser = FastParser(default_context(), text, "t.mlir")
    parser.parse_module()
    return parser._op_memo.hits


def test_repeated_ops_come_from_the_memo_and_equal_xdsl(outcome) -> None:
    assert outcome(FastParser, LAYERS) == outcome(KnownOpsParser, LAYERS)
    # The second constant, add, multiply, broadcast_in_dim, transpose and
    # compare.  Not the second select: the next line starts with `return`, a
    # token a format's optional group might read, so xDSL parses it.
    assert memo_hits(LAYERS) == 6


def test_an_op_naming_one_value_twice_does_not_pair_later_names(outcome) -> None:
    """``add %a, %a`` must not make the next ``add %1, %c_0`` read ``%1, %1``."""
    text = LAYERS.replace("stablehlo.add %a, %b", "stablehlo.add %a, %a")
    assert outcome(FastParser, text) == outcome(KnownOpsParser, text)
    assert "%4 = stablehlo.add %1, %c_1" in outcome(FastParser, text)


def test_a_type_mismatch_on_a_remembered_op_is_xdsls_error(outcome) -> None:
    text = LAYERS.replace("stablehlo.multiply %4, %a", "stablehlo.multiply %4, %i")
    assert outcome(FastParser, text).startswith("ParseError")
    assert outcome(FastParser, text) == outcome(KnownOpsParser, text)


def test_undefined_and_redefined_names_on_remembered_ops_are_xdsls_errors(
    outcome,
) -> None:
    for old, new in [
        ("stablehlo.add %1, %c_0", "stablehlo.add %1, %nowhere"),
        ("%5 = stablehlo.multiply", "%4 = stablehlo.multiply"),
        ("%7 = stablehlo.transpose", "%77 = stablehlo.transpose"),
    ]:
        text = LAYERS.replace(old, new)
        assert outcome(FastParser, text) == outcome(KnownOpsParser, text)


def test_a_lexer_error_on_the_next_line_comes_before_a_redefinition(
    outcome,
) -> None:
    """xDSL reads the next token before it binds the op's results."""
    text = LAYERS.replace(
        "  %4 = stablehlo.add",
        "  %1 = stablehlo.multiply %0, %c : tensor<4x8xf32>\n  % =",
    )
    assert "Expected suffix identifier" in outcome(KnownOpsParser, text)
    assert outcome(FastParser, text) == outcome(KnownOpsParser, text)


def test_an_op_continued_on_the_next_line_is_parsed_by_xdsl(outcome) -> None:
    text = LAYERS.replace(
        "%4 = stablehlo.add %1, %c_0 : tensor<4x8xf32>",
        "%4 = stablehlo.add %1, %c_0\n    : tensor<4x8xf32>",
    )
    assert outcome(FastParser, text) == outcome(KnownOpsParser, text)


@settings(max_examples=60, deadline=None)
@given(
    line=st.integers(min_value=8, max_value=16),
    column=st.integers(min_value=0, max_value=90),
    char=st.sampled_from([*'%0a ,:<>()[]x=\n{}#!@^/"', "#nd", "loc("]),
    delete=st.booleans(),
)
def test_mutated_repeats_parse_or_fail_as_in_xdsl(
    outcome, line: int, column: int, char: str, delete: bool
) -> None:
    """One character of the second layer changed: same module or same error."""
    lines = LAYERS.split("\n")
    text = lines[line]
    column = min(column, len(text))
    lines[line] = text[:column] + ("" if delete else char) + text[column + 1 :]
    mutated = "\n".join(lines)
    assert outcome(FastParser, mutated) == outcome(KnownOpsParser, mutated)
