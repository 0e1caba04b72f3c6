"""The sbp dialect: syntax round trips, parse errors, op verifiers and the
whole-module annotation verifier."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import (
    ArrayAttr,
    Builtin,
    IntAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    f32,
)
from xdsl.dialects.func import Func, FuncOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.algebra.signature import Signature
from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.sbp import (
    SBP,
    AllGatherOp,
    AllReduceOp,
    AllToAllOp,
    CastOp,
    LocalSliceOp,
    LocalToPartialOp,
    NdSbpAttr,
    PlacementAttr,
    ReduceScatterOp,
    SignatureAttr,
    TransferOp,
    collective_for,
    get_arg_placement,
    get_nd_sbp_arg_attr,
    get_nd_sbp_res_attr,
    get_signature,
    module_placement,
    placement_in_force,
    placement_map,
    set_module_placement,
    set_nd_sbp_arg_attr,
    set_nd_sbp_res_attr,
    set_signature,
    value_layout,
    value_placement,
    verify_sbp_annotations,
)


def _ctx() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Arith, SBP):
        ctx.load_dialect(dialect)
    return ctx


def attr(text: str):
    return Parser(_ctx(), text).parse_attribute()


def module(text: str) -> ModuleOp:
    return Parser(_ctx(), text).parse_module()


def line_col(err: ParseError) -> tuple[int, int]:
    loc = err.span.get_location()
    return loc.line, loc.col


def pretty(op: Operation) -> str:
    out = StringIO()
    Printer(stream=out).print_op(op)
    return out.getvalue()


def generic(op: Operation) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=True).print_op(op)
    return out.getvalue()


def in_func(
    body: str, placement: str = "cuda, [[0, 1], [2, 3]]", args: str = ""
) -> str:
    """A module with a default placement and one func holding ``body``."""
    args = args or "%x: tensor<8x16xf32>"
    head = (
        f"module attributes {{sbp.placement = #sbp.placement<{placement}>}}"
        if placement
        else "module"
    )
    return f"{head} {{\n  func.func @f({args}) {{\n{body}\n    func.return\n  }}\n}}"


# ---------------------------------------------------------------------------
# Attributes
# ---------------------------------------------------------------------------

ATTR_ROUND_TRIPS = [
    "#sbp.nd<[S(0)]>",
    "#sbp.nd<[S(0), B, P(sum)]>",
    "#sbp.nd<[P(max), P(min), S(3)]>",
    "#sbp.placement<cuda, [0, 1, 2, 3]>",
    "#sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>",
    "#sbp.placement<cpu, [[[0], [1]], [[2], [3]]]>",
    "#sbp.placement<cuda, [7]>",
    '#sbp.placement<"gpu:a100", [0, 1]>',
    "#sbp.sig<([S(0), B], [B, S(1)]) -> ([S(0), S(1)])>",
    "#sbp.sig<([P(sum)]) -> ([B], [P(max)])>",
    "#sbp.sig<() -> ([B])>",
    "#sbp.sig<() -> ()>",
]


@pytest.mark.parametrize("text", ATTR_ROUND_TRIPS)
def test_attribute_round_trip(text: str) -> None:
    parsed = attr(text)
    assert str(parsed) == text
    assert attr(str(parsed)) == parsed


def test_device_kind_may_be_a_string() -> None:
    assert str(attr('#sbp.placement<"cpu", [0]>')) == "#sbp.placement<cpu, [0]>"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            lambda: [
                StringAttr("cuda"),
                ArrayAttr([IntAttr(2)]),
                ArrayAttr([IntAttr(0), IntAttr(0)]),
            ],
            "rank 0 appears more than once",
        ),
        (
            lambda: [
                StringAttr("cuda"),
                ArrayAttr([IntAttr(3)]),
                ArrayAttr([IntAttr(0)]),
            ],
            "hierarchy [3] does not hold 1 ranks",
        ),
    ],
)
def test_placement_attr_verifies_when_built_generically(params, message) -> None:
    with pytest.raises(VerifyException, match=re.escape(message)):
        PlacementAttr.new(params())


def test_nd_sbp_and_signature_attrs_verify_when_built_generically() -> None:
    with pytest.raises(VerifyException, match="not canonical"):
        NdSbpAttr.new([ArrayAttr([StringAttr("P")])])
    with pytest.raises(VerifyException, match="at least one entry"):
        NdSbpAttr.new([ArrayAttr([])])
    with pytest.raises(VerifyException, match="expected an SBP"):
        NdSbpAttr.new([ArrayAttr([StringAttr("X")])])
    with pytest.raises(VerifyException, match="same length, got 1, 2"):
        SignatureAttr.new([ArrayAttr([NdSbpAttr([B])]), ArrayAttr([NdSbpAttr([B, B])])])


def test_partial_defaults_to_sum() -> None:
    a = attr("#sbp.nd<[P, B]>")
    assert str(a) == "#sbp.nd<[P(sum), B]>"
    assert a == attr("#sbp.nd<[P(sum), B]>")
    assert str(attr("#sbp.sig<([P]) -> ([P])>")) == "#sbp.sig<([P(sum)]) -> ([P(sum)])>"


def test_whitespace_is_free() -> None:
    assert str(attr("#sbp.nd< [ S( 1 ) ,B ] >")) == "#sbp.nd<[S(1), B]>"


def test_nd_sbp_attr_python_api() -> None:
    a = NdSbpAttr((S(0), B, Partial("max")))
    assert a.nd_sbp == (S(0), B, Partial("max"))
    assert len(a) == 3
    assert str(a) == "#sbp.nd<[S(0), B, P(max)]>"
    assert NdSbpAttr([S(1)]) == attr("#sbp.nd<[S(1)]>")


def test_placement_attr_python_api() -> None:
    p = Placement.from_nested("cuda", [[0, 1, 2, 3], [4, 5, 6, 7]])
    a = PlacementAttr(p)
    assert a.placement == p
    assert a.placement.hierarchy == (2, 4)
    assert a == attr("#sbp.placement<cuda, [[0, 1, 2, 3], [4, 5, 6, 7]]>")
    assert str(PlacementAttr(Placement.of_size(2))) == "#sbp.placement<cpu, [0, 1]>"


def test_signature_attr_python_api() -> None:
    sig = Signature(((S(0), B), (B, S(1))), ((S(0), S(1)),))
    a = SignatureAttr(sig)
    assert a.signature == sig
    assert str(a) == "#sbp.sig<([S(0), B], [B, S(1)]) -> ([S(0), S(1)])>"


PARSE_ERRORS = [
    # (text, message, column of the offending token)
    ("#sbp.nd<[S(x)]>", "expected a split axis (a non-negative integer)", 12),
    ("#sbp.nd<[S(0), Q]>", "unknown SBP 'Q', expected S(<axis>), B, P", 16),
    (
        "#sbp.nd<[P(avg)]>",
        "unknown partial kind 'avg', expected one of sum, max, min",
        12,
    ),
    ("#sbp.nd<[P(3)]>", "expected a partial kind (sum, max or min)", 12),
    ("#sbp.nd<[S(-1)]>", "split axis must be non-negative, got -1", 12),
    ("#sbp.nd<[S 0]>", "Expected '(' after 'S'", 12),
    ("#sbp.nd<[S(0]>", "Expected ')' to close S(<axis>)", 13),
    ("#sbp.nd<S(0)>", "expected '[' to start an nd_sbp", 9),
    ("#sbp.nd<[S(0), B>", "Expected ']' to close the nd_sbp", 17),
    ("#sbp.nd<[S(0) B]>", "Expected ']' to close the nd_sbp", 15),
    ("#sbp.nd<[]>", "an nd_sbp needs at least one entry", 9),
    ("#sbp.nd<[S(0),]>", "expected an SBP", 15),
    ("#sbp.placement<cuda, [[0, 1], [2]]>", "rank array is ragged", 22),
    ("#sbp.placement<cuda, [[0, 1], 2]>", "mixes numbers and sub-arrays", 22),
    ("#sbp.placement<cuda, [0, 1, 1]>", "rank 1 appears more than once", 22),
    ("#sbp.placement<cuda, [0, -1]>", "ranks must be non-negative, got -1", 22),
    ("#sbp.placement<cuda, []>", "needs a non-empty rank array", 22),
    ("#sbp.placement<cuda, [[]]>", "needs a non-empty rank array", 22),
    ("#sbp.placement<cuda, 3>", "must be an array, not a scalar", 22),
    ("#sbp.placement<[0, 1]>", "expected a device kind", 16),
    ("#sbp.placement<cuda [0, 1]>", "Expected ',' between device kind", 21),
    ("#sbp.placement<cuda, [0, x]>", "expected a rank (integer)", 26),
    (
        "#sbp.sig<([S(0), B], [B]) -> ([S(0), S(1)])>",
        "nd_sbp [B] has 1 entry but the first one of the signature has 2",
        22,
    ),
    ("#sbp.sig<([S(0)]) ([B])>", "Expected '->' between operand", 19),
    ("#sbp.sig<[S(0)] -> [B]>", "'(' expected in operand layouts", 10),
    ("#sbp.sig<([S(0)]) -> ([P(avg)])>", "unknown partial kind 'avg'", 26),
]


@pytest.mark.parametrize(("text", "message", "column"), PARSE_ERRORS)
def test_attribute_parse_errors(text: str, message: str, column: int) -> None:
    with pytest.raises(ParseError) as info:
        attr(text)
    assert message in str(info.value)
    assert line_col(info.value) == (1, column)


def test_parse_error_inside_op_points_at_token() -> None:
    text = in_func("    %0 = sbp.cast %x to #sbp.nd<[S(0), P(avg)]> : tensor<8x16xf32>")
    with pytest.raises(ParseError) as info:
        module(text)
    assert "unknown partial kind 'avg'" in str(info.value)
    line, col = line_col(info.value)
    assert line == 3
    assert text.splitlines()[2][col - 1 :].startswith("avg")


# ---------------------------------------------------------------------------
# Ops: round trips
# ---------------------------------------------------------------------------

OP_ROUND_TRIPS = [
    "%0 = sbp.cast %x to #sbp.nd<[B, S(1)]> : tensor<8x16xf32>",
    "%0 = sbp.cast %x to #sbp.nd<[S(0)]> on #sbp.placement<cuda, [4, 5]> "
    ": tensor<8x16xf32>",
    '%0 = sbp.cast %x to #sbp.nd<[B, B]> {tag = "a"} : tensor<8x16xf32>',
    "%0 = sbp.all_gather %x dims [1] from [S(0), S(1)] to [S(0), B] : tensor<8x16xf32>",
    "%0 = sbp.all_gather %x dims [0, 1] from [S(0), S(0)] to [B, B] : tensor<8x16xf32>",
    "%0 = sbp.all_reduce %x dims [0] from [P(max), B] to [B, B] : tensor<8x16xf32>",
    "%0 = sbp.reduce_scatter %x dims [1] from [B, P(sum)] to [B, S(1)] "
    ": tensor<8x16xf32>",
    "%0 = sbp.reduce_scatter %x dims [0] from [P(min), S(1)] to [S(0), S(1)] "
    ": tensor<8x16xf32>",
    "%0 = sbp.all_to_all %x dims [0] from [S(0), B] to [S(1), B] : tensor<8x16xf32>",
    "%0 = sbp.local_slice %x dims [0] from [B, S(1)] to [S(0), S(1)] "
    ": tensor<8x16xf32>",
    "%0 = sbp.local_to_partial %x dims [0] from [B, B] to [P(sum), B] "
    ": tensor<8x16xf32>",
    "%0 = sbp.local_to_partial %x dims [1] from [B, S(0)] to [B, P(max)] "
    ": tensor<8x16xf32>",
    "%0 = sbp.transfer %x from #sbp.placement<cuda, [[0, 1], [2, 3]]> [S(0), B] "
    "to #sbp.placement<cuda, [4, 5]> [S(1)] : tensor<8x16xf32>",
]


@pytest.mark.parametrize("line", OP_ROUND_TRIPS)
def test_op_round_trip(line: str) -> None:
    m = module(in_func("    " + line))
    m.verify()
    verify_sbp_annotations(m)
    assert "    " + line + "\n" in pretty(m)
    again = module(pretty(m))
    assert pretty(again) == pretty(m)
    # The generic form parses back to the same IR.
    assert pretty(module(generic(m))) == pretty(m)


def test_collective_on_another_placement() -> None:
    line = (
        "%0 = sbp.all_gather %x dims [0] from [S(0)] to [B] "
        "on #sbp.placement<cuda, [4, 5]> : tensor<8x16xf32>"
    )
    args = "%x: tensor<8x16xf32> {sbp.placement = #sbp.placement<cuda, [4, 5]>}"
    m = module(in_func("    " + line, args=args))
    m.verify()
    verify_sbp_annotations(m)
    assert "    " + line + "\n" in pretty(m)
    assert pretty(module(generic(m))) == pretty(m)


def test_generic_form_uses_properties() -> None:
    line = "%0 = sbp.all_gather %x dims [1] from [S(0), S(1)] to [S(0), B] : tensor<8x16xf32>"
    text = generic(module(in_func("    " + line)))
    assert (
        '"sbp.all_gather"(%x) <{dims = array<i64: 1>, from_sbp = #sbp.nd<[S(0), S(1)]>,'
        " to_sbp = #sbp.nd<[S(0), B]>}>" in text
    )


def test_builders() -> None:
    m = module(in_func(""))
    func = m.body.block.first_op
    assert isinstance(func, FuncOp)
    x = func.body.block.args[0]
    cast = CastOp(x, (S(0), B))
    gather = AllGatherOp(cast, [0], (S(0), B), (B, B))
    slice_ = LocalSliceOp(gather, [1], (B, B), (B, S(1)))
    moved = TransferOp(
        slice_,
        Placement.from_nested("cuda", [[0, 1], [2, 3]]),
        (B, S(1)),
        Placement.from_nested("cuda", [4, 5]),
        (S(1),),
    )
    moved_on = CastOp(moved, [B], PlacementAttr(Placement.from_nested("cuda", [4, 5])))
    block = func.body.block
    for op in (cast, gather, slice_, moved, moved_on):
        block.insert_op_before(op, block.last_op)
    m.verify()
    verify_sbp_annotations(m)
    assert cast.output.type == x.type
    assert gather.output.type == TensorType(f32, [8, 16])
    assert gather.dim_list == (0,)
    text = pretty(m)
    assert "sbp.cast %x to #sbp.nd<[S(0), B]> : tensor<8x16xf32>" in text
    assert "sbp.all_gather %0 dims [0] from [S(0), B] to [B, B]" in text
    assert "sbp.local_slice %1 dims [1] from [B, B] to [B, S(1)]" in text


def test_all_reduce_kind() -> None:
    m = module(
        in_func(
            "    %0 = sbp.all_reduce %x dims [1] from [B, P(min)] to [B, B] : tensor<8x16xf32>"
        )
    )
    op = next(o for o in m.walk() if isinstance(o, AllReduceOp))
    assert op.kind == "min"
    m2 = module(
        in_func(
            "    %0 = sbp.reduce_scatter %x dims [0] from [P(max), B] to [S(1), B] : tensor<8x16xf32>"
        )
    )
    rs = next(o for o in m2.walk() if isinstance(o, ReduceScatterOp))
    assert rs.kind == "max"


def test_collective_for() -> None:
    assert collective_for(S(0), B) is AllGatherOp
    assert collective_for(P, B) is AllReduceOp
    assert collective_for(Partial("max"), S(1)) is ReduceScatterOp
    assert collective_for(S(0), S(1)) is AllToAllOp
    assert collective_for(B, S(0)) is LocalSliceOp
    assert collective_for(B, P) is LocalToPartialOp
    assert collective_for(S(1), Partial("min")) is LocalToPartialOp
    assert collective_for(B, B) is None
    assert collective_for(P, Partial("max")) is None


# ---------------------------------------------------------------------------
# Ops: verifiers (op.verify_, checks an op can make by itself)
# ---------------------------------------------------------------------------

OP_VERIFY_ERRORS = [
    # split axes
    (
        "%0 = sbp.cast %x to #sbp.nd<[S(2), B]> : tensor<8x16xf32>",
        "sbp.cast to [S(2), B] splits dimension 2, but tensor<8x16xf32> has rank 2",
    ),
    (
        "%0 = sbp.all_gather %x dims [0] from [S(2), B] to [B, B] : tensor<8x16xf32>",
        "sbp.all_gather from [S(2), B] splits dimension 2",
    ),
    # nd length vs the module's placement
    (
        "%0 = sbp.cast %x to #sbp.nd<[S(0)]> : tensor<8x16xf32>",
        "sbp.cast to [S(0)] has 1 entry, but the placement (cuda, 2x2) has 2 "
        "hierarchy dimensions",
    ),
    # ... vs its own placement
    (
        "%0 = sbp.cast %x to #sbp.nd<[S(0), B]> on #sbp.placement<cuda, [4, 5]> "
        ": tensor<8x16xf32>",
        "has 2 entries, but the placement (cuda, 2) has 1 hierarchy dimension",
    ),
    # even splits
    (
        "%0 = sbp.cast %x to #sbp.nd<[S(0), S(0)]> on #sbp.placement<cuda, [[0, 1, 2], "
        "[3, 4, 5]]> : tensor<8x16xf32>",
        "dimension 0 of size 8 cannot be split evenly into 6 pieces",
    ),
    # types
    (
        '%0 = "sbp.cast"(%x) <{nd_sbp = #sbp.nd<[B, B]>}> '
        ": (tensor<8x16xf32>) -> tensor<8x8xf32>",
        "result type tensor<8x8xf32> differs from operand type tensor<8x16xf32>",
    ),
    # collectives: from/to and dims
    (
        "%0 = sbp.all_gather %x dims [0] from [S(0), B] to [B] : tensor<8x16xf32>",
        "from [S(0), B] and to [B] differ in length",
    ),
    (
        "%0 = sbp.all_gather %x dims [2] from [S(0), B] to [B, B] : tensor<8x16xf32>",
        "hierarchy dim 2 is out of range for a 2-entry nd_sbp",
    ),
    (
        "%0 = sbp.all_gather %x dims [-1] from [S(0), B] to [B, B] : tensor<8x16xf32>",
        "hierarchy dim -1 is out of range",
    ),
    (
        "%0 = sbp.all_gather %x dims [0, 0] from [S(0), B] to [B, B] : tensor<8x16xf32>",
        "hierarchy dim 0 is listed twice",
    ),
    (
        "%0 = sbp.all_gather %x dims [1, 0] from [S(0), S(0)] to [B, B] "
        ": tensor<8x16xf32>",
        "'dims' must be listed in increasing order",
    ),
    (
        "%0 = sbp.all_gather %x dims [] from [S(0), B] to [B, B] : tensor<8x16xf32>",
        "needs at least one hierarchy dim",
    ),
    (
        "%0 = sbp.all_gather %x dims [0] from [S(0), S(1)] to [B, B] "
        ": tensor<8x16xf32>",
        "hierarchy dim 1 is not in 'dims' but changes S(1) -> B",
    ),
    (
        "%0 = sbp.all_gather %x dims [0, 1] from [S(0), S(1)] to [B, B] "
        ": tensor<8x16xf32>",
        "every dim in 'dims' must make the same change, got S(0) -> B on dim 0 "
        "but S(1) -> B on dim 1",
    ),
    # the kind of change each op makes
    (
        "%0 = sbp.all_gather %x dims [0] from [P(sum), B] to [B, B] : tensor<8x16xf32>",
        "sbp.all_gather changes P(sum) -> B on hierarchy dim 0, expected S(i) -> B",
    ),
    (
        "%0 = sbp.all_gather %x dims [0] from [B, B] to [B, B] : tensor<8x16xf32>",
        "sbp.all_gather changes B -> B on hierarchy dim 0",
    ),
    (
        "%0 = sbp.all_reduce %x dims [0] from [S(0), B] to [B, B] : tensor<8x16xf32>",
        "expected P(sum|max|min) -> B",
    ),
    (
        "%0 = sbp.all_reduce %x dims [0] from [P(sum), B] to [S(0), B] "
        ": tensor<8x16xf32>",
        "sbp.all_reduce changes P(sum) -> S(0)",
    ),
    (
        "%0 = sbp.all_reduce %x dims [0, 1] from [P(sum), P(max)] to [B, B] "
        ": tensor<8x16xf32>",
        "every dim in 'dims' must make the same change",
    ),
    (
        "%0 = sbp.reduce_scatter %x dims [0] from [P(sum), B] to [B, B] "
        ": tensor<8x16xf32>",
        "expected P(sum|max|min) -> S(i)",
    ),
    (
        "%0 = sbp.all_to_all %x dims [0] from [S(0), B] to [S(0), B] : tensor<8x16xf32>",
        "expected S(i) -> S(j) with i != j",
    ),
    (
        "%0 = sbp.all_to_all %x dims [0] from [B, B] to [S(0), B] : tensor<8x16xf32>",
        "expected S(i) -> S(j) with i != j",
    ),
    (
        "%0 = sbp.local_slice %x dims [0] from [S(1), B] to [S(0), B] "
        ": tensor<8x16xf32>",
        "expected B -> S(i)",
    ),
    (
        "%0 = sbp.local_to_partial %x dims [0] from [P(sum), B] to [P(max), B] "
        ": tensor<8x16xf32>",
        "expected B -> P(kind) or S(i) -> P(kind)",
    ),
    # a changed split must be the innermost split of its tensor dim
    (
        "%0 = sbp.all_gather %x dims [0] from [S(0), S(0)] to [B, S(0)] "
        ": tensor<8x16xf32>",
        "sbp.all_gather on hierarchy dim 0 changes how tensor dimension 0 is split, "
        "but hierarchy dim 1 splits it further",
    ),
    (
        "%0 = sbp.local_slice %x dims [0] from [B, S(0)] to [S(0), S(0)] "
        ": tensor<8x16xf32>",
        "hierarchy dim 1 splits it further",
    ),
    (
        "%0 = sbp.reduce_scatter %x dims [0] from [P(sum), S(1)] to [S(1), S(1)] "
        ": tensor<8x16xf32>",
        "hierarchy dim 1 splits it further",
    ),
    (
        "%0 = sbp.all_to_all %x dims [0] from [S(0), S(1)] to [S(1), S(1)] "
        ": tensor<8x16xf32>",
        "hierarchy dim 1 splits it further",
    ),
    (
        "%0 = sbp.local_to_partial %x dims [0] from [S(0), S(0)] to [P(sum), S(0)] "
        ": tensor<8x16xf32>",
        "hierarchy dim 1 splits it further",
    ),
    # a collective's source layout must be its operand's layout when known
    (
        "%c = sbp.cast %x to #sbp.nd<[B, B]> : tensor<8x16xf32>\n"
        "    %0 = sbp.all_gather %c dims [0] from [S(0), B] to [B, B] "
        ": tensor<8x16xf32>",
        "sbp.all_gather expects its operand as [S(0), B], but it is [B, B]",
    ),
    # transfer
    (
        "%0 = sbp.transfer %x from #sbp.placement<cuda, [[0, 1], [2, 3]]> [B, B] "
        "to #sbp.placement<cuda, [[0, 1], [2, 3]]> [S(0), B] : tensor<8x16xf32>",
        "sbp.transfer needs two different placements",
    ),
    (
        "%0 = sbp.transfer %x from #sbp.placement<cuda, [[0, 1], [2, 3]]> [B] "
        "to #sbp.placement<cuda, [4, 5]> [S(0)] : tensor<8x16xf32>",
        "sbp.transfer from [B] has 1 entry, but the placement (cuda, 2x2) has 2",
    ),
    (
        "%0 = sbp.transfer %x from #sbp.placement<cuda, [[0, 1], [2, 3]]> [B, B] "
        "to #sbp.placement<cuda, [4, 5]> [S(3)] : tensor<8x16xf32>",
        "sbp.transfer to [S(3)] splits dimension 3",
    ),
    (
        "%0 = sbp.transfer %x from #sbp.placement<cuda, [4, 5]> [B] "
        "to #sbp.placement<cuda, [6, 7]> [S(0)] : tensor<8x16xf32>",
        "sbp.transfer from #sbp.placement<cuda, [4, 5]>, but its operand lives on "
        "#sbp.placement<cuda, [[0, 1], [2, 3]]>",
    ),
]


def _the_sbp_op(m: ModuleOp) -> Operation:
    ops = [o for o in m.walk() if o.dialect_name() == "sbp"]
    return ops[-1]


@pytest.mark.parametrize(("line", "message"), OP_VERIFY_ERRORS)
def test_op_verifier(line: str, message: str) -> None:
    m = module(in_func("    " + line))
    with pytest.raises(VerifyException) as info:
        m.verify()
    assert message in str(info.value)
    # The module-wide verifier reports the same problem, at the op.
    with pytest.raises(LocatedError) as located:
        verify_sbp_annotations(m)
    assert message in located.value.message
    assert located.value.op is _the_sbp_op(m)


def test_op_verifier_without_module_skips_placement_checks() -> None:
    m = module(
        in_func("    %0 = sbp.cast %x to #sbp.nd<[S(0)]> : tensor<8x16xf32>", "")
    )
    m.verify()  # no placement: the op alone cannot tell the hierarchy rank
    with pytest.raises(LocatedError, match=r"no placement: add sbp\.placement"):
        verify_sbp_annotations(m)


def test_innermost_rule_allows_joint_and_outer_steps() -> None:
    ok = [
        # joint gather over both hierarchy dims of the same tensor dim
        "%0 = sbp.all_gather %x dims [0, 1] from [S(0), S(0)] to [B, B]",
        # the inner split goes first
        "%0 = sbp.all_gather %x dims [1] from [S(0), S(0)] to [S(0), B]",
        # an earlier split of the same tensor dim is fine
        "%0 = sbp.local_slice %x dims [1] from [S(0), B] to [S(0), S(0)]",
        "%0 = sbp.reduce_scatter %x dims [1] from [S(0), P(sum)] to [S(0), S(0)]",
        # partial commutes with splits
        "%0 = sbp.all_reduce %x dims [0] from [P(sum), S(0)] to [B, S(0)]",
        "%0 = sbp.local_to_partial %x dims [0] from [B, S(0)] to [P(sum), S(0)]",
        # different tensor dims do not interact
        "%0 = sbp.all_gather %x dims [0] from [S(1), S(0)] to [B, S(0)]",
    ]
    for line in ok:
        m = module(in_func("    " + line + " : tensor<8x16xf32>"))
        m.verify()
        verify_sbp_annotations(m)


# ---------------------------------------------------------------------------
# verify_sbp_annotations
# ---------------------------------------------------------------------------

GOOD = """
module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>} {
  func.func @f(%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>},
               %b: tensor<8x16xf32>,
               %c: tensor<4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>,
                                  sbp.placement = #sbp.placement<cuda, [4, 5]>})
      -> (tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>}, tensor<4xf32>) {
    %0 = arith.addf %a, %b {sbp.sig = #sbp.sig<([S(0), B], [S(0), B]) -> ([S(0), B])>} : tensor<8x16xf32>
    %1 = sbp.local_slice %0 dims [1] from [S(0), B] to [S(0), S(1)] : tensor<8x16xf32>
    %2 = arith.addf %c, %c {sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([B])>} : tensor<4xf32>
    func.return %1, %2 : tensor<8x16xf32>, tensor<4xf32>
  }
}
"""


def test_good_module_verifies() -> None:
    m = module(GOOD)
    m.verify()
    verify_sbp_annotations(m)


def _func_with(args: str, results: str = "", body: str = "", placement: bool = True):
    head = (
        "module attributes {sbp.placement = #sbp.placement<cuda, [[0, 1], [2, 3]]>}"
        if placement
        else "module"
    )
    res = f" -> ({results})" if results else ""
    ret = body or "    func.return"
    return f"{head} {{\n  func.func @f({args}){res} {{\n{ret}\n  }}\n}}"


ANNOTATION_ERRORS = [
    # module attribute of the wrong kind
    (
        'module attributes {sbp.placement = "cuda"} {}',
        "sbp.placement on the module must be a #sbp.placement<...> attribute",
        "builtin.module",
    ),
    # nd_sbp of an argument
    (
        _func_with('%a: tensor<8x16xf32> {sbp.nd_sbp = "S(0)"}'),
        'sbp.nd_sbp of argument 0 must be an #sbp.nd<[...]> attribute, got "S(0)"',
        "func.func",
    ),
    (
        _func_with("%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}"),
        "sbp.nd_sbp of argument 0: [S(0)] has 1 entry, but the placement "
        "(cuda, 2x2) has 2 hierarchy dimensions",
        "func.func",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>, "
            "sbp.placement = #sbp.placement<cuda, [4, 5]>}"
        ),
        "sbp.nd_sbp of argument 0: [S(0), B] has 2 entries, but the placement "
        "(cuda, 2) has 1 hierarchy dimension",
        "func.func",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>, %b: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[B, S(2)]>}"
        ),
        "sbp.nd_sbp of argument 1: [B, S(2)] splits dimension 2, but "
        "tensor<8x16xf32> has rank 2",
        "func.func",
    ),
    (
        _func_with("%a: tensor<7x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), B]>}"),
        "sbp.nd_sbp of argument 0: [S(0), B] of tensor<7x16xf32>: dimension 0 of "
        "size 7 cannot be split evenly into 2 pieces",
        "func.func",
    ),
    (
        _func_with("%a: tensor<6x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(0)]>}"),
        "dimension 0 of size 6 cannot be split evenly into 4 pieces",
        "func.func",
    ),
    (
        _func_with("%a: tensor<8x16xf32> {sbp.placement = [0, 1]}"),
        "sbp.placement of argument 0 must be a #sbp.placement<...> attribute",
        "func.func",
    ),
    # nd_sbp of a result
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            "tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[B, B, B]>}",
            "    func.return %a : tensor<8x16xf32>",
        ),
        "sbp.nd_sbp of result 0: [B, B, B] has 3 entries",
        "func.func",
    ),
    (
        _func_with(
            "%a: tensor<8x15xf32>",
            "tensor<8x15xf32> {sbp.nd_sbp = #sbp.nd<[B, S(1)]>}",
            "    func.return %a : tensor<8x15xf32>",
        ),
        "sbp.nd_sbp of result 0: [B, S(1)] of tensor<8x15xf32>: dimension 1 of "
        "size 15 cannot be split evenly into 2 pieces",
        "func.func",
    ),
    # missing placement
    (
        _func_with(
            "%a: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}", placement=False
        ),
        "no placement: add sbp.placement to the module",
        "func.func",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body="    %0 = arith.addf %a, %a {sbp.sig = #sbp.sig<([B], [B]) -> ([B])>}"
            " : tensor<8x16xf32>\n    func.return",
            placement=False,
        ),
        "no placement: add sbp.placement to the module",
        "arith.addf",
    ),
    # signatures
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body="    %0 = arith.addf %a, %a {sbp.sig = #sbp.sig<([B, B]) -> ([B, B])>}"
            " : tensor<8x16xf32>\n    func.return",
        ),
        "signature has 1 operand layouts but the op has 2 operands",
        "arith.addf",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body="    %0 = arith.addf %a, %a "
            "{sbp.sig = #sbp.sig<([B, B], [B, B]) -> ([B, B], [B, B])>}"
            " : tensor<8x16xf32>\n    func.return",
        ),
        "signature has 2 result layouts but the op has 1 results",
        "arith.addf",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body="    %0 = arith.addf %a, %a {sbp.sig = #sbp.sig<([B], [B]) -> ([B])>}"
            " : tensor<8x16xf32>\n    func.return",
        ),
        "signature: layout of operand 0 [B] has 1 entry, but the placement "
        "(cuda, 2x2) has 2 hierarchy dimensions",
        "arith.addf",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body="    %0 = arith.addf %a, %a "
            "{sbp.sig = #sbp.sig<([S(0), B], [S(0), B]) -> ([S(2), B])>}"
            " : tensor<8x16xf32>\n    func.return",
        ),
        "signature: layout of result 0 [S(2), B] splits dimension 2, but "
        "tensor<8x16xf32> has rank 2",
        "arith.addf",
    ),
    (
        _func_with(
            "%a: tensor<6x16xf32>",
            body="    %0 = arith.addf %a, %a "
            "{sbp.sig = #sbp.sig<([S(0), S(0)], [S(0), S(0)]) -> ([S(0), S(0)])>}"
            " : tensor<6x16xf32>\n    func.return",
        ),
        "signature: layout of operand 0 [S(0), S(0)] of tensor<6x16xf32>: "
        "dimension 0 of size 6 cannot be split evenly into 4 pieces",
        "arith.addf",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body='    %0 = arith.addf %a, %a {sbp.sig = "([B]) -> ([B])"}'
            " : tensor<8x16xf32>\n    func.return",
        ),
        "sbp.sig must be an #sbp.sig<...> attribute",
        "arith.addf",
    ),
    # placements: an op computes on one placement
    (
        _func_with(
            "%a: tensor<8x16xf32>, "
            "%b: tensor<8x16xf32> {sbp.placement = #sbp.placement<cuda, [4, 5]>}",
            body="    %0 = arith.addf %a, %b : tensor<8x16xf32>\n    func.return",
        ),
        "operands live on different placements: operand 0 on "
        "#sbp.placement<cuda, [[0, 1], [2, 3]]>, operand 1 on "
        "#sbp.placement<cuda, [4, 5]>",
        "arith.addf",
    ),
    (
        _func_with(
            "%a: tensor<8x16xf32>",
            body="    %0 = sbp.all_gather %a dims [0] from [S(0)] to [B] "
            "on #sbp.placement<cuda, [4, 5]> : tensor<8x16xf32>\n    func.return",
        ),
        "sbp.all_gather on #sbp.placement<cuda, [4, 5]>, but its operand lives on "
        "#sbp.placement<cuda, [[0, 1], [2, 3]]>",
        "sbp.all_gather",
    ),
]


@pytest.mark.parametrize(("text", "message", "op_name"), ANNOTATION_ERRORS)
def test_annotation_errors(text: str, message: str, op_name: str) -> None:
    m = module(text)
    m.verify()
    with pytest.raises(LocatedError) as info:
        verify_sbp_annotations(m)
    assert message in info.value.message
    assert info.value.op is not None
    assert info.value.op.name == op_name


def test_placement_follows_the_dataflow() -> None:
    text = in_func(
        "    %0 = sbp.cast %x to #sbp.nd<[S(0)]> on #sbp.placement<cuda, [4, 5]> "
        ": tensor<8x16xf32>\n"
        "    %1 = arith.addf %0, %0 {sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)])>}"
        " : tensor<8x16xf32>\n"
        "    %2 = sbp.all_gather %1 dims [0] from [S(0)] to [B] : tensor<8x16xf32>\n"
        "    %3 = sbp.transfer %2 from #sbp.placement<cuda, [4, 5]> [B] "
        "to #sbp.placement<cuda, [[0, 1], [2, 3]]> [B, B] : tensor<8x16xf32>\n"
        "    %4 = arith.addf %3, %x : tensor<8x16xf32>"
    )
    m = module(text)
    m.verify()
    verify_sbp_annotations(m)
    ops = {o.name + str(i): o for i, o in enumerate(m.walk())}
    stage2 = Placement.from_nested("cuda", [4, 5])
    stage1 = Placement.from_nested("cuda", [[0, 1], [2, 3]])
    pm = placement_map(m)
    adds = [o for o in ops.values() if o.name == "arith.addf"]
    assert pm[adds[0].results[0]] == stage2
    assert value_placement(adds[0].results[0]) == stage2
    assert placement_in_force(adds[0]) == stage2
    gather = next(o for o in ops.values() if isinstance(o, AllGatherOp))
    assert placement_in_force(gather, pm) == stage2
    assert pm[adds[1].results[0]] == stage1
    assert value_placement(gather.output, max_hops=0) is None
    assert value_layout(adds[0].results[0]) == (S(0),)
    assert value_layout(gather.output) == (B,)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def test_annotation_helpers() -> None:
    m = module(GOOD)
    func = next(o for o in m.walk() if isinstance(o, FuncOp))
    p = Placement.from_nested("cuda", [[0, 1], [2, 3]])
    assert module_placement(m) == p
    assert module_placement(func) == p
    assert get_nd_sbp_arg_attr(func, 0) == (S(0), B)
    assert get_nd_sbp_arg_attr(func, 1) is None
    assert get_nd_sbp_res_attr(func, 0) == (S(0), S(1))
    assert get_nd_sbp_res_attr(func, 1) is None
    assert get_arg_placement(func, 0) == p
    assert get_arg_placement(func, 2) == Placement.from_nested("cuda", [4, 5])

    set_nd_sbp_arg_attr(func, 1, (B, P))
    set_nd_sbp_res_attr(func, 1, (Partial("max"),))
    assert get_nd_sbp_arg_attr(func, 1) == (B, P)
    assert get_nd_sbp_res_attr(func, 1) == (Partial("max"),)
    # other entries of the dictionaries survive
    assert get_nd_sbp_arg_attr(func, 2) == (S(0),)

    add = next(o for o in m.walk() if o.name == "arith.addf")
    sig = get_signature(add)
    assert sig == Signature(((S(0), B), (S(0), B)), ((S(0), B),))
    set_signature(add, Signature(((S(0), B), (B, B)), ((S(0), B),)))
    assert "#sbp.sig<([S(0), B], [B, B]) -> ([S(0), B])>" in pretty(m)
    m.verify()


def test_set_attrs_on_unannotated_func() -> None:
    m = module(
        "module {\n  func.func @g(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
        "    func.return %a : tensor<4xf32>\n  }\n}"
    )
    func = next(o for o in m.walk() if isinstance(o, FuncOp))
    assert module_placement(m) is None
    set_module_placement(m, Placement.of_size(4, "cuda"))
    set_nd_sbp_arg_attr(func, 1, (S(0),))
    set_nd_sbp_res_attr(func, 0, (B,))
    text = pretty(m)
    assert "sbp.placement = #sbp.placement<cuda, [0, 1, 2, 3]>" in text
    assert "%b: tensor<4xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}" in text
    assert "-> (tensor<4xf32> {sbp.nd_sbp = #sbp.nd<[B]>})" in text
    m.verify()
    verify_sbp_annotations(m)
    assert pretty(module(text)) == text


def test_dynamic_dims_are_not_checked_for_evenness() -> None:
    m = module(_func_with("%a: tensor<?x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0), S(1)]>}"))
    verify_sbp_annotations(m)


def test_constants_live_where_they_are_used() -> None:
    args = (
        "%x: tensor<8x16xf32>, "
        "%y: tensor<8x16xf32> {sbp.placement = #sbp.placement<cuda, [4, 5]>}"
    )
    body = (
        "    %c = arith.constant dense<1.0> : tensor<8x16xf32>\n"
        "    %d = arith.addf %c, %c : tensor<8x16xf32>\n"
        "    %0 = arith.addf %d, %y {sbp.sig = #sbp.sig<([S(0)], [S(0)]) -> ([S(0)])>}"
        " : tensor<8x16xf32>\n"
        "    %1 = arith.addf %x, %c : tensor<8x16xf32>\n"
        "    %2 = sbp.transfer %d from #sbp.placement<cuda, [4, 5]> [B] "
        "to #sbp.placement<cuda, [6, 7]> [B] : tensor<8x16xf32>"
    )
    m = module(in_func(body, args=args))
    m.verify()
    verify_sbp_annotations(m)  # no "operands live on different placements"
    pm = placement_map(m)
    ops = [o for o in m.walk() if o.name in ("arith.constant", "arith.addf")]
    const, d, add0, add1 = ops
    assert const.results[0] in pm.floating and d.results[0] in pm.floating
    assert add0.results[0] not in pm.floating
    stage2 = Placement.from_nested("cuda", [4, 5])
    assert pm[add0.results[0]] == stage2
    assert placement_in_force(add0, pm) == stage2
    assert placement_in_force(add0) == stage2
    assert value_placement(add0.results[0]) == stage2
    assert pm[add1.results[0]] == Placement.from_nested("cuda", [[0, 1], [2, 3]])
