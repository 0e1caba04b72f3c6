"""A memory budget as a price (``memory_price``): the optimal strategy on a
graph above ``price_above`` nodes solves the unbudgeted problem with the
hot rows' bytes priced, and keeps the cheapest plan whose exact peak fits.

Measured on these graphs (docs/memory.md): within 13% of the budgeted
program's optimum at 10-40x less time; here only what must hold: the plan
fits, it costs at least the unbudgeted one, and a budget it cannot reach
names one that fits."""

from __future__ import annotations

import re

import numpy as np
import pytest

from sbpc.propagation.driver import propagate
from sbpc.propagation.edge_costs import EdgeCosts
from sbpc.propagation.graph import PropagationError
from sbpc.propagation.memory import plan_memory
from sbpc.propagation.memory_rows import MemoryRows
from sbpc.propagation.optimal import Optimal
from sbpc.propagation.solver.exact import solve_exact
from sbpc.propagation.solver.memory_price import (
    BoxTables,
    Priced,
    priced_problem,
    relink,
    search,
    within_budget,
)
from sbpc.propagation.solver.pairwise import Factor, PairwiseProblem
from sbpc.testing.synthetic_graphs import RingCost, transformer_graph

PRICED = Optimal(price_above=0)


@pytest.fixture(scope="module")
def setup():
    g = transformer_graph(2, (2, 4), dense_skips=1)
    cost = RingCost((2, 4)).time
    return g, cost, propagate(g, cost, "optimal")


@pytest.mark.parametrize("share", [0.7, 0.3])
def test_a_priced_plan_fits_its_budget(setup, share: float) -> None:
    g, cost, free = setup
    budget = share * free.peak_memory
    plan = propagate(g, cost, PRICED, memory_budget=budget)
    assert plan.peak_memory <= budget
    assert plan_memory(g, plan.options).peak == plan.peak_memory
    assert plan.total_time >= free.total_time * (1 - 1e-9)
    assert plan.stats["status"] == "a memory price (not proven optimal)"
    assert plan.stats["memory_price"] > 0


def test_the_unbudgeted_plan_is_kept_when_it_fits(setup) -> None:
    g, cost, free = setup
    plan = propagate(g, cost, PRICED, memory_budget=free.peak_memory)
    assert plan.options == free.options
    assert plan.stats["proven"] is True


def test_an_unreachable_budget_names_one_that_fits(setup) -> None:
    g, cost, free = setup
    floor = MemoryRows.of(g).floor()
    with pytest.raises(PropagationError) as err:
        propagate(g, cost, PRICED, memory_budget=floor * 1.0001)
    found = re.search(r"a feasible budget is .* \((\d+) bytes\)", str(err.value))
    assert found, str(err.value)
    named = float(found.group(1))
    assert floor < named < free.peak_memory
    assert propagate(g, cost, PRICED, memory_budget=named).peak_memory <= named


def test_the_price_adds_lam_times_the_mean_hot_row(setup) -> None:
    """On the nodes' own bytes (no boxed copy differs between the two
    labellings compared) the priced problem's cost is the unpriced one plus
    ``lam`` times the mean of the hot rows."""
    g, cost, free = setup
    memory = MemoryRows.of(g)
    costs = EdgeCosts(cost)
    keep = [r for r, boxed in enumerate(memory.row_boxes) if not boxed][:3]
    assert keep  # rows before any copy is made
    lam = 1e-9
    base = PairwiseProblem.from_graph(g, costs)
    priced = priced_problem(
        lambda: PairwiseProblem.from_graph(g, costs), memory, keep, lam
    )
    labels = free.options
    rows = memory.values(dict(enumerate(labels)))
    want = base.energy(labels) + lam * np.mean([rows[r] for r in keep])
    assert priced.energy(labels) == pytest.approx(want, rel=1e-9)


def _counted_solver():
    """An exact solver for the search, and the list it appends to per solve."""
    solved: list[int] = []

    def solver(problem: PairwiseProblem):
        solved.append(1)
        return solve_exact(problem, 1e-9, None)

    return solver, solved


