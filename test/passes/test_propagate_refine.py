"""The combining search's refinement builds only plans it can keep.

A local improvement that comes back with the options it started from is a
plan the search already holds (``refine_with_combining`` drops it): it is
not built or priced again (at full depth a plan's build and peak memory
cost seconds).
"""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.algebra.placement import Placement
from sbpc.boxing.cost_model import CostModel
from sbpc.passes import propagate as propagate_pass
from sbpc.passes.propagate import SbpPropagatePass, _Problem, _refined
from sbpc.propagation.improve import Improvement, replicated_options
from sbpc.testing.synthetic_graphs import random_graph


@pytest.fixture
def problem_and_plan() -> tuple[_Problem, object]:
    graph = random_graph(np.random.default_rng(7), (2, 4), 10)
    placement = Placement("cpu", (2, 4), tuple(range(8)))
    problem = _Problem(graph, placement, CostModel())
    plan = SbpPropagatePass(strategy="greedy", improve=0)._propagate(problem)
    return problem, plan


def test_an_unmoved_improvement_is_not_built_again(
    problem_and_plan, monkeypatch: pytest.MonkeyPatch
) -> None:
    problem, plan = problem_and_plan
    built: list[list[int]] = []
    build = propagate_pass.build_plan

    def counting(graph, options, *args, **kwargs):
        built.append(list(options))
        return build(graph, options, *args, **kwargs)

    monkeypatch.setattr(propagate_pass, "build_plan", counting)
    monkeypatch.setattr(
        propagate_pass,
        "improve_each",
        lambda graph, costs, options, sweeps: [Improvement(list(options))],
    )
    assert _refined(problem, plan, 0.0) == [] and built == []


def test_a_moved_improvement_is_built(
    problem_and_plan, monkeypatch: pytest.MonkeyPatch
) -> None:
    problem, plan = problem_and_plan
    replicated = replicated_options(problem.graph, plan.options)
    assert replicated != plan.options
    monkeypatch.setattr(
        propagate_pass,
        "improve_each",
        lambda graph, costs, options, sweeps: [Improvement(replicated)],
    )
    (found,) = _refined(problem, plan, 0.0)
    assert found.options != plan.options
