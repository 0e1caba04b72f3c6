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
from sbpc.algebra.sbp import B, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.cost_model import CostModel
from sbpc.passes import propagate as propagate_pass
from sbpc.passes.propagate import SbpPropagatePass, _Problem, _refined, _refined_from
from sbpc.propagation.graph import SbpGraph
from sbpc.propagation.improve import Improvement, replicated_options
from sbpc.propagation.memory import argument_bytes, plan_memory
from sbpc.propagation.solver import ilp as ilp_module
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
        lambda graph, costs, options, sweeps, **_: [
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
        lambda graph, costs, options, sweeps, **_: [Improvement(replicated)],
    )
    timer = Timer()
    with timer.activate():
        _refined(problem, plan, 0.0)
    assert [name for _, name, _ in timer.rows()] == ["improve: build plans"]


def _clique(ops: int = 5) -> SbpGraph:
    """Each op reads the three before it: a core the shrink keeps, so the
    optimal strategy solves an LP."""
    t = TensorType((64, 64))
    graph = SbpGraph((2, 4))
    values = [graph.add_argument("x", t)]
    layouts = [((S(0), S(1)), 1), ((S(1), S(0)), 1), ((B, S(0)), 4), ((B, B), 8)]
    for k in range(ops):
        ins = values[-3:]
        (v,) = graph.add_op(
            f"op{k}",
            ins,
            [t],
            [Signature((nd,) * len(ins), (nd,)) for nd, _ in layouts],
            compute_costs=[c * 1e-6 * (1 + 0.1 * k) for _, c in layouts],
        )
        values.append(v)
    graph.add_result("out", values[-1])
    return graph


def _search(graph: SbpGraph) -> tuple[list[list[int]], Timer]:
    problem = _Problem(graph, Placement("cpu", (2, 4), tuple(range(8))), CostModel())
    timer = Timer()
    with timer.activate():
        _, tried = SbpPropagatePass(strategy="optimal")._search_combined(problem)
    return [c.plan.options for c in tried], timer


def test_the_latency_free_problem_is_built_while_the_strategys_lp_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its phases sit inside the strategy's LP, and the search tries the
    same plans as when it is built in the round (no LP beside it)."""
    tried, timer = _search(_clique())
    rows = [(depth, name) for depth, name, _ in timer.rows()]
    lp = rows.index((1, "lp relaxation"))
    assert rows[lp + 1 : lp + 3] == [
        (2, "improve: pairwise problem"),
        (2, "improve: shrink"),
    ]
    monkeypatch.setattr(ilp_module, "while_solving", lambda solve: solve())
    alone, timer = _search(_clique())
    assert (2, "improve: pairwise problem") not in [
        (depth, name) for depth, name, _ in timer.rows()
    ]
    assert alone == tried


@pytest.mark.parametrize("over", [True, False])
def test_under_a_budget_a_refined_plan_must_fit_it_and_the_marks_stay(
    problem_and_plan, monkeypatch: pytest.MonkeyPatch, over: bool
) -> None:
    """The budget's later rounds keep only refinements within it, priced
    with their own per-use gathers; the graph's marks (the last budgeted
    solve's) are left as they were."""
    problem, plan = problem_and_plan
    replicated = replicated_options(problem.graph, plan.options)
    _improving_to(monkeypatch, replicated)
    (free,) = _refined(problem, plan, 0.0)  # its peak without a budget
    marks = frozenset({next(problem.graph.sources()).result})
    problem.graph.gathered_per_use = marks
    budget = free.peak_memory - 1 if over else free.peak_memory
    found = _refined(problem, plan, 0.0, budget=budget)
    assert problem.graph.gathered_per_use == marks
    assert [p.options for p in found] == ([] if over else [free.options])
    assert all(p.peak_memory <= budget for p in found)


