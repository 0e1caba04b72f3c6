"""``sbp-propagate`` runs any registered strategy by its name."""

from __future__ import annotations

import pytest
from xdsl.dialects import func

from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.diagnostics import LocatedError
from sbpc.passes.options import OptionError
from sbpc.passes.pipeline import parse_module, run_passes
from sbpc.passes.propagate import SbpPropagatePass
from sbpc.propagation.graph import OpNode, SourceNode
from sbpc.propagation.strategy import Choice, Problem, Strategy

MODULE = """
module attributes {sbp.placement = #sbp.placement<cuda, [0, 1, 2, 3]>} {
  func.func @f(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %t = stablehlo.tanh %y : tensor<8x4xf32>
    return %t : tensor<8x4xf32>
  }
}
"""


class FirstCandidate(Strategy):
    """Every op and argument takes its first option."""

    name = "first-candidate"

    def choose(self, problem: Problem) -> Choice:
        options = problem.undecided()
        for node in problem.graph.nodes:
            if isinstance(node, OpNode | SourceNode):
                options[node.id] = 0
        return Choice(options)


@pytest.fixture
def first_candidate(registered) -> Strategy:
    return registered(FirstCandidate())


def test_a_registered_strategy_is_a_pass_option(first_candidate: Strategy) -> None:
    module = parse_module(MODULE)
    (plan,) = SbpPropagatePass(strategy="first-candidate").plan_module(module)
    assert plan.plan.strategy == "first-candidate"
    assert plan.function == "f" and plan.placement.ranks == (0, 1, 2, 3)
    graph = plan.plan.graph
    assert all(
        plan.plan.signatures[n.id] == n.options[0]
        for n in graph.nodes
        if isinstance(n, OpNode)
    )
    f = next(op for op in module.ops if isinstance(op, func.FuncOp))
    signed = [sbp_dialect.get_signature(op) for op in f.body.ops][:2]
    assert signed == [plan.plan.signatures[n.id] for n in graph.ops()]

    run_passes(parse_module(MODULE), "sbp-propagate{strategy=first-candidate}")


def test_an_unknown_strategy_lists_the_registered_ones(
    first_candidate: Strategy,
) -> None:
    with pytest.raises(OptionError, match="greedy, bfs, optimal, first-candidate"):
        SbpPropagatePass(strategy="nope")


def test_a_numpy_overflow_is_a_located_error(monkeypatch) -> None:
    """Issue 36, row D: numpy's overflow warnings are raised inside the
    search and reported at the function, never printed and ignored."""
    import numpy as np

    import sbpc.passes.propagate as propagate_pass

    def overflowing(*args, **kwargs):
        return np.float64(1e308) * np.float64(10.0)

    monkeypatch.setattr(propagate_pass, "propagate", overflowing)
    with pytest.raises(LocatedError, match="arithmetic out of range while planning"):
        SbpPropagatePass().plan_module(parse_module(MODULE))


def test_the_time_limit_bounds_the_whole_pass(monkeypatch) -> None:
    """Issue 36, row E: every solve gets what the ones before it left of
    ``time_limit`` (at least ``MIN_SOLVE_SECONDS``), not a limit of its own."""
    import time

    import sbpc.passes.propagate as propagate_pass
    from sbpc.propagation.optimal import MIN_SOLVE_SECONDS

    real = propagate_pass.propagate
    seen: list[float] = []

    def slow(*args, **kwargs):
        seen.append(kwargs["time_limit"])
        time.sleep(0.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(propagate_pass, "propagate", slow)
    function = MODULE[MODULE.index("  func.func") : MODULE.rindex("}")]
    module = MODULE[: MODULE.rindex("}")] + function.replace("@f(", "@g(") + "}"
    SbpPropagatePass(strategy="optimal", time_limit=0.5).plan_module(
        parse_module(module)
    )
    assert len(seen) == 2
    assert 0.3 < seen[0] <= 0.5
    assert seen[1] <= 0.2 and seen[1] >= MIN_SOLVE_SECONDS
