"""The reparametrisation bound: any messages keep every labelling's energy
(covered factors plus residual), and the bound never exceeds the optimum."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest

from sbpc.propagation.solver.bound import residual, restrict, window
from sbpc.propagation.solver.exact import solve_exact
from sbpc.propagation.solver.pairwise import Factor, PairwiseProblem, condition


def small_problem(rng: np.random.Generator) -> PairwiseProblem:
    """Five nodes of three labels, a cycle plus a chord, grouped tables."""
    problem = PairwiseProblem([rng.uniform(0, 2, size=3) for _ in range(5)])
    for a, b in [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4), (1, 3)]:
        ga = rng.integers(0, 2, size=3)
        ga[:2] = [0, 1]
        problem.add_factor(Factor(a, b, ga, np.arange(3), rng.uniform(0, 3, (2, 3))))
    return problem


def random_messages(rng: np.random.Generator, problem: PairwiseProblem) -> dict:
    return {
        key: (rng.normal(size=f.table.shape[0]), rng.normal(size=f.table.shape[1]))
        for key, f in problem.factors.items()
        if rng.uniform() < 0.7
    }


def brute_force(problem: PairwiseProblem) -> float:
    return min(
        problem.energy(list(x))
        for x in itertools.product(*(range(k) for k in problem.sizes))
    )


@pytest.mark.parametrize("seed", range(6))
def test_messages_keep_the_energy_and_bound_the_optimum(seed: int) -> None:
    rng = np.random.default_rng(seed)
    problem = small_problem(rng)
    messages = random_messages(rng, problem)
    rest, covered = residual(problem, messages)
    assert len(rest.factors) <= len(problem.factors) - len(messages) + 1
    for x in itertools.product(range(3), repeat=5):
        reparametrised = sum(
            problem.factors[key].table[
                problem.factors[key].ga[x[key[0]]], problem.factors[key].gb[x[key[1]]]
            ]
            - ya[problem.factors[key].ga[x[key[0]]]]
            - yb[problem.factors[key].gb[x[key[1]]]]
            for key, (ya, yb) in messages.items()
        )
        assert problem.energy(list(x)) == pytest.approx(
            reparametrised + rest.energy(list(x))
        )
    solved = solve_exact(copy.deepcopy(rest), 1e-9, None)
    assert solved is not None
    assert covered + solved[1] <= brute_force(problem) + 1e-9


def test_condition_fixes_labels_and_keeps_the_energy() -> None:
    rng = np.random.default_rng(7)
    problem = small_problem(rng)
    free = condition(problem, {1: 2, 3: 0})
    assert not free.alive[1] and not free.alive[3] and free.alive[0]
    for x in itertools.product(range(3), repeat=5):
        if x[1] == 2 and x[3] == 0:
            assert free.energy(list(x)) == pytest.approx(problem.energy(list(x)))


def test_restrict_and_window_keep_factors_among_the_nodes() -> None:
    problem = small_problem(np.random.default_rng(1))
    assert window(problem, [0], 1) == [0, 1, 4]
    assert window(problem, [0], 2) == [0, 1, 2, 3, 4]
    sub = restrict(problem, [0, 1, 4])
    assert set(sub.factors) == {(0, 1), (0, 4)}
    assert sub.factors[(0, 1)] is problem.factors[(0, 1)]
    assert sub.alive == [True, True, False, False, True]
