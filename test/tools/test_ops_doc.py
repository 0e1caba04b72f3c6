"""``docs/ops.md`` lists exactly the ops sbpc reads (``tools/ops_doc.py``),
so the page an unknown op's error points at stays true."""

from __future__ import annotations

from sbpc.dialects.sdy import SDY
from sbpc.dialects.stablehlo import StableHLO
from sbpc.tools.ops_doc import DOC, ops_doc


def test_ops_doc_is_current() -> None:
    assert DOC.read_text() == ops_doc(), (
        "docs/ops.md is stale: run `python -m sbpc.tools.ops_doc`"
    )


def test_ops_doc_lists_every_op() -> None:
    text = ops_doc()
    for dialect in (StableHLO, SDY):
        for op in dialect.operations:
            assert f"| `{op.name}` |" in text
    assert "| `sdy.reshard` |" in text
    assert "refused: complex numbers" in text
