"""JAX programs with shardings through ``sbp-import-sdy`` to ``-t jax``: the
emitted program keeps the user's PartitionSpecs and computes jax.jit's numbers.

Each case lowers a function with ``jax.jit(..., in_shardings=NamedSharding,
out_shardings=...)`` (``with_sharding_constraint`` and ``shard_map`` inside
where it says), runs ``sbp-import-sdy,sbp-inline,sbp-propagate,
sbp-lower-boxing``, emits the JAX module, and checks its ``MESH_AXES``,
``IN_SPECS``/``OUT_SPECS`` and results against jax.jit of the same function.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

from sbpc.passes.jax_target import jax_source
from sbpc.passes.pipeline import parse_module, run_passes

PIPELINE = "sbp-import-sdy,sbp-inline,sbp-propagate,sbp-lower-boxing"


def mesh(shape: tuple[int, ...], names: tuple[str, ...]) -> jax.sharding.Mesh:
    return jax.make_mesh(shape, names, axis_types=(AxisType.Auto,) * len(shape))


@dataclass
class Case:
    fn: Callable[..., Any]
    shapes: list[tuple[int, ...]]
    mesh: jax.sharding.Mesh
    in_specs: tuple[Any, ...] | None  # None: no in_shardings
    out_spec: Any = None  # None: no out_shardings


def _dense(mesh2: jax.sharding.Mesh) -> Case:
    return Case(
        lambda a, b: jnp.tanh(a @ b),
        [(16, 32), (32, 8)],
        mesh2,
        (P(("x", "y"), None), P(None, "y")),
        P("x", None),
    )


def _one_d() -> Case:
    return Case(
        lambda a, b: jax.nn.relu(a @ b) + 1.0,
        [(16, 32), (32, 8)],
        mesh((8,), ("batch",)),
        (P("batch", None), P()),
        P("batch", None),
    )


def _constraint(m: jax.sharding.Mesh) -> Case:
    def f(a, b):
        c = a @ b
        c = jax.lax.with_sharding_constraint(c, NamedSharding(m, P(None, "y")))
        d = jnp.exp(c) * 2.0
        d = jax.lax.with_sharding_constraint(
            d, NamedSharding(m, P("x", P.UNCONSTRAINED))
        )
        return d.sum(axis=1)

    return Case(f, [(16, 32), (32, 8)], m, (P("x", None), None), P("x"))


def _shard_map_psum(m: jax.sharding.Mesh) -> Case:
    @partial(
        jax.shard_map, mesh=m, in_specs=(P("x", "y"), P("y", None)), out_specs=P("x")
    )
    def matmul(a, b):
        return jax.lax.psum(a @ b, "y")

    return Case(lambda a, b: matmul(a, b) * 3.0, [(16, 32), (32, 8)], m, None)


def _shard_map_collectives(m: jax.sharding.Mesh) -> Case:
    @partial(jax.shard_map, mesh=m, in_specs=P("x", "y"), out_specs=P("x", "y"))
    def body(a):
        g = jax.lax.all_gather(a, "y", axis=1, tiled=True)
        s = jax.lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True)
        t = jax.lax.all_to_all(a, "y", 0, 1, tiled=True)
        p = jax.lax.ppermute(a, ("x", "y"), [(i, (i + 3) % 8) for i in range(8)])
        return g[:, :8] + s.sum() + t.sum() + p + jax.lax.pmax(a, "x")

    return Case(lambda a: body(a + 1.0), [(16, 32)], m, (P("x", None),), P())


def _shard_map_two_results(m: jax.sharding.Mesh) -> Case:
    @partial(
        jax.shard_map,
        mesh=m,
        in_specs=(P("x", None), P(None, "y")),
        out_specs=(P("x", "y"), P()),
    )
    def body(a, b):
        c = a @ b
        return c, jax.lax.psum(jnp.sum(c, keepdims=True), ("x", "y"))

    def f(a, b):
        c, total = body(a, b)
        return c / total

    return Case(f, [(16, 32), (32, 8)], m, None)


def _shard_map_axis_index(m: jax.sharding.Mesh) -> Case:
    """``axis_index`` lowers to ``stablehlo.partition_id`` and arithmetic on
    it: the device's position in the mesh."""

    @partial(jax.shard_map, mesh=m, in_specs=P("x", "y"), out_specs=P("x", "y"))
    def body(a):
        x, y = jax.lax.axis_index("x"), jax.lax.axis_index("y")
        both = jax.lax.axis_index(("x", "y"))
        return a + y + 10.0 * x + 100.0 * both

    return Case(body, [(4, 8)], m, None)


