"""The fewest-bytes reference a report's ``trade:`` line is measured against.

It is solved when a report is read, within ``REFERENCE_SECONDS``: at full
depth its LP can take many times the plan's own (bytes priced alone leave
many plans tied), and a report must not wait minutes on it.  A solve cut
off at the limit is not known to be the fewest, so the report goes without
it rather than name a trade against a plan that is not the reference.
"""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.algebra.placement import Placement
from sbpc.boxing.cost_model import CostModel
from sbpc.passes import propagate as propagate_pass
from sbpc.passes.propagate import SbpPropagatePass, _Problem
from sbpc.testing.synthetic_graphs import random_graph


@pytest.fixture
def problem() -> _Problem:
    graph = random_graph(np.random.default_rng(7), (2, 4), 10)
    placement = Placement("cpu", (2, 4), tuple(range(8)))
    return _Problem(graph, placement, CostModel())


def test_the_reference_moves_no_more_bytes_than_the_plan(problem: _Problem) -> None:
    pass_ = SbpPropagatePass(strategy="optimal", improve=0)
    plan = pass_._propagate(problem)
    reference = pass_._fewest_bytes(problem)
    assert reference is not None
    assert reference.plan.total_bytes <= plan.total_bytes


def test_the_reference_is_solved_within_its_limit(
    problem: _Problem, monkeypatch: pytest.MonkeyPatch
) -> None:
    pass_ = SbpPropagatePass(strategy="optimal", improve=0)
    deadlines: list[float | None] = []
    solve = SbpPropagatePass._propagate

    def seen(self, problem: _Problem):
        deadlines.append(problem.deadline)
        return solve(self, problem)

    monkeypatch.setattr(SbpPropagatePass, "_propagate", seen)
    assert pass_._fewest_bytes(problem) is not None
    assert deadlines and deadlines[0] is not None


def test_a_reference_cut_off_at_its_limit_is_left_out(
    problem: _Problem, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(propagate_pass, "REFERENCE_SECONDS", 0.0)
    pass_ = SbpPropagatePass(strategy="optimal", improve=0)
    assert pass_._fewest_bytes(problem) is None
