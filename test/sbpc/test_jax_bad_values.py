"""``sbpc.jax.distribute`` rejects every bad value with ``SbpcError`` naming
the parameter (issue 21, item 6), before JAX or the solver sees it."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import sbpc.jax as sj

A = np.ones((8, 8), np.float32)


@pytest.mark.parametrize(
    ("kwargs", "names"),
    [
        ({"mesh": 8, "in_layouts": 123}, "in_layouts"),
        ({"mesh": 8, "in_layouts": (1.5,)}, "in_layouts"),
        ({"mesh": 8, "out_layouts": 7}, "out_layouts"),
        ({"mesh": 8, "memory_budget": "abc"}, "memory_budget"),
        ({"mesh": 8, "memory_budget": -5}, "memory_budget"),
        ({"mesh": 8, "memory_budget": 0}, "memory_budget"),
        ({"mesh": 8, "memory_budget": float("nan")}, "memory_budget"),
        ({"mesh": 8, "time_limit": -1}, "time_limit"),
        ({"mesh": 8, "time_limit": True}, "time_limit"),
        ({"mesh": 8, "time_limit": "soon"}, "time_limit"),
        ({"mesh": 2.5}, "mesh"),
        ({"mesh": (2, 2.5)}, "mesh"),
        ({"mesh": True}, "mesh"),
        ({"mesh": []}, "mesh"),
        ({"mesh": 10**12}, "mesh"),
        ({"mesh": "2x"}, "mesh"),
        ({"mesh": jax.device_count() + 1}, "mesh"),
        ({"mesh": 8, "strategy": "nope"}, "strategy"),
        ({"mesh": 8, "strategy": 3}, "strategy"),
        ({"mesh": 8, "cost_model": "bw=abc"}, "cost_model"),
        ({"mesh": 8, "cost_model": 5}, "cost_model"),
        ({"mesh": 8, "combine_bytes": "x"}, "combine_bytes"),
        # Issue 36, row G: every parameter's type (these were raw TypeErrors,
        # or accepted and misread).
        ({"mesh": 8, "donate_argnums": 1.5}, "donate_argnums"),
        ({"mesh": 8, "donate_argnums": object()}, "donate_argnums"),
        ({"mesh": 8, "donate_argnums": "0"}, "donate_argnums"),
        ({"mesh": 8, "donate_argnums": True}, "donate_argnums"),
        ({"mesh": 8, "donate_argnums": {0: 1}}, "donate_argnums"),
        ({"mesh": 8, "donate_argnums": iter([0])}, "donate_argnums"),
        ({"mesh": 8, "donate_argnums": [0.5]}, "donate_argnums"),
        ({"mesh": 8, "donate_argnums": (1,)}, "donate_argnums"),
        ({"mesh": 8, "combine_bytes": True}, "combine_bytes"),
        ({"mesh": 8, "combine_bytes": 1.5}, "combine_bytes"),
        ({"mesh": 8, "combine_bytes": None}, "combine_bytes"),
        ({"mesh": 8, "combine_bytes": -1}, "combine_bytes"),
        ({"mesh": 8, "quiet": None}, "quiet"),
        ({"mesh": 8, "quiet": "yes"}, "quiet"),
        ({"mesh": 8, "quiet": 1}, "quiet"),
        ({"mesh": b"8"}, "mesh"),
        ({"mesh": {"x": "2"}}, "mesh"),  # a dict of sizes is a mesh, a str no size
        ({"mesh": {"x": 0}}, "mesh"),
        ({"mesh": object()}, "mesh"),
        ({"mesh": (8, -1)}, "mesh"),
        ({"mesh": 8, "strategy": None}, "strategy"),
        ({"mesh": 8, "strategy": b"greedy"}, "strategy"),
        ({"mesh": 8, "cost_model": None}, "cost_model"),
        ({"mesh": 8, "cost_model": b"bw=1e9"}, "cost_model"),
        ({"mesh": 8, "cost_model": "lat=1e308"}, "cost_model"),
        ({"mesh": 8, "memory_budget": [1]}, "memory_budget"),
        ({"mesh": 8, "memory_budget": 1j}, "memory_budget"),
        ({"mesh": 8, "memory_budget": np.float32(-1)}, "memory_budget"),
        ({"mesh": 8, "time_limit": [1]}, "time_limit"),
        ({"mesh": 8, "time_limit": float("nan")}, "time_limit"),
        ({"mesh": 8, "in_layouts": b"[S(0)]"}, "in_layouts"),
        ({"mesh": 8, "in_layouts": object()}, "in_layouts"),
        ({"mesh": 8, "out_layouts": b"[B]"}, "out_layouts"),
    ],
)
def test_bad_values_raise_sbpc_error_naming_the_parameter(kwargs, names) -> None:
    with pytest.raises(sj.SbpcError, match=names):
        sj.distribute(lambda x: x + 1, A, **kwargs)


@pytest.mark.parametrize("fn", [None, 3, "f"])
def test_a_function_that_is_not_one_is_named(fn) -> None:
    with pytest.raises(sj.SbpcError, match=r"^fn: expected a function"):
        sj.distribute(fn, A, mesh=8)


def test_numpy_numbers_and_jax_spellings_are_accepted() -> None:
    """What ``jax.jit`` takes: numpy integers, ``donate_argnums=None``."""
    step = sj.distribute(
        lambda x: x * 2,
        A,
        mesh=np.int64(8),
        combine_bytes=np.int32(0),
        memory_budget=np.float32(1e9),
        donate_argnums=None,
        quiet=np.bool_(True),
    )
    np.testing.assert_allclose(step(A), A * 2)
    assert step.donate_argnums == ()
    donating = sj.distribute(lambda x: x * 2, A, mesh=8, donate_argnums=[np.int64(0)])
    assert donating.donate_argnums == (0,)


def test_too_many_devices_fails_at_distribute_not_at_the_first_call() -> None:
    n = jax.device_count()
    with pytest.raises(sj.SbpcError, match=f"JAX has {n}"):
        sj.distribute(lambda x: x + 1, np.ones((8 * (n + 1),), np.float32), mesh=n + 1)


def test_an_unsupported_op_is_named_on_the_first_line() -> None:
    """Item 8: the first line is the located error naming the op."""
    with pytest.raises(sj.SbpcError) as info:
        sj.distribute(jnp.linalg.cholesky, A, mesh=2)
    first = str(info.value).splitlines()[0]
    assert (
        "stablehlo." in first
        and "not" in first
        and ".mlir:" in first
        and "error:" in first
    )


def test_good_values_still_work() -> None:
    step = sj.distribute(
        lambda x: x * 2,
        A,
        mesh=(2, 4),
        in_layouts="[S(0), B]",
        memory_budget=1e9,
        time_limit=30,
        strategy="optimal",
    )
    np.testing.assert_allclose(step(A), A * 2)


@pytest.mark.parametrize("strategy", ["greedy", "bfs"])
def test_a_budget_greedy_and_bfs_cannot_meet_is_an_error_not_ignored(strategy) -> None:
    """Only optimal plans within a memory budget; greedy and bfs plan
    without it and say so when their plan does not fit it."""
    x = np.ones((64, 64), np.float32)
    fn = lambda x, w: jnp.tanh(x @ w) @ w  # noqa: E731
    with pytest.raises(
        sj.SbpcError,
        match=f"the {strategy} plan needs .* more than the memory_budget of 100 B",
    ):
        sj.distribute(fn, x, x, mesh=8, strategy=strategy, memory_budget=100)
    fits = sj.distribute(fn, x, x, mesh=8, strategy=strategy, memory_budget=1e9)
    np.testing.assert_allclose(fits(x, x), fn(x, x), rtol=1e-5)
