"""Region ops in the graph bridge: trip counts, weights, composite signatures."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from jax import lax
from xdsl.dialects import func

from sbpc.algebra.sbp import B, S
from sbpc.boxing.cost_model import CostModel
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.stablehlo import CaseOp, WhileOp
from sbpc.passes.bridge.graph import function_graphs
from sbpc.passes.bridge.regions import counted_trip_count
from sbpc.passes.pipeline import parse_module, run_passes


def _module(fn, *args, placement="#sbp.placement<cpu, [0, 1, 2, 3]>"):
    text = jax.jit(fn).lower(*args).as_text()
    text = text.replace(
        "attributes {", f"attributes {{sbp.placement = {placement}, ", 1
    )
    module = parse_module(text)
    run_passes(module, "sbp-inline")
    return module


def _op(module, cls):
    return next(op for op in module.walk() if isinstance(op, cls))


X = jnp.ones((8, 16))


@pytest.mark.parametrize(
    ("fn", "trips"),
    [
        (lambda x: lax.fori_loop(0, 5, lambda i, c: c * 2.0, x), 5),
        (lambda x: lax.fori_loop(2, 9, lambda i, c: c * 2.0, x), 7),
        (lambda x: lax.scan(lambda c, _: (c + 1.0, None), x, None, length=4)[0], 4),
        (
            lambda x: lax.while_loop(lambda c: jnp.sum(c) < 9.0, lambda c: c * 2, x),
            None,
        ),
    ],
)
def test_counted_trip_count(fn, trips) -> None:
    assert counted_trip_count(_op(_module(fn, X), WhileOp)) == trips


def _graph(module):
    f = next(op for op in module.ops if isinstance(op, func.FuncOp))
    (graph,) = function_graphs(module, f, CostModel.parse("default")).graphs.values()
    return graph


def test_body_costs_and_edges_are_weighted_by_the_trip_count() -> None:
    graph = _graph(
        _module(lambda x: lax.fori_loop(0, 6, lambda i, c: jnp.tanh(c), x), X)
    )
    tanh = next(n for n in graph.ops() if "tanh" in n.name)
    once = next(n for n in _graph(_module(jnp.tanh, X)).ops() if "tanh" in n.name)
    assert tanh.option_costs[0] == pytest.approx(6 * once.option_costs[0])
    assert graph.edges[tanh.in_edges[0]].weight == 6
    yields = [n for n in graph.ops() if "yield" in n.name]
    assert len(yields) == 2 and all(graph.edges[n.in_edges[1]].tied for n in yields)
    condition = next(n for n in graph.ops() if "condition" in n.name)
    assert [sig.inputs for sig in condition.options] == [((B,),)]


def test_composite_signatures_are_written_back() -> None:
    def f(i, x):
        return lax.switch(i, [jnp.sin, jnp.cos], x)

    module = _module(f, jnp.int32(0), X)
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    sbp_dialect.set_nd_sbp_arg_attr(fn, 1, (S(0),))
    run_passes(module, "sbp-propagate")
    sig = sbp_dialect.get_signature(_op(module, CaseOp))
    assert sig is not None and sig.inputs == ((B,),) and sig.outputs == ((S(0),),)
