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
    ],
)
def test_bad_values_raise_sbpc_error_naming_the_parameter(kwargs, names) -> None:
    with pytest.raises(sj.SbpcError, match=names):
        sj.distribute(lambda x: x + 1, A, **kwargs)


def test_too_many_devices_fails_at_distribute_not_at_the_first_call() -> None:
    n = jax.device_count()
    with pytest.raises(sj.SbpcError, match=f"JAX has {n}"):
        sj.distribute(lambda x: x + 1, np.ones((8 * (n + 1),), np.float32), mesh=n + 1)


def test_an_unsupported_op_is_named_on_the_first_line() -> None:
    """Item 8: the first line is the located error naming the op."""
    with pytest.raises(sj.SbpcError) as info:
        sj.distribute(lambda x: jnp.fft.fft(x).real, A, mesh=2)
    first = str(info.value).splitlines()[0]
    assert "stablehlo.real" in first and ".mlir:" in first and "error:" in first


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
