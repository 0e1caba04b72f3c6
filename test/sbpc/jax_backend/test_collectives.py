"""Layouts as PartitionSpecs and the checks on one boxing step (source text only)."""

from __future__ import annotations

import pytest

from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.jax_backend.collectives import (
    CollectiveError,
    axes_expr,
    check_step,
    identity_expr,
    partition_spec,
    step_expr,
)

PMAX = Partial("max")


def test_partition_spec_names_split_axes_in_hierarchy_order() -> None:
    assert partition_spec((S(0), S(0)), 2) == 'P(("d0", "d1"), None)'
    assert partition_spec((S(1), S(0)), 2) == 'P("d1", "d0")'
    assert partition_spec((S(0), B, S(0)), 1) == 'P(("d0", "d2"))'
    assert (
        partition_spec((P, B), 2) == "P(None, None)"
    )  # partial: the value, replicated
    assert partition_spec((B,), 0) == "P()"


def test_stacked_partial_spec_has_one_leading_axis_per_partial_dim() -> None:
    assert (
        partition_spec((P, S(0), PMAX), 2, stacked=True) == 'P("d0", "d2", "d1", None)'
    )


def test_axes_and_identities() -> None:
    assert axes_expr([1]) == '"d1"' and axes_expr([0, 2]) == '("d0", "d2")'
    assert identity_expr("sum", "f32") == "0"
    assert identity_expr("max", "f32") == "-jnp.inf"
    assert identity_expr("min", "i32") == "jnp.iinfo(jnp.int32).max"
    assert identity_expr("max", "i1") == "False"


@pytest.mark.parametrize(
    ("kind", "dims", "src", "dst", "message"),
    [
        ("all_gather", [0], (S(0), S(0)), (B, S(0)), "not contiguous"),
        ("local_slice", [0], (B, S(0)), (S(0), S(0)), "not contiguous"),
        ("all_reduce", [0], (PMAX, P), (B, P), "reduce dim 1 first"),
        ("all_gather", [0], (P, B), (B, B), "not a step of all_gather"),
        ("all_to_all", [0], (S(0),), (S(0),), "must change the split axis"),
        ("all_reduce", [1, 0], (P, P), (B, B), "increasing order"),
        ("all_reduce", [0], (P, P), (B, B), "not in 'dims' but changes"),
        ("all_gather", [0, 1], (S(0), S(1)), (B, B), "one change"),
        ("teleport", [0], (B,), (B,), "unknown collective kind"),
    ],
)
def test_steps_one_collective_cannot_do(kind, dims, src, dst, message) -> None:
    with pytest.raises(CollectiveError, match=message):
        check_step(kind, dims, src, dst)


def test_step_expressions() -> None:
    def expr(kind, dims, src, dst, a=(8, 8), b=(8, 8)):
        return step_expr(kind, dims, src, dst, "x", a, b, "f32")

    assert expr("all_gather", [0, 1], (S(0), S(0)), (B, B)) == (
        'lax.all_gather(x, ("d0", "d1"), axis=0, tiled=True)'
    )
    assert expr("reduce_scatter", [1], (S(0), P), (S(0), S(1)), b=(8, 2)) == (
        'lax.psum_scatter(x, "d1", scatter_dimension=1, tiled=True)'
    )
    assert expr("reduce_scatter", [0], (PMAX,), (S(0),), b=(2, 8)) == (
        'lax.dynamic_slice_in_dim(lax.pmax(x, "d0"), lax.axis_index("d0") * 2, 2, 0)'
    )
    assert expr("all_to_all", [0], (S(0),), (S(1),)) == (
        'lax.all_to_all(x, "d0", 1, 0, tiled=True)'
    )
    assert expr("local_to_partial", [0], (B,), (P,)) == (
        'jnp.where(lax.axis_index("d0") == 0, x, 0)'
    )
    assert expr("local_to_partial", [0], (B,), (PMAX,)) == "x"
    assert expr("local_to_partial", [0], (S(1),), (PMAX,), a=(8, 2)) == (
        "lax.dynamic_update_slice_in_dim(jnp.full((8, 8), -jnp.inf, jnp.float32), "
        'x, lax.axis_index("d0") * 2, 1)'
    )


def test_boolean_reductions_go_through_int32_and_compute_or() -> None:
    """JAX's psum/psum_scatter refuse booleans; P(sum) of booleans is "or"."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.sharding import AxisType, Mesh
    from jax.sharding import PartitionSpec as PS

    scatter = step_expr("reduce_scatter", [0], (P,), (S(0),), "x", (8, 4), (2, 4), "i1")
    reduce = step_expr("all_reduce", [0], (P,), (B,), "x", (8, 4), (8, 4), "i1")
    assert (
        scatter
        == '(lax.psum_scatter(x.astype(jnp.int32), "d0", scatter_dimension=0, tiled=True) != 0)'
    )
    assert reduce == '(lax.psum(x.astype(jnp.int32), "d0") != 0)'
    mesh = Mesh(np.array(jax.devices()[:4]), ("d0",), axis_types=(AxisType.Auto,))
    pieces = np.random.default_rng(0).random((4, 8, 4)) < 0.2  # one piece per device

    def run(expr: str, out_spec: PS) -> np.ndarray:
        body = eval(f"lambda x: {expr}", {"lax": lax, "jnp": jnp})
        fn = jax.shard_map(
            lambda x: body(x[0]), mesh=mesh, in_specs=PS("d0"), out_specs=out_spec
        )
        return np.asarray(jax.jit(fn)(pieces))

    want = pieces.any(axis=0)
    np.testing.assert_array_equal(run(scatter, PS("d0")), want)
    np.testing.assert_array_equal(run(reduce, PS())[:8], want)
