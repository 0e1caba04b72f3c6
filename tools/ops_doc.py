"""Write ``docs/ops.md``: every op sbpc reads, from the registered dialects.

An op sbpc does not read stops parsing with a message that points at that
page (``sbpc.dialects.unknown_ops``), so the page is made from the same
dialects the parser uses and ``test/tools/test_ops_doc.py`` fails when it
falls behind.  Run ``python -m sbpc.tools.ops_doc`` to rewrite it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from xdsl.ir import Dialect

from sbpc.dialects.chlo import CHLO
from sbpc.dialects.sbp import SBP
from sbpc.dialects.sdy import SDY
from sbpc.dialects.stablehlo import StableHLO
from sbpc.dialects.stablehlo.unsupported import UnsupportedOp
from sbpc.dialects.unknown_ops import READ_DIALECTS
from sbpc.ops.registry import registered_ops
from sbpc.passes.pipeline import default_context

DOC = Path(__file__).resolve().parent.parent / "docs" / "ops.md"

_HEADER = """\
# The ops sbpc reads

<!-- Written by `python -m sbpc.tools.ops_doc`; do not edit by hand. -->

`sbpc-opt` and `sbpc.jax` read modules in the dialects {dialects}.  An op
outside them, or one of them not listed here, stops parsing with a located
error that points at this page:

```
in.mlir:2:8: error: 'stablehlo.foo' is not supported: sbpc reads the stablehlo ops listed in docs/ops.md, and this is not one of them
```

"planned" marks the ops with SBP rules (`sbpc/ops/`), which propagation
lays out; the others are read and then handled as their pass says (`sdy`
by `sbp-import-sdy`, `sbp` written by the passes) or refused with a reason.
"""

_NOTES = {
    "stablehlo": "StableHLO as JAX prints it (`dialects/stablehlo/`).  Ops "
    "not marked planned are handled without rules: control flow through its "
    "regions ([control-flow.md](control-flow.md)), collectives inside manual "
    '(`shard_map`) bodies; "refused" ops parse only to stop with a reason.',
    "chlo": "The CHLO ops JAX emits (`dialects/chlo.py`).",
    "sdy": "Shardy's dialect (`dialects/sdy/`, [jax-sharding.md](jax-sharding.md)): "
    "`sbp-import-sdy` turns it into sbp annotations and casts.",
    "sbp": "sbpc's own (`dialects/sbp/`): what the passes write.",
}


def _rows(dialect: Dialect, planned: set[str]) -> Iterable[str]:
    for op in sorted(dialect.operations, key=lambda o: o.name):
        if issubclass(op, UnsupportedOp):
            status = f"refused: {op.WHY}"
        else:
            status = "planned" if op.name in planned else ""
        yield f"| `{op.name}` | {status} |"


def ops_doc() -> str:
    """The text of ``docs/ops.md``."""
    planned = set(registered_ops())
    parts = [_HEADER.format(dialects=", ".join(f"`{d}`" for d in READ_DIALECTS))]
    for dialect in (StableHLO, CHLO, SDY, SBP):
        parts.append(f"## `{dialect.name}`\n\n{_NOTES[dialect.name]}\n")
        parts.append("| op | |\n| --- | --- |\n" + "\n".join(_rows(dialect, planned)))
        parts.append("")
    ctx = default_context()
    xdsl = [d for d in READ_DIALECTS if d not in {"stablehlo", "chlo", "sdy", "sbp"}]
    parts.append(
        "## xDSL's dialects\n\n"
        f"{', '.join(f'`{d}`' for d in xdsl)} are read as xDSL defines them "
        "(any of their ops parses); these have SBP rules:\n"
    )
    for name in xdsl:
        dialect = ctx.get_dialect(name)
        names = sorted(o.name for o in dialect.operations if o.name in planned)
        if names:
            parts.append(f"- `{name}`: " + ", ".join(f"`{n}`" for n in names))
    return "\n".join(parts) + "\n"


def main() -> None:
    DOC.write_text(ops_doc())
    print(f"wrote {DOC}", file=sys.stderr)


if __name__ == "__main__":
    main()
