"""Placement resolution: values follow the dataflow, constants float."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.ir import Operation, SSAValue

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, S
from sbpc.dialects.sbp import (
    AllGatherOp,
    LayoutOpInterface,
    placement_in_force,
    placement_map,
    value_layout,
    value_placement,
    verify_sbp_annotations,
)
from sbpc.dialects.sbp.placement import resolve_placement, walked_placement_map
from sbpc.passes.pipeline import parse_module

ROOT = Path(__file__).resolve().parents[3]


def test_placement_follows_the_dataflow(module, in_func) -> None:
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


def test_constants_live_where_they_are_used(module, in_func) -> None:
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


def test_sbp_ops_state_their_layout_through_the_interface(module, in_func) -> None:
    m = module(
        in_func(
            "    %0 = sbp.cast %x to #sbp.nd<[S(0)]> on #sbp.placement<cuda, [4, 5]> "
            ": tensor<8x16xf32>\n"
            "    %1 = sbp.all_gather %0 dims [0] from [S(0)] to [B] : tensor<8x16xf32>\n"
            "    %2 = arith.addf %1, %1 : tensor<8x16xf32>"
        )
    )
    cast_op, gather, add = (
        o for o in m.walk() if o.name.startswith(("sbp.", "arith."))
    )
    stage2 = Placement.from_nested("cuda", [4, 5])
    interface = cast_op.get_trait(LayoutOpInterface)
    assert interface is not None
    assert interface.result_layout(cast_op) == (S(0),)
    assert interface.named_placement(cast_op) == stage2
    assert gather.get_trait(LayoutOpInterface).named_placement(gather) is None
    assert add.get_trait(LayoutOpInterface) is None
    assert value_placement(add.results[0]) == stage2


def _values(module: Operation) -> list[SSAValue]:
    out: list[SSAValue] = []
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                out += block.args
        out += op.results
    return out


@pytest.mark.parametrize(
    "path",
    [
        ROOT / "test" / "passes" / "sbp-lower-boxing" / "cross-placement.mlir",
        ROOT / "test" / "passes" / "sbp-propagate" / "regions.mlir",
        ROOT / "test" / "passes" / "sbp-propagate" / "mindspore-ffn.mlir",
    ],
    ids=lambda p: p.stem,
)
def test_the_map_resolves_every_value_as_one_value_at_a_time(path: Path) -> None:
    """``placement_map`` (per op, one walk) against ``resolve_placement``
    (per value, by search), constants' floating included."""
    for text in path.read_text().split("// -----"):
        m = parse_module(text)
        walked = walked_placement_map(list(m.walk()))
        pm = placement_map(m)
        values = _values(m)
        assert values
        for v in values:
            placement, floating = resolve_placement(v, [1 << 30])
            assert walked.get(v) == placement == pm.get(v) == pm[v]
            assert (v in walked.floating) == floating
            assert v in pm
        assert walked.is_uniform() == (len(set(walked.values())) <= 1)
        assert pm.is_uniform() == walked.is_uniform()
        # One placement answered at once, another walked value by value.
        assert (pm.everywhere is not None) == walked.is_uniform()


def test_a_module_of_one_placement_is_not_walked_value_by_value(
    module, in_func
) -> None:
    """Naming the module's own placement keeps the map whole; naming another
    (an argument's ``sbp.placement``, an sbp op's ``on``) walks it."""
    same = module(
        in_func(
            "    %0 = sbp.cast %x to #sbp.nd<[S(0)]> on #sbp.placement<cuda, [0, 1]> "
            ": tensor<8x16xf32>\n"
            "    %1 = arith.addf %0, %0 : tensor<8x16xf32>",
            placement="cuda, [0, 1]",
        )
    )
    here = Placement.from_nested("cuda", [0, 1])
    pm = placement_map(same)
    assert pm.everywhere == here and not dict(pm)
    for v in _values(same):
        assert pm[v] == pm.get(v) == here and v in pm
    assert pm.is_uniform()
    ops = [op for op in same.walk() if op.results and op.name != "builtin.module"]
    assert ops and all(placement_in_force(op, pm) == here for op in ops)
    elsewhere = Placement.from_nested("cuda", [4, 5])
    cast = next(op for op in ops if op.name == "sbp.cast")
    pm[cast.results[0]] = elsewhere  # an entry (a pass's new value) elsewhere
    assert not pm.is_uniform()
    add = next(op for op in ops if op.name == "arith.addf")
    assert placement_in_force(add, pm) == elsewhere  # entries are read again
    other = module(
        in_func(
            "    %0 = sbp.cast %x to #sbp.nd<[S(0)]> on #sbp.placement<cuda, [4, 5]> "
            ": tensor<8x16xf32>"
        )
    )
    assert placement_map(other).everywhere is None
    argument = (
        "%x: tensor<8x16xf32>, "
        "%y: tensor<8x16xf32> {sbp.placement = #sbp.placement<cuda, [4, 5]>}"
    )
    moved = module(
        in_func("    %0 = arith.addf %x, %x : tensor<8x16xf32>", args=argument)
    )
    assert placement_map(moved).everywhere is None


def test_one_placement_is_uniform_and_a_stage_is_not(module, in_func) -> None:
    one = module(in_func("    %0 = arith.addf %x, %x : tensor<8x16xf32>"))
    assert placement_map(one).is_uniform()
    two = module(
        in_func(
            "    %0 = sbp.cast %x to #sbp.nd<[S(0)]> on #sbp.placement<cuda, [4, 5]> "
            ": tensor<8x16xf32>"
        )
    )
    assert not placement_map(two).is_uniform()
