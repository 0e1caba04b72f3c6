"""The collective kinds: one enum, read everywhere as the strings it replaced."""

from __future__ import annotations

import json

from sbpc.boxing.collective_kind import (
    COLLECTIVES,
    LOCAL_KINDS,
    REDUCTIONS,
    CollectiveKind,
)
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
