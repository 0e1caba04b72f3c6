"""``sbp-export-sdy`` then ``sbp-import-sdy`` gives the plan back: every
argument, result and op result has the layout propagation chose."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P
from xdsl.dialects import func

from sbpc.dialects import sbp as sbp_dialect
from sbpc.passes.pipeline import parse_module, run_passes


def _mesh() -> jax.sharding.Mesh:
    return jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)


def _mlp_text() -> str:
    m = _mesh()

    def mlp(x, w1, w2):
        h = jax.nn.gelu(x @ w1)
        h = jax.lax.with_sharding_constraint(h, NamedSharding(m, P("x", "y")))
        return jnp.sum((h @ w2) ** 2, axis=1)

    jitted = jax.jit(
        mlp,
        in_shardings=(
            NamedSharding(m, P("x", None)),
            NamedSharding(m, P(None, "y")),
            NamedSharding(m, P("y", None)),
        ),
    )
    shapes = [(16, 32), (32, 64), (64, 8)]
    return jitted.lower(
        *(jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes)
    ).as_text()


def _layouts(module) -> tuple[list, list, list]:
    (f,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    args = [sbp_dialect.get_nd_sbp_arg_attr(f, i) for i in range(len(f.args))]
    n_results = len(f.function_type.outputs)
    results = [sbp_dialect.get_nd_sbp_res_attr(f, i) for i in range(n_results)]
    ops = [
        sbp_dialect.value_layout(op.results[0])
        for op in f.body.ops
        if op.results and not isinstance(op, sbp_dialect.CastOp)
    ]
    return args, results, ops


@pytest.mark.parametrize("strategy", ["greedy", "optimal"])
def test_export_import_round_trip(strategy) -> None:
    planned = run_passes(
        parse_module(_mlp_text()),
        f"sbp-import-sdy,sbp-inline,sbp-propagate{{strategy={strategy}}}",
    )
    args, results, ops = _layouts(planned)
    exported = str(run_passes(planned, "sbp-export-sdy"))
    assert "sbp." not in exported
    back = run_passes(parse_module(exported), "sbp-import-sdy")
    # Per-op shardings come back as a cast of each op's result.
    (f,) = [op for op in back.ops if isinstance(op, func.FuncOp)]
    casts = [
        next(
            u.operation.nd_sbp.nd_sbp
            for u in op.results[0].uses
            if isinstance(u.operation, sbp_dialect.CastOp)
        )
        for op in f.body.ops
        if op.results and not isinstance(op, sbp_dialect.CastOp)
    ]
    got_args, got_results, _ = _layouts(back)
    assert got_args == args
    assert got_results == results
    assert casts == ops
    assert all(nd is not None for nd in (*args, *results, *ops))
