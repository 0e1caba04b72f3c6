"""sbp ops: syntax round trips, builders, and what each op's verifier checks alone."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import (
    ModuleOp,
    TensorType,
    f32,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError, VerifyException

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.dialects.diagnostics import LocatedError
from sbpc.dialects.sbp import (
    AllGatherOp,
    AllReduceOp,
    AllToAllOp,
    CastOp,
    LocalSliceOp,
    LocalToPartialOp,
    PlacementAttr,
    ReduceScatterOp,
    TransferOp,
    collective_for,
    verify_sbp_annotations,
)


def test_parse_error_inside_op_points_at_token(module, line_col, in_func) -> None:
    text = in_func("    %0 = sbp.cast %x to #sbp.nd<[S(0), P(avg)]> : tensor<8x16xf32>")
    with pytest.raises(ParseError) as info:
        module(text)
    assert "unknown partial kind 'avg'" in str(info.value)
    line, col = line_col(info.value)
    assert line == 3
    assert text.splitlines()[2][col - 1 :].startswith("avg")


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
def test_op_round_trip(module, pretty, generic, in_func, line: str) -> None:
    m = module(in_func("    " + line))
    m.verify()
    verify_sbp_annotations(m)
    assert "    " + line + "\n" in pretty(m)
    again = module(pretty(m))
    assert pretty(again) == pretty(m)
    # The generic form parses back to the same IR.
    assert pretty(module(generic(m))) == pretty(m)


def test_collective_on_another_placement(module, pretty, generic, in_func) -> None:
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


def test_generic_form_uses_properties(module, generic, in_func) -> None:
    line = "%0 = sbp.all_gather %x dims [1] from [S(0), S(1)] to [S(0), B] : tensor<8x16xf32>"
    text = generic(module(in_func("    " + line)))
    assert (
        '"sbp.all_gather"(%x) <{dims = array<i64: 1>, from_sbp = #sbp.nd<[S(0), S(1)]>,'
        " to_sbp = #sbp.nd<[S(0), B]>}>" in text
    )


def test_builders(module, pretty, in_func) -> None:
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


def test_all_reduce_kind(module, in_func) -> None:
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
def test_op_verifier(module, in_func, line: str, message: str) -> None:
    m = module(in_func("    " + line))
    with pytest.raises(VerifyException) as info:
        m.verify()
    assert message in str(info.value)
    # The module-wide verifier reports the same problem, at the op.
    with pytest.raises(LocatedError) as located:
        verify_sbp_annotations(m)
    assert message in located.value.message
    assert located.value.op is _the_sbp_op(m)


def test_op_verifier_without_module_skips_placement_checks(module, in_func) -> None:
    m = module(
        in_func("    %0 = sbp.cast %x to #sbp.nd<[S(0)]> : tensor<8x16xf32>", "")
    )
    m.verify()  # no placement: the op alone cannot tell the hierarchy rank
    with pytest.raises(LocatedError, match=r"no placement: add sbp\.placement"):
        verify_sbp_annotations(m)


def test_innermost_rule_allows_joint_and_outer_steps(module, in_func) -> None:
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