def test_a_refined_budgeted_plan_names_the_plan_it_came_from(
    problem_and_plan,
) -> None:
    _, plan = problem_and_plan
    origin = replace(
        plan,
        stats={
            "status": "a memory price (not proven optimal)",
            "proven": False,
            "memory_price_crossover": "a cheaper plan: 4 free nodes, 1 solves",
            "gap": 0.01,
        },
    )
    once = _refined_from(origin, replace(plan, stats={"improve_node_moves": 3}), 0.5)
    twice = _refined_from(once, replace(plan, stats={}), 0.125)
    assert once.stats["status"] == (
        "improved locally at latency scale 0.5 from: "
        "a memory price (not proven optimal)"
    )
    assert twice.stats["status"] == (
        "improved locally at latency scale 0.125 from: "
        "a memory price (not proven optimal)"
    )
    for p in (once, twice):
        assert p.stats["proven"] is False and "gap" not in p.stats
        assert p.stats["memory_price_crossover"].startswith("a cheaper plan")
    assert once.stats["improve_node_moves"] == 3


@pytest.mark.parametrize("strategy", ["greedy", "bfs"])
def test_a_strategy_blind_to_the_budget_keeps_a_candidate_that_fits(strategy) -> None:
    """Greedy and bfs plan without the memory budget; where their plan is
    over it but another plan the search tried fits (here the latency-free
    start, or a refinement), that one is kept, the cheapest that fits: the
    pass fails only when none does.  It fits as it is emitted: a greedy or
    bfs plan gathers no argument per use (seed 27's refinement fitted only
    with such gathers, and the pass then refused it)."""
    placement = Placement("cpu", (2, 4), tuple(range(8)))
    checked = 0
    for seed in (*range(12), 27):
        graph = random_graph(np.random.default_rng(seed), (2, 4), 12)
        search = SbpPropagatePass(strategy=strategy)._search_combined
        best, tried = search(_Problem(graph, placement, CostModel()))
        least = min(c.plan.peak_memory for c in tried)
        if best.plan.peak_memory <= least:
            continue
        budget = (best.plan.peak_memory + least) / 2
        kept, tried = search(_Problem(graph, placement, CostModel(), budget))
        fits = [c.total_time for c in tried if c.plan.peak_memory <= budget]
        if not fits:  # the budgeted search's rounds found none: an error
            assert kept.plan.peak_memory > budget
            continue
        assert kept.plan.peak_memory <= budget
        assert kept.total_time <= min(fits) * (1 + 1e-9)
        graph.gathered_per_use = frozenset()  # as ``_gather_per_use`` leaves it
        assert plan_memory(graph, kept.plan.options).peak <= budget
        checked += 1
    assert checked >= 3  # the seeds hold such graphs: the test sees the case


@pytest.mark.parametrize("seed", [0, 3])
def test_the_later_rounds_problems_are_made_before_they_are_asked_for(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Every later round at a scale ``later_scales`` names is handed the
    problem made for it (in steps, while the latency-free round's LPs run),
    and the search tries the same plans as when each round builds its own."""
    graph = random_graph(np.random.default_rng(seed), (2, 4), 12)
    rounds: list[tuple[float, bool]] = []
    refined = propagate_pass._refined

    def recording(problem, plan, scale, shrunk=None, *args, **kwargs):
        rounds.append((scale, shrunk is not None))
        return refined(problem, plan, scale, shrunk, *args, **kwargs)

    monkeypatch.setattr(propagate_pass, "_refined", recording)
    ahead, _ = _search(graph)
    assert len(rounds) > 1 and all(ready for _, ready in rounds)
    rounds.clear()
    monkeypatch.setattr(propagate_pass, "later_scales", lambda share: [])
    alone, _ = _search(graph)
    assert [ready for _, ready in rounds] == [True] + [False] * (len(rounds) - 1)
    assert alone == ahead
    # A prediction no round takes up (a round that found a cheaper plan
    # moves the scale): the rounds build their own, and plan the same.
    rounds.clear()
    monkeypatch.setattr(propagate_pass, "later_scales", lambda share: [0.3])
    mispredicted, _ = _search(graph)
    assert [ready for _, ready in rounds] == [True] + [False] * (len(rounds) - 1)
    assert mispredicted == ahead