def test_the_unbudgeted_plan_given_is_not_solved_again(setup) -> None:
    """The device's memory as the budget: the plan without it came first,
    and the search starts from it instead of solving it again."""
    g, cost, free = setup
    memory, costs = MemoryRows.of(g), EdgeCosts(cost)
    budget = 0.7 * free.peak_memory
    solver, solved = _counted_solver()
    alone = within_budget(g, costs, memory, budget, {}, solver)
    solves = len(solved)
    solved.clear()
    started = within_budget(g, costs, memory, budget, {}, solver, free.options)
    assert len(solved) == solves - 1
    assert plan_memory(g, started).peak <= budget
    assert costs_of(g, costs, started) == pytest.approx(costs_of(g, costs, alone))


def test_no_price_is_tried_after_the_deadline(setup) -> None:
    """A time limit (the report's fewest-bytes reference solve has one)
    stops the search before its next price; without a plan that fits by
    then, the budget error names the least peak met."""
    g, cost, free = setup
    memory, costs = MemoryRows.of(g), EdgeCosts(cost)
    budget = 0.7 * free.peak_memory
    solver, solved = _counted_solver()
    stats: dict = {}
    with pytest.raises(PropagationError, match="a feasible budget is"):
        within_budget(g, costs, memory, budget, stats, solver, free.options, 0.0)
    assert solved == [] and stats["memory_price_stopped"] == "time limit"
    stats.clear()
    assert (
        plan_memory(
            g, within_budget(g, costs, memory, budget, stats, solver, free.options)
        ).peak
        <= budget
    )
    assert solved and "memory_price_stopped" not in stats
    # the optimal strategy's time limit reaches the search
    with pytest.raises(PropagationError, match="a feasible budget is"):
        propagate(g, cost, PRICED, memory_budget=budget, time_limit=1e-9)


def costs_of(g, costs: EdgeCosts, labels: list[int]) -> float:
    return PairwiseProblem.from_graph(g, costs).energy(labels)


@pytest.mark.parametrize("slope, bisections", [(1e-5, 0), (0.1, 6)])
def test_bisection_stops_when_over_and_fitting_cost_alike(
    slope: float, bisections: int
) -> None:
    """Between a plan over the budget and one that fits, a price gives a
    plan costing between the two: when they differ by at most
    ``CLOSE_ENOUGH``, no bisection is worth a solve."""

    def solve(lam: float, hot) -> Priced:
        peak = 10.0 / lam  # fits the budget of 10 from lam = 1
        return Priced(lam, [], 1.0 + slope * lam, peak, [peak])

    first = Priced(0.0, [], 1.0, 20.0, [20.0])
    found = search(solve, first, {0}, lambda tried: {0}, 10.0)
    raises = 4  # lam 0.05, 0.2, 0.8, then 3.2 fits
    assert len(found.tries) == 1 + raises + bisections
    assert found.best is not None and found.best.peak <= 10.0


def test_the_stretches_share_their_masks_read_only(setup) -> None:
    """The stretches of a model's copies combine a few masks millions of
    times (Llama-3-70B: 5 million pairs): each union is made once and
    shared, read-only, so that no box can change another's."""
    fresh = transformer_graph(2, (2, 4), dense_skips=1)  # no per-use gathers
    pairs = [pair for box in MemoryRows.of(fresh).boxes for pair in box.pairs]
    made = {id(pair[4]): pair[4] for pair in pairs}
    assert not any(mask.flags.writeable for mask in made.values())
    assert len(made) <= len(pairs) / 4
    # the fixture's graph, arguments gathered per use where an earlier
    # test's budget asked for it: those boxes' masks are read-only too
    g, _, _ = setup
    boxes = MemoryRows.of(g).boxes
    assert not any(pair[4].flags.writeable for box in boxes for pair in box.pairs)


