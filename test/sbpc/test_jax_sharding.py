"""The front door in JAX's vocabulary: PartitionSpecs, NamedShardings, jax
meshes, jitted functions with their shardings, with_sharding_constraint and
shard_map inside; layouts kept, numbers equal to jax.jit's."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

import sbpc.jax as sj
from sbpc.algebra.sbp import Broadcast, Partial, Split
from sbpc.jax_sharding import Reordered, ShardingError, spec_layout

AUTO2 = (AxisType.Auto, AxisType.Auto)


def mesh2() -> Mesh:
    return jax.make_mesh((2, 4), ("x", "y"), axis_types=AUTO2)


def dense(a, b):
    return jnp.tanh(a @ b)


def _args(*shapes):
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def _check(dist, fn, args, tol=1e-5):
    want = jax.jit(fn)(*args)
    got = dist(*args)
    jax.tree.map(
        lambda g, w: np.testing.assert_allclose(
            np.asarray(g), np.asarray(w), rtol=tol, atol=tol
        ),
        got,
        want,
    )


def test_spec_layout_reads_multi_axis_dims_and_unreduced() -> None:
    names = ("x", "y")
    assert spec_layout(P(("x", "y"), None), names, "t") == (Split(0), Split(0))
    assert spec_layout(P(None, "x"), names, "t") == (Split(1), Broadcast())
    assert spec_layout(P(), names, "t") == (Broadcast(), Broadcast())
    with pytest.raises(ShardingError, match="order other than the mesh"):
        spec_layout(P(("y", "x")), names, "t")
    assert spec_layout(P(("y", "x")), names, "t", reorder=True) == Reordered(
        (Split(0), Split(0)), (1, 0)
    )
    with pytest.raises(ShardingError, match="unknown mesh axis 'z'"):
        spec_layout(P("z"), names, "t")
    if hasattr(P, "UNCONSTRAINED"):
        with pytest.raises(ShardingError, match="unconstrained"):
            spec_layout(P(P.UNCONSTRAINED), names, "t")
    assert Partial("sum") not in spec_layout(P("x"), names, "t")


def test_named_shardings_give_mesh_specs_and_numbers() -> None:
    m = mesh2()
    a, b = _args((16, 32), (32, 8))
    ins = (NamedSharding(m, P(("x", "y"), None)), NamedSharding(m, P(None, "y")))
    out = NamedSharding(m, P("x", None))
    dist = sj.distribute(dense, a, b, in_layouts=ins, out_layouts=out)
    assert dist.program.MESH_AXES == ("x", "y")
    assert (P(("x", "y"), None), P(None, "y")) == dist.program.IN_SPECS
    assert P("x", None) == dist.program.OUT_SPECS
    in_s, out_s = dist.shardings()
    assert [s.spec for s in in_s] == [s.spec for s in ins]
    assert out_s[0].spec == out.spec
    assert all(s.mesh.axis_names == ("x", "y") for s in (*in_s, *out_s))
    _check(dist, dense, [a, b])


def test_partition_specs_on_a_jax_mesh_in_pytrees() -> None:
    m = jax.make_mesh((8,), ("batch",), axis_types=(AxisType.Auto,))

    def f(params, x):
        return jax.nn.relu(x @ params["w"] + params["b"])

    params = {"w": _args((16, 8))[0], "b": np.zeros(8, np.float32)}
    (x,) = _args((32, 16))
    dist = sj.distribute(
        f, params, x, mesh=m, in_layouts=({"w": P(), "b": P()}, P("batch"))
    )
    assert dist.program.MESH_AXES == ("batch",)
    assert dist.program.IN_SPECS[-1] == P("batch", None)
    _check(dist, f, [params, x])


def test_a_jitted_function_keeps_its_shardings() -> None:
    m = mesh2()
    jitted = jax.jit(
        dense,
        in_shardings=(NamedSharding(m, P("x", "y")), NamedSharding(m, P("y", None))),
        out_shardings=NamedSharding(m, P(None, "y")),
    )
    a, b = _args((16, 32), (32, 8))
    dist = sj.distribute(jitted, a, b)  # no mesh: the shardings name it
    assert dist.program.MESH_AXES == ("x", "y")
    assert (P("x", "y"), P("y", None)) == dist.program.IN_SPECS
    assert P(None, "y") == dist.program.OUT_SPECS
    _check(dist, dense, [a, b])


def test_constraints_and_shard_map_inside_are_honoured() -> None:
    m = mesh2()

    @partial(jax.shard_map, mesh=m, in_specs=(P("x", "y"), P("y")), out_specs=P("x"))
    def matmul(a, b):
        return jax.lax.psum(a @ b, "y")

    def f(a, b):
        h = jax.lax.with_sharding_constraint(a * 2.0, NamedSharding(m, P(None, "y")))
        return jnp.exp(matmul(h, b))

    a, b = _args((16, 32), (32, 8))
    dist = sj.distribute(f, a, b, mesh=m, in_layouts=P("x"), strategy="greedy")
    assert "sdy.manual_computation" in dist.mlir
    assert 'lax.psum(_mc2, "y")' in dist.source
    assert (P("x", None), P("x", None)) == dist.program.IN_SPECS
    _check(dist, f, [a, b])


def test_multi_result_ops_inside_shard_map_are_emitted_once() -> None:
    """A two-operand sort and a fenced pair inside a shard_map body: each is
    one call whose tuple the body unpacks (``Unpack`` in manual bodies)."""
    m = mesh2()

    @partial(jax.shard_map, mesh=m, in_specs=(P("x"), P("x")), out_specs=P("x"))
    def local(k, v):
        ks, vs = jax.lax.sort((k, v), dimension=1, num_keys=1)
        a, b = jax.lax.optimization_barrier((ks * 2.0, vs + 1.0))
        return a + b

    k, v = _args((8, 16), (8, 16))
    dist = sj.distribute(local, k, v, mesh=m, strategy="greedy")
    assert "sdy.manual_computation" in dist.mlir
    for call in ("lax.sort(", "lax.optimization_barrier("):
        # once per body (the program, and its self-check's reference), bound
        # to one scratch tuple that the results are unpacked from
        assert dist.source.count(call) == dist.source.count(f"_all := {call}") >= 1
        for line in dist.source.splitlines():
            assert line.count(call) <= 1
    _check(dist, local, [k, v])


def test_a_mesh_in_another_device_order_is_kept() -> None:
    devices = np.array(jax.devices()[::-1]).reshape(2, 4)
    m = Mesh(devices, ("x", "y"), axis_types=AUTO2)
    a, b = _args((16, 32), (32, 8))
    dist = sj.distribute(dense, a, b, in_layouts=(NamedSharding(m, P("x")), None))
    in_s, _ = dist.shardings()
    assert (in_s[0].mesh.devices == devices).all()
    _check(dist, dense, [a, b])


@pytest.mark.parametrize("order", ["ids", "permuted"])
def test_axis_index_inside_shard_map_is_the_device_position(order) -> None:
    """``axis_index`` (``stablehlo.partition_id`` and arithmetic) numbers the
    device by its place in the mesh, whatever devices the mesh holds."""
    devices = np.array(jax.devices()[:8])
    if order == "permuted":
        devices = devices[[3, 1, 0, 2, 7, 5, 6, 4]]
    m = Mesh(devices.reshape(2, 4), ("x", "y"), axis_types=AUTO2)

    @partial(jax.shard_map, mesh=m, in_specs=P("x", "y"), out_specs=P("x", "y"))
    def body(a):
        both = jax.lax.axis_index(("x", "y"))
        return (
            a + jax.lax.axis_index("y") + 10.0 * jax.lax.axis_index("x") + 100.0 * both
        )

    (a,) = _args((4, 8))
    dist = sj.distribute(body, a, mesh=m, strategy="greedy")
    assert "stablehlo.partition_id" in dist.mlir
    assert "lax.axis_index" in dist.source
    _check(dist, body, [a])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mesh": (2, 4), "in_layouts": P("x")}, "needs a named mesh"),
        ({"in_layouts": None}, "no mesh"),
    ],
)
def test_bad_shardings_are_reported(kwargs, message) -> None:
    if kwargs.get("mesh") == "mesh2":
        kwargs = {**kwargs, "mesh": mesh2()}
    a, b = _args((16, 32), (32, 8))
    with pytest.raises(sj.SbpcError, match=message):
        sj.distribute(dense, a, b, **kwargs)


def test_axes_in_another_order_than_the_mesh_s() -> None:
    """P(("y", "x")) on a mesh ("x", "y"): the user's specs, jax.jit's
    numbers and the same piece on each device."""
    m = mesh2()
    a, b = _args((16, 32), (32, 8))
    ins = (NamedSharding(m, P(("y", "x"), None)), NamedSharding(m, P(None, "y")))
    out = NamedSharding(m, P(("y", "x"), None))
    dist = sj.distribute(dense, a, b, in_layouts=ins, out_layouts=out)
    assert (P(("y", "x"), None), P(None, "y")) == dist.program.IN_SPECS
    assert P(("y", "x"), None) == dist.program.OUT_SPECS
    in_s, out_s = dist.shardings()
    assert [s.spec for s in (*in_s, *out_s)] == [s.spec for s in (*ins, out)]
    got = dist(a, b)
    want = jax.jit(dense, in_shardings=ins, out_shardings=out)(a, b)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
    shape = want.shape
    assert got.sharding.devices_indices_map(shape) == out.devices_indices_map(shape)
    # The same layout from a jitted function's own shardings agrees.
    jitted = jax.jit(dense, in_shardings=ins, out_shardings=out)
    again = sj.distribute(jitted, a, b, in_layouts=ins)
    np.testing.assert_allclose(np.asarray(again(a, b)), np.asarray(want), rtol=1e-5)


def test_layouts_that_contradict_a_jitted_function_are_reported() -> None:
    m = mesh2()
    jitted = jax.jit(dense, in_shardings=(NamedSharding(m, P("x")), None))
    a, b = _args((16, 32), (32, 8))
    with pytest.raises(sj.SbpcError, match="by the function's own sharding"):
        sj.distribute(jitted, a, b, in_layouts=(P("y"), None))