def _axis_order(m: jax.sharding.Mesh) -> Case:
    """P(("y", "x")): pieces laid y-major, in, in a constraint and out."""

    def f(a, b):
        c = jax.lax.with_sharding_constraint(
            jnp.sin(a) * 2.0, NamedSharding(m, P(("y", "x"), None))
        )
        return c @ b

    return Case(
        f, [(16, 8), (8, 8)], m, (P(("y", "x"), None), P("x")), P(None, ("y", "x"))
    )


def permuted_mesh() -> jax.sharding.Mesh:
    """A 2x4 mesh whose devices are not in id order."""
    devices = np.asarray(jax.devices()[:8])[[3, 1, 0, 2, 7, 5, 6, 4]]
    return jax.sharding.Mesh(
        devices.reshape(2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2
    )


def cases() -> dict[str, Callable[[], Case]]:
    m = mesh((2, 4), ("x", "y"))
    return {
        "named-2d": lambda: _dense(m),
        "named-1d": _one_d,
        "constraint": lambda: _constraint(m),
        "shard_map-psum": lambda: _shard_map_psum(m),
        "shard_map-collectives": lambda: _shard_map_collectives(m),
        "shard_map-two-results": lambda: _shard_map_two_results(m),
        "shard_map-axis-index": lambda: _shard_map_axis_index(m),
        "shard_map-axis-index-permuted": lambda: _shard_map_axis_index(permuted_mesh()),
        "axis-order": lambda: _axis_order(m),
    }


def _lower(case: Case) -> tuple[str, Callable[..., Any]]:
    kwargs: dict[str, Any] = {}
    if case.in_specs is not None:
        kwargs["in_shardings"] = tuple(
            None if s is None else NamedSharding(case.mesh, s) for s in case.in_specs
        )
    if case.out_spec is not None:
        kwargs["out_shardings"] = NamedSharding(case.mesh, case.out_spec)
    jitted = jax.jit(case.fn, **kwargs)
    structs = [jax.ShapeDtypeStruct(s, jnp.float32) for s in case.shapes]
    return jitted.lower(*structs).as_text(), jitted


@pytest.mark.parametrize("name", list(cases()))
def test_pipeline_keeps_specs_and_numbers(name, tmp_path, load_module) -> None:
    case = cases()[name]()
    text, jitted = _lower(case)
    module = run_passes(parse_module(text), PIPELINE)
    emitted = load_module(jax_source(module), tmp_path / f"{name.replace('-', '_')}.py")
    assert case.mesh.axis_names == emitted.MESH_AXES
    assert tuple(case.mesh.devices.shape) == emitted.MESH_SHAPE
    if case.in_specs is not None:
        for got, want, shape in zip(
            emitted.IN_SPECS, case.in_specs, case.shapes, strict=True
        ):
            if want is not None:
                padded = (*want, *(None,) * (len(shape) - len(want)))
                assert got == P(*padded)
    if case.out_spec is not None:
        rank = len(jax.eval_shape(case.fn, *map(jnp.zeros, case.shapes)).shape)
        padded = (*case.out_spec, *(None,) * (rank - len(case.out_spec)))
        assert P(*padded) == emitted.OUT_SPECS
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s, dtype=np.float32) for s in case.shapes]
    want = np.asarray(jitted(*args))
    raw = emitted.build()(*emitted.put_args(*args))
    got = emitted.logical(raw)
    got = got[0] if isinstance(got, tuple | list) else got
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    if case.out_spec is not None:  # each device holds jax.jit's piece
        want_map = jitted(*args).sharding.devices_indices_map(want.shape)
        assert raw.sharding.devices_indices_map(want.shape) == want_map
