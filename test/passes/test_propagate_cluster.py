"""``sbp-propagate{strategy=optimal cluster=0}`` solves the whole core's LP
(``Optimal(cluster=False)``); the default tries the repeated layers first.
Both give plans of the same cost."""

from __future__ import annotations

import pytest

from sbpc.passes import propagate as propagate_pass
from sbpc.passes.pipeline import parse_module
from sbpc.passes.propagate import SbpPropagatePass
from sbpc.propagation.optimal import Optimal

MODULE = """
module attributes {sbp.placement = #sbp.placement<cuda, [0, 1, 2, 3]>} {
  func.func @f(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %t = stablehlo.tanh %y : tensor<8x16xf32>
    %z = stablehlo.dot_general %t, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    return %z : tensor<8x16xf32>
  }
}
"""


@pytest.mark.parametrize("cluster", [0, 1])
def test_cluster_option_picks_the_strategy(
    monkeypatch: pytest.MonkeyPatch, cluster: int
) -> None:
    seen: list[object] = []
    real = propagate_pass.propagate

    def spy(graph, edge_cost, strategy, **kw):
        seen.append(strategy)
        return real(graph, edge_cost, strategy, **kw)

    monkeypatch.setattr(propagate_pass, "propagate", spy)
    SbpPropagatePass(strategy="optimal", cluster=cluster).plan_module(
        parse_module(MODULE)
    )
    if cluster:
        assert seen == ["optimal"]
    else:
        assert seen == [Optimal(cluster=False)]


def test_both_settings_cost_the_same() -> None:
    (on,) = SbpPropagatePass(strategy="optimal").plan_module(parse_module(MODULE))
    (off,) = SbpPropagatePass(strategy="optimal", cluster=0).plan_module(
        parse_module(MODULE)
    )
    assert on.plan.total_time == pytest.approx(off.plan.total_time, rel=1e-9)
