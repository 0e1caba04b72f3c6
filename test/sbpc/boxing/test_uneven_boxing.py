"""The boxing proof on uneven sizes: every plan between every pair of layouts,
run on numpy pieces of balanced (unequal) splits, gives back the value.

Sizes cover pieces differing by one (7 over 4), by more (10 on [2, 4]: 2 and
1 after the hierarchical re-cut), fewer elements than devices (3 over 4 or
8: empty pieces) and size 1.  Each step's legality must also match the even
case's (the same step on an evenly divisible tensor is planned the same way).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sbpc.algebra.layout import is_even
from sbpc.algebra.pieces import assemble, distribute
from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.planner import plan, single_step
from sbpc.simulator.collectives import apply_step

CASES = [
    ((3,), (7,)),
    ((3,), (2, 5)),
    ((4,), (7,)),
    ((4,), (3, 6)),
    ((4,), (1,)),
    ((2, 2), (7,)),
    ((2, 2), (5, 3)),
    ((2, 4), (10,)),
    ((2, 4), (3, 10)),
    ((2, 4), (1, 7)),
]


def entries(rank: int) -> list:
    return [*(S(d) for d in range(rank)), B, P, Partial("max")]


def even_twin(shape: tuple[int, ...], hierarchy: tuple[int, ...]) -> tuple[int, ...]:
    """A shape every layout on ``hierarchy`` splits evenly."""
    n = int(np.prod(hierarchy))
    return tuple(n * n for _ in shape)


@pytest.mark.parametrize(("hierarchy", "shape"), CASES, ids=str)
def test_every_plan_runs_on_unequal_pieces(hierarchy, shape):
    rng = np.random.default_rng(len(shape) * 100 + sum(shape))
    tensor = TensorType(shape, "f64")
    value = rng.standard_normal(shape)
    layouts = list(itertools.product(entries(len(shape)), repeat=len(hierarchy)))
    assert any(not is_even(shape, nd, hierarchy) for nd in layouts)
    twin = TensorType(even_twin(shape, hierarchy), "f64")
    for src, dst in itertools.product(layouts, layouts):
        pieces = distribute(value, src, hierarchy, rng)
        steps = plan(src, dst, tensor, hierarchy).steps
        for step in steps:
            same = single_step(step.src, step.dst, step.dims, twin, hierarchy)
            assert same is not None and same.kind == step.kind, (src, dst, step)
            pieces = apply_step(pieces, step)
            got = assemble(pieces, step.dst, hierarchy)
            assert got.shape == value.shape, (src, dst, step)
            np.testing.assert_allclose(got, value, rtol=1e-9, atol=1e-9)


def test_pieces_are_balanced_and_hierarchical():
    pieces = distribute(np.arange(10), (S(0), S(0)), (2, 4))
    sizes = [pieces[(i, j)].size for i in range(2) for j in range(4)]
    assert sizes == [2, 1, 1, 1, 2, 1, 1, 1]
    assert pieces[(1, 0)].tolist() == [5, 6]


def test_cost_counts_the_largest_piece():
    """6 over 4 moves pieces of 2 (padded to 8 rows), not 6/4."""
    step = plan((S(0),), (B,), TensorType((6, 1), "f32"), (4,)).steps[0]
    assert step.bytes == pytest.approx(3 / 4 * 8 * 4)