def test_box_tables_made_once_price_as_each_box_does(setup) -> None:
    """``BoxTables`` (made once per search) gives the tables summed box by
    box, each box's price split among its readers."""
    g, _, _ = setup
    memory = MemoryRows.of(g)
    own = [len(b.pairs) == 1 and b.pairs[0][0] == b.pairs[0][2] for b in memory.boxes]
    assert any(own) and not all(own)  # one read's stretches, and shared ones
    hot = list(range(0, len(memory.half_steps), 2))
    weight = 1e-9
    want: dict[tuple[int, int], np.ndarray] = {}
    for i, count in memory.box_spans(hot).items():
        box = memory.boxes[i]
        readers: dict[int, np.ndarray] = {}
        no_copy = np.zeros(len(box.pairs[0][4]), dtype=bool)
        for a, wants_a, b, wants_b, made in box.pairs:
            readers[a] = readers.get(a, wants_a) | wants_a
            readers[b] = readers.get(b, wants_b) | wants_b
            no_copy |= made
        price = weight * count * box.nbytes / len(readers)
        for reader, wants in readers.items():
            if reader != box.producer:
                table = np.outer(price * ~no_copy, wants)
                key = (box.producer, reader)
                want[key] = want[key] + table if key in want else table
    got = BoxTables.of(memory).tables(memory.box_counts(hot), weight)
    assert got.keys() == want.keys()
    for key, table in want.items():
        np.testing.assert_allclose(got[key], table, rtol=1e-12, atol=0)


def _chain_of_pairs() -> tuple[PairwiseProblem, dict[int, float]]:
    """Four nodes of two labels in two joined pairs (0-1, 2-3): label 1 saves
    time and costs memory, each pair must agree, and a node's bytes at
    label 1 are its weight."""
    problem = PairwiseProblem([np.array([1.0, 0.0])] * 4)
    agree = np.array([[0.0, 10.0], [10.0, 0.0]])
    for a, b in [(0, 1), (2, 3)]:
        problem.add_factor(Factor(a, b, np.arange(2), np.arange(2), agree))
    return problem, {0: 1.0, 1: 1.0, 2: 3.0, 3: 3.0}


def test_relink_moves_whole_groups_toward_a_cheaper_plan_while_it_fits() -> None:
    """Between the price's last plan over the budget (every node at 1: peak
    8) and its first that fits (every node at 0), the pair of small nodes
    alone at 1 fits (peak 2) and costs less: a plan no price gives here,
    which ``relink`` finds by moving the over-budget plan's groups of
    differing neighbours; the heavy pair's move would not fit."""
    problem, weight = _chain_of_pairs()

    def priced(lam: float, labels: list[int]) -> Priced:
        peak = sum(weight[v] for v, label in enumerate(labels) if label == 1)
        return Priced(lam, labels, problem.energy(labels), peak, [peak])

    fits, over = priced(1.0, [0, 0, 0, 0]), priced(0.5, [1, 1, 1, 1])
    kept, moves = relink(fits, [over, fits], problem, priced, budget=5.0)
    assert kept.labels == [1, 1, 0, 0] and moves == 1
    assert kept.cost == fits.cost - 2.0 and kept.peak == 2.0
    # a work bound of one plan's nodes tries the first group only
    kept, _ = relink(fits, [over, fits], problem, priced, budget=5.0, work=4)
    assert kept.labels == [1, 1, 0, 0]
    # nothing over the budget cheaper than the plan: nothing moves
    assert relink(fits, [fits], problem, priced, budget=5.0) == (fits, 0)


def test_a_priced_plan_reports_its_moves_and_its_gap_to_the_unbudgeted_bound(
    setup,
) -> None:
    """No plan costs less than the unbudgeted optimum, so a priced plan's
    gap to it bounds its gap to the budget's optimum."""
    g, cost, free = setup
    plan = propagate(g, cost, PRICED, memory_budget=0.5 * free.peak_memory)
    assert plan.peak_memory <= 0.5 * free.peak_memory
    assert plan.stats["memory_price_relinked"] >= 0
    objective, gap = plan.stats["objective"], plan.stats["gap"]
    assert 0 < gap < 1 and plan.stats["proven"] is False
    assert objective * (1 - gap) == pytest.approx(free.stats["objective"], rel=1e-6)


def test_under_the_device_memory_the_gap_is_to_the_first_plans_bound(setup) -> None:
    """With the device's memory as the budget (``memory_capacity``) the plan
    made without it comes first; its proven bound reaches the priced search
    (which does not solve it again) as the bound of the priced plan's gap."""
    g, cost, free = setup
    plan = propagate(g, cost, PRICED, memory_capacity=0.5 * free.peak_memory)
    assert plan.peak_memory <= 0.5 * free.peak_memory
    objective, gap = plan.stats["objective"], plan.stats["gap"]
    assert objective * (1 - gap) == pytest.approx(free.stats["objective"], rel=1e-6)
