"""``sbp-import-sdy`` walks the module once per pattern only where an op of
the pattern's kinds is there, and imports the same module as walking it
with every pattern (each lit input of ``test/passes/sbp-import-sdy``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.pattern_rewriter import PatternRewriteWalker

from sbpc.dialects import sdy
from sbpc.dialects import stablehlo as shlo
from sbpc.passes import import_sdy
from sbpc.passes.pipeline import parse_module, run_passes

INPUTS = Path(__file__).parent / "sbp-import-sdy"
# Every kind some pattern of the import matches: a census of these walks
# with every pattern, as the pass did before it skipped walks.
EVERY_KIND = {
    sdy.ConstantOp,
    shlo.PartitionIdOp,
    sdy.PropagationBarrierOp,
    sdy.ShardingGroupOp,
    sdy.NamedComputationOp,
    sdy.ShardingConstraintOp,
    sdy.ReshardOp,
    sdy.AllReduceOp,
    sdy.ManualComputationOp,
}


def _cases() -> list[tuple[str, str]]:
    """(name, text) of every accepted case of the lit inputs."""
    out = []
    for path in sorted(INPUTS.glob("*.mlir")):
        if "invalid" in path.name:
            continue
        for i, text in enumerate(path.read_text().split("// -----")):
            if "expected-error" not in text:
                out.append((f"{path.stem}-{i}", text))
    return out


def _imported(text: str) -> str:
    return str(run_passes(parse_module(text), "sbp-import-sdy"))


@pytest.mark.parametrize("name,text", _cases(), ids=[n for n, _ in _cases()])
def test_the_import_is_that_of_every_walk(
    name: str, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    skipping = _imported(text)
    monkeypatch.setattr(import_sdy, "_census", lambda module: (EVERY_KIND, True))
    assert skipping == _imported(text)


def test_a_module_of_plain_ops_is_walked_by_no_pattern(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = """
    sdy.mesh @mesh = <["x"=2, "y"=4]>
    func.func @main(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
        -> tensor<8x8xf32> {
      %b = stablehlo.add %a, %a : tensor<8x8xf32>
      return %b : tensor<8x8xf32>
    }
    """
    walked: list[str] = []
    original = PatternRewriteWalker.rewrite_module

    def recorded(self: PatternRewriteWalker, module: object) -> bool:
        walked.append(type(self.pattern).__name__)
        return original(self, module)  # type: ignore[arg-type]

    monkeypatch.setattr(PatternRewriteWalker, "rewrite_module", recorded)
    out = _imported(text)
    assert walked == []
    assert "sbp.nd_sbp" in out
    # a sharding constraint is walked by its pattern (and only that one)
    walked.clear()
    _imported(
        text.replace(
            "%b = stablehlo.add %a, %a : tensor<8x8xf32>",
            "%c = stablehlo.add %a, %a : tensor<8x8xf32>\n"
            '      %b = sdy.sharding_constraint %c <@mesh, [{}, {"y"}]> '
            ": tensor<8x8xf32>",
        )
    )
    assert walked == ["LayoutToCast"]
