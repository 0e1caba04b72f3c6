"""The combining search's refinement builds only plans it can keep.

A local improvement that comes back with the options it started from is a
plan the search already holds (``refine_with_combining`` drops it): it is
not built or priced again (at full depth a plan's build and peak memory
cost seconds).  Nor is one whose arguments alone are over the device's
memory (``memory.argument_bytes``): its peak would drop it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sbpc.algebra.placement import Placement
from sbpc.boxing.cost_model import CostModel
from sbpc.passes import propagate as propagate_pass
from sbpc.passes.propagate import SbpPropagatePass, _Problem, _refined
from sbpc.propagation.improve import Improvement, replicated_options
from sbpc.propagation.memory import argument_bytes
from sbpc.testing.synthetic_graphs import random_graph
from sbpc.timing import Timer


@pytest.fixture
def problem_and_plan() -> tuple[_Problem, object]:
    graph = random_graph(np.random.default_rng(7), (2, 4), 10)
    placement = Placement("cpu", (2, 4), tuple(range(8)))
    problem = _Problem(graph, placement, CostModel())
    plan = SbpPropagatePass(strategy="greedy", improve=0)._propagate(problem)
    return problem, plan


def _improving_to(
    monkeypatch: pytest.MonkeyPatch, found: list[int] | None
) -> list[list[int]]:
    """Every improvement comes back as ``found`` (None: unmoved); the
    options of every plan built from then on are recorded in the list
    returned."""
    built: list[list[int]] = []
    build = propagate_pass.build_plan

    def counting(graph, options, *args, **kwargs):
        built.append(list(options))
        return build(graph, options, *args, **kwargs)

    monkeypatch.setattr(propagate_pass, "build_plan", counting)
    monkeypatch.setattr(
        propagate_pass,
        "improve_each",
        lambda graph, costs, options, sweeps: [
            Improvement(list(options) if found is None else found)
        ],
    )
    return built


def test_an_unmoved_improvement_is_not_built_again(
    problem_and_plan, monkeypatch: pytest.MonkeyPatch
) -> None:
    problem, plan = problem_and_plan
    built = _improving_to(monkeypatch, None)
    assert _refined(problem, plan, 0.0) == [] and built == []


def test_a_moved_improvement_is_built(
    problem_and_plan, monkeypatch: pytest.MonkeyPatch
) -> None:
    problem, plan = problem_and_plan
    replicated = replicated_options(problem.graph, plan.options)
    assert replicated != plan.options
    built = _improving_to(monkeypatch, replicated)
    (found,) = _refined(problem, plan, 0.0)
    assert built == [replicated]
    assert found.options != plan.options


def _with_capacity(problem: _Problem, capacity: float) -> _Problem:
    model = problem.cost_model
    return problem.under(
        replace(model, device=replace(model.device, capacity=capacity))
    )


@pytest.mark.parametrize("over", [True, False])
def test_an_improvement_whose_arguments_are_over_the_memory_is_not_built(
    problem_and_plan, monkeypatch: pytest.MonkeyPatch, over: bool
) -> None:
    problem, plan = problem_and_plan
    replicated = replicated_options(problem.graph, plan.options)
    held = argument_bytes(problem.graph, replicated)
    problem = _with_capacity(problem, held - 1 if over else held)
    built = _improving_to(monkeypatch, replicated)
    found = _refined(problem, plan, 0.0)
    if over:  # dropped unbuilt: its peak is at least its arguments
        assert found == [] and built == []
    else:  # the arguments fit: built, and kept only if its peak fits too
        assert built == [replicated]
        assert all(p.peak_memory <= held for p in found)


def test_building_the_improvements_is_a_phase_of_its_own(
    problem_and_plan, monkeypatch: pytest.MonkeyPatch
) -> None:
    problem, plan = problem_and_plan
    replicated = replicated_options(problem.graph, plan.options)
    monkeypatch.setattr(
        propagate_pass,
        "improve_each",
        lambda graph, costs, options, sweeps: [Improvement(replicated)],
    )
    timer = Timer()
    with timer.activate():
        _refined(problem, plan, 0.0)
    assert [name for _, name, _ in timer.rows()] == ["improve: build plans"]
