"""The collective kinds: one enum, read everywhere as the strings it replaced;
the change each makes, and which steps combine into one collective."""

from __future__ import annotations

import json

from sbpc.algebra.sbp import Broadcast, Partial, Split
from sbpc.boxing.collective_kind import (
    COLLECTIVES,
    LOCAL_KINDS,
    REDUCTIONS,
    CollectiveKind,
    makes,
    split_further,
)
from sbpc.boxing.combine_schedule import combine_key
from sbpc.dialects import sbp as sbp_dialect


def test_members_are_their_names() -> None:
    k = CollectiveKind.ALL_GATHER
    assert (
        k == "all_gather" and str(k) == "all_gather" and f"sbp.{k}" == "sbp.all_gather"
    )
    assert {"all_gather": 1}[k] == 1  # hashes as the string
    assert json.dumps({"kind": k}) == '{"kind": "all_gather"}'
    assert CollectiveKind("reduce_scatter") is CollectiveKind.REDUCE_SCATTER


def test_groups_partition_the_in_placement_kinds() -> None:
    assert set(REDUCTIONS) <= set(COLLECTIVES)
    assert not set(COLLECTIVES) & set(LOCAL_KINDS)
    rest = set(CollectiveKind) - set(COLLECTIVES) - set(LOCAL_KINDS)
    assert rest == {CollectiveKind.TRANSFER}


def test_every_kind_names_an_sbp_dialect_op() -> None:
    """The IR and the plain data spell the kinds alike (``sbp.<kind>``)."""
    ops = {op.name for op in sbp_dialect.SBP.operations}
    assert {f"sbp.{k}" for k in CollectiveKind} <= ops


def test_each_kind_makes_its_change_and_only_it() -> None:
    s0, s1, b, p = Split(0), Split(1), Broadcast(), Partial("sum")
    for kind, src, dst in [
        (CollectiveKind.ALL_GATHER, s0, b),
        (CollectiveKind.ALL_REDUCE, p, b),
        (CollectiveKind.REDUCE_SCATTER, p, s1),
        (CollectiveKind.ALL_TO_ALL, s0, s1),
        (CollectiveKind.LOCAL_SLICE, b, s0),
        (CollectiveKind.LOCAL_TO_PARTIAL, s1, p),
    ]:
        assert makes(kind, src, dst)
        if kind != CollectiveKind.ALL_TO_ALL:
            assert not makes(kind, dst, src)
    assert not makes(CollectiveKind.ALL_TO_ALL, s0, b)


def test_a_split_changed_under_a_further_split_is_found() -> None:
    src, dst = (Split(0), Split(0)), (Broadcast(), Split(0))
    assert split_further(src, dst, [0], 0) == (1, 0)
    assert split_further(src, (Split(0), Broadcast()), [1], 1) is None
    assert split_further((Split(0), Split(1)), (Broadcast(), Split(1)), [0], 0) is None


def test_combine_keys_group_only_what_one_collective_can_do() -> None:
    p, mx = (Partial("sum"),), (Partial("max"),)
    assert combine_key("all_gather", (0,), (Split(0),), "f32") == (
        "all_gather",
        (0,),
        "f32",
    )
    assert combine_key("all_reduce", [0], mx, "f32") == (
        "all_reduce",
        (0,),
        "max",
        "f32",
    )
    assert combine_key("reduce_scatter", (0,), p, "f32") is not None
    assert combine_key("reduce_scatter", (0,), mx, "f32") is None  # reduce + slice
    assert combine_key("all_reduce", (0,), p, "i1") is None  # booleans via int32
    assert combine_key("all_to_all", (0,), (Split(0),), "f32") is None
