"""The shrink through a content memo gives exactly what it gives without one:
same records, same surviving problem, bit for bit; and on repeated layers
the memo is actually hit."""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.propagation.solver.content_memo import ContentMemo, content
from sbpc.propagation.solver.pairwise import PairwiseProblem
from sbpc.propagation.solver.shrink import Record, prune_dominated, shrink
from sbpc.testing.repeated_problems import repeated_chain

from .test_shrink import random_problem


def _reduce(problem: PairwiseProblem, memo: ContentMemo | None) -> list[Record]:
    records = shrink(problem, memo=memo)
    while pruned := prune_dominated(problem, memo=memo):
        records += pruned + shrink(problem, start=problem.touched, memo=memo)
    return records


def _same_state(a: PairwiseProblem, b: PairwiseProblem) -> None:
    assert a.alive == b.alive and a.sizes == b.sizes
    assert a.constant == b.constant
    for u, w in zip(a.unary, b.unary, strict=True):
        np.testing.assert_array_equal(u, w)
    assert a.factors.keys() == b.factors.keys()
    for key, f in a.factors.items():
        g = b.factors[key]
        assert content(f.ga, f.gb, f.table) == content(g.ga, g.gb, g.table)


def _same_records(a: list[Record], b: list[Record]) -> None:
    assert [type(r) for r in a] == [type(r) for r in b]
    for r, s in zip(a, b, strict=True):
        for name, value in r._asdict().items():
            np.testing.assert_array_equal(value, getattr(s, name))


def _copy(problem: PairwiseProblem) -> PairwiseProblem:
    twin = PairwiseProblem(problem.unary)
    twin.constant = problem.constant
    for f in problem.factors.values():
        twin.add_factor(f)
    return twin


@pytest.mark.parametrize("seed", range(4))
def test_memo_changes_nothing_on_repeated_layers(seed: int) -> None:
    problem, _ = repeated_chain(np.random.default_rng(seed), 5, labels=3)
    plain, memoised, memo = _copy(problem), _copy(problem), ContentMemo()
    _same_records(_reduce(plain, None), _reduce(memoised, memo))
    _same_state(plain, memoised)
    assert memo.hits > 0  # the layers repeat: some step was reused


def test_memo_changes_nothing_on_random_problems() -> None:
    rng = np.random.default_rng(11)
    for _ in range(20):
        problem = random_problem(rng, int(rng.integers(3, 10)), 0.5)
        plain, memoised = _copy(problem), _copy(problem)
        _same_records(_reduce(plain, None), _reduce(memoised, ContentMemo()))
        _same_state(plain, memoised)


def test_content_tells_shape_and_dtype_apart() -> None:
    x = np.zeros(4)
    assert content(x) != content(x.reshape(2, 2))
    assert content(x) != content(np.zeros(4, dtype=np.float32))
    assert content(x) == content(np.zeros(4))
