"""Property: ``sbpc.jax.distribute`` given any values for its parameters
either returns a program computing what ``jax.jit`` computes, or raises
``SbpcError``; never another exception (issue 21).  Hypothesis, derandomized
so CI replays the same examples."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import sbpc.jax as sj

X = np.arange(64, dtype=np.float32).reshape(8, 8)

SBP_TEXT = st.text(alphabet="SBP(0123),[] ", max_size=12)
# Good values three times as likely as each bad kind, so both ends are reached.
NUMBER = st.one_of(
    st.none(),
    st.none(),
    st.sampled_from([1e9, 10**12, 30.0, 5]),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    st.booleans(),
)
MESH = st.one_of(
    st.sampled_from([1, 2, 4, 8, (2, 4), (4, 2), "2x4", "8", (2, 2, 2)]),
    st.sampled_from([2, 4, 8, (2, 4)]),
    st.integers(-2, 10**13),
    st.floats(-2, 10),
    st.text(alphabet="0123456789x ", max_size=5),
    st.lists(st.one_of(st.integers(-1, 9), st.floats(0, 3)), max_size=3),
    st.booleans(),
    st.none(),
)
LAYOUTS = st.one_of(
    st.none(),
    st.sampled_from(["S(0)", "S(1)", "B", "[S(0), B]", "[B, S(1)]", "P"]),
    st.none(),
    SBP_TEXT,
    st.integers(),
    st.tuples(SBP_TEXT),
    st.lists(st.none(), max_size=2),
)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    mesh=MESH,
    in_layouts=LAYOUTS,
    out_layouts=LAYOUTS,
    strategy=st.one_of(
        st.sampled_from(["greedy", "bfs", "optimal"]),
        st.sampled_from(["greedy", "bfs", "optimal"]),
        st.text(max_size=4),
    ),
    memory_budget=NUMBER,
    time_limit=NUMBER,
)
def test_distribute_answers_or_raises_sbpc_error(**options) -> None:
    """Any values of ``distribute``'s options, well-formed or not."""
    try:
        step = sj.distribute(lambda x: x * 2 + 1, X, **options)
    except sj.SbpcError as e:
        event(f"SbpcError: {str(e).split(':')[0][:30]}")
        return
    event("distributed")
    np.testing.assert_array_equal(np.asarray(step(X)), X * 2 + 1)
