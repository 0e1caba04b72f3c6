"""The sdy text the installed jax prints parses, prints and re-parses unchanged.

The lit tests hold frozen copies; this lowers live JAX programs (NamedSharding
arguments and results, with_sharding_constraint, shard_map with collectives),
so a jax upgrade that changes the syntax fails here.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import pytest
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P
from xdsl.dialects.builtin import ModuleOp

from sbpc.dialects import sdy
from sbpc.dialects import stablehlo as shlo
from sbpc.passes.pipeline import parse_module

AUTO = (AxisType.Auto, AxisType.Auto)


def _mesh() -> jax.sharding.Mesh:
    return jax.make_mesh((2, 4), ("x", "y"), axis_types=AUTO)


def _named() -> str:
    mesh = _mesh()
    f = jax.jit(
        lambda a, b: jnp.tanh(a @ b),
        in_shardings=(
            NamedSharding(mesh, P(("x", "y"), None)),
            NamedSharding(mesh, P(None, "y")),
        ),
        out_shardings=NamedSharding(mesh, P("x", None)),
    )
    return f.lower(jnp.ones((16, 32)), jnp.ones((32, 8))).as_text()


def _constraint() -> str:
    mesh = _mesh()

    def g(a):
        c = jax.lax.with_sharding_constraint(
            a * 2, NamedSharding(mesh, P("x", P.UNCONSTRAINED))
        )
        return c + 1

    return jax.jit(g).lower(jnp.ones((16, 32))).as_text()


def _shard_map() -> str:
    mesh = _mesh()

    @partial(jax.shard_map, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))
    def inner(a):
        g = jax.lax.all_gather(a, "y", axis=1, tiled=True)
        s = jax.lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True)
        t = jax.lax.all_to_all(a, "y", 0, 1, tiled=True)
        p = jax.lax.ppermute(a, "y", [(i, (i + 1) % 4) for i in range(4)])
        m = jax.lax.pmax(a, "x")
        return g + jnp.sum(s) + jnp.sum(t) + jnp.sum(p) + jnp.sum(m)

    return jax.jit(inner).lower(jnp.ones((16, 32))).as_text()


def _ops(module: ModuleOp, cls: type) -> list:
    return [op for op in module.walk() if isinstance(op, cls)]


@pytest.mark.parametrize("make", [_named, _constraint, _shard_map])
def test_round_trip(make) -> None:
    text = make()
    printed = str(parse_module(text))
    assert str(parse_module(printed)) == printed
    assert 'sdy.mesh @mesh = <["x"=2, "y"=4]>' in printed


def test_named_shardings_read() -> None:
    module = parse_module(_named())
    (mesh,) = _ops(module, sdy.MeshOp)
    assert mesh.mesh.axes == [("x", 2), ("y", 4)]
    main = next(op for op in module.walk() if op.name == "func.func")
    arg0 = main.arg_attrs.data[0].data[sdy.SHARDING]
    assert [[a.axis.data for a in d.axes.data] for d in arg0.dims.data] == [
        ["x", "y"],
        [],
    ]


def test_constraint_is_open() -> None:
    (op,) = _ops(parse_module(_constraint()), sdy.ShardingConstraintOp)
    assert [d.open for d in op.sharding.dims.data] == [False, True]


def test_manual_region_collectives() -> None:
    module = parse_module(_shard_map())
    (manual,) = _ops(module, sdy.ManualComputationOp)
    assert manual.manual_axes.names == ("x", "y")
    kinds = {op.name: op for op in manual.walk() if op.name.startswith("stablehlo.a")}
    assert set(kinds) >= {
        "stablehlo.all_gather",
        "stablehlo.all_to_all",
        "stablehlo.all_reduce",
    }
    (pmax,) = _ops(module, shlo.AllReduceOp)
    assert pmax.reduction_kind == "max"
    assert pmax.groups == ((0, 4), (1, 5), (2, 6), (3, 7))
    (perm,) = _ops(module, shlo.CollectivePermuteOp)
    assert perm.pairs[:4] == ((0, 1), (1, 2), (2, 3), (3, 0))
