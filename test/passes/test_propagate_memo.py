"""The pass writes the same signatures with memoised greedy/BFS as without."""

from __future__ import annotations

from pathlib import Path

import pytest

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, S
from sbpc.dialects import sbp as sbp_dialect
from sbpc.passes.bridge.program import main_function
from sbpc.passes.pipeline import default_context, parse_module, run_passes
from sbpc.propagation.bfs import Bfs
from sbpc.propagation.driver import STRATEGIES
from sbpc.propagation.greedy import Greedy

ROOT = Path(__file__).resolve().parents[2]
# JAX exports (given a 2x4 mesh, data parallel) and annotated lit inputs
# (BFS seeds: configured ops).
EXPORTS = sorted((ROOT / "examples" / "stablehlo").glob("*.mlir"))
ANNOTATED = [
    Path(__file__).parent / "sbp-propagate" / name
    for name in ("mindspore-ffn.mlir", "op-families.mlir")
]


def propagated(path: Path, strategy: str) -> str:
    ctx = default_context()
    module = parse_module(path.read_text(), ctx)
    if path in EXPORTS:
        sbp_dialect.set_module_placement(module, Placement.of_size((2, 4)))
        sbp_dialect.set_nd_sbp_arg_attr(main_function(module), 0, (S(0), B))
    run_passes(module, f"sbp-inline,sbp-propagate{{strategy={strategy}}}", ctx)
    return str(module)


@pytest.mark.parametrize("path", EXPORTS + ANNOTATED, ids=lambda p: p.stem)
@pytest.mark.parametrize("cls", [Greedy, Bfs], ids=lambda c: c.name)
def test_examples_get_the_same_signatures(
    path: Path, cls: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    memoised = propagated(path, cls.name)
    monkeypatch.setitem(STRATEGIES, cls.name, cls(memoise=False))
    plain = propagated(path, cls.name)
    assert "sbp.sig" in memoised
    assert memoised == plain
