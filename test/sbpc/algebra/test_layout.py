"""``sbpc.algebra.layout``: which splits are even (remembered per shape,
layout and mesh) agrees with the check that says why not."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sbpc.algebra.layout import UnevenSplitError, check_even, is_even
from sbpc.algebra.sbp import B, P, S

_SBP = st.one_of(st.just(B), st.just(P), st.integers(0, 3).map(S))


@given(
    st.lists(st.integers(1, 12), min_size=1, max_size=3),
    st.lists(st.integers(1, 4), min_size=1, max_size=3).flatmap(
        lambda mesh: st.tuples(
            st.just(mesh), st.lists(_SBP, min_size=len(mesh), max_size=len(mesh))
        )
    ),
)
def test_is_even_is_check_even_passing(shape: list[int], mesh_layout) -> None:
    """Lists or tuples, asked twice: the answer is the check's, every time
    (an axis the tensor lacks is not even)."""
    mesh, layout = mesh_layout
    try:
        check_even(tuple(shape), tuple(layout), mesh)
        want = True
    except UnevenSplitError:
        want = False
    for _ in range(2):
        assert is_even(shape, layout, mesh) == want
        assert is_even(tuple(shape), tuple(layout), tuple(mesh)) == want


def test_is_even_examples() -> None:
    assert is_even((8, 6), (S(0), S(1)), (2, 3))
    assert not is_even((8, 6), (S(1), S(1)), (2, 2))  # 6 into 4 pieces
    assert not is_even((8,), (S(1), B), (2, 2))  # no dimension 1
    assert is_even((8, 6), (B, P), [2, 2])
