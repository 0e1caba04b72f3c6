"""Edge prices one pair at a time (``time``) and by table (``table``) agree,
for plain, weighted (inside a loop) and tied (loop-carried) edges; ``kept``
finds the pairs that change nothing."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sbpc.algebra.sbp import B, P, S
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.edge_costs import EdgeCosts, kept
from sbpc.propagation.graph import EdgeTensor

LAYOUTS = [(S(0),), (S(1),), (B,), (P,)]
T = TensorType((8, 8), "f32")


def _price(src, dst, tensor) -> float:
    """A made-up cost model: distinct, finite, and 0 only for no change (or a
    result that takes any layout, ``dst`` None)."""
    return (
        0.0
        if dst is None or src == dst
        else 1.0 + LAYOUTS.index(src) + 10 * LAYOUTS.index(dst)
    )


def _table(srcs, dsts, tensor) -> np.ndarray:
    return np.array([[_price(s, d, tensor) for d in dsts] for s in srcs])


@pytest.mark.parametrize(
    "tensor",
    [
        T,
        EdgeTensor(T.shape, T.element, weight=12.0),
        EdgeTensor(T.shape, T.element, tied=True),
    ],
    ids=["plain", "weighted", "tied"],
)
@pytest.mark.parametrize("with_table", [False, True])
def test_table_equals_pairwise_prices(tensor: TensorType, with_table: bool) -> None:
    costs = EdgeCosts(_price, edge_table=_table if with_table else None)
    dsts = [*LAYOUTS, None]
    table = costs.table(LAYOUTS, dsts, tensor)
    for (i, s), (j, d) in itertools.product(enumerate(LAYOUTS), enumerate(dsts)):
        assert table[i, j] == costs.time(s, d, tensor), (s, d)
    if isinstance(tensor, EdgeTensor) and tensor.tied:
        assert np.isinf(table[0, 1]) and table[0, 0] == 0 and table[0, -1] == 0
    elif isinstance(tensor, EdgeTensor):
        assert table[0, 1] == 12.0 * _price(LAYOUTS[0], LAYOUTS[1], T)


# Layouts of a 2-d mesh, each built anew (equal layouts, distinct objects).
_ND = st.tuples(*[st.sampled_from(["S0", "S1", "B", "P"])] * 2).map(
    lambda names: tuple({"S0": S(0), "S1": S(1), "B": B, "P": P}[n] for n in names)
)


@given(
    st.lists(_ND, max_size=6),
    st.lists(st.one_of(st.none(), _ND), max_size=6),
)
def test_kept_is_every_pair_that_changes_nothing(srcs, dsts) -> None:
    """Equal layouts (repeated, or met on both sides) and free results."""
    got = kept(srcs, dsts)
    assert got.shape == (len(srcs), len(dsts)) and got.dtype == bool
    for (i, s), (j, d) in itertools.product(enumerate(srcs), enumerate(dsts)):
        assert got[i, j] == (d is None or s == d), (s, d)
