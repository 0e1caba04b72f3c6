"""``sbp-propagate``'s shortcuts change no plan.

The pass checks the annotations with a placement map built per op (and no
same-placement check when the module has one placement), looks specs up
by identity first and writes each shared signature's attribute once.
Here every shortcut is swapped for the plain path (placements resolved
value by value, the per-op check always run, specs built, one
``set_signature`` per op): the module and every plan's totals come out the
same, and each plan's communication is the sum of its edges' prices.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest
from xdsl.ir import Operation

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, S
from sbpc.algebra.signature import Signature
from sbpc.boxing.cost_model import CostModel
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.sbp import verifier
from sbpc.dialects.sbp.placement import PlacementMap, resolve_placement
from sbpc.passes import propagate as propagate_pass
from sbpc.passes.bridge import ops as bridge_ops
from sbpc.passes.bridge.program import main_function
from sbpc.passes.pipeline import default_context, parse_module
from sbpc.passes.propagate import FunctionPlan, SbpPropagatePass
from sbpc.propagation.edge_costs import EdgeCosts

ROOT = Path(__file__).resolve().parents[2]
LIT = Path(__file__).parent
MODULES = [
    ROOT / "examples" / "stablehlo" / "mlp.mlir",
    ROOT / "examples" / "stablehlo" / "transformer_block.mlir",
    LIT / "sbp-propagate" / "mindspore-ffn.mlir",
    LIT / "sbp-propagate" / "op-families.mlir",
    LIT / "sbp-propagate" / "regions.mlir",
    LIT / "sbp-lower-boxing" / "cross-placement.mlir",
]


def _plain_placement_map(module: Operation, ops: object = None) -> PlacementMap:
    """Every value's placement by its own search (``resolve_placement``)."""
    out = PlacementMap()
    for op in module.walk():
        values = []
        for region in op.regions:
            for block in region.blocks:
                values += block.args
        for v in (*values, *op.results):
            got = resolve_placement(v, [1 << 30])
            assert got is not None
            if got[0] is not None:
                out[v] = got[0]
            if got[1]:
                out.floating.add(v)
    return out


def _one_by_one(pairs: Iterable[tuple[Operation, Signature]]) -> None:
    for op, signature in pairs:
        sbp_dialect.set_signature(op, signature)


def _plain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verifier, "placement_map", _plain_placement_map)
    monkeypatch.setattr(PlacementMap, "is_uniform", lambda self: False)
    monkeypatch.setattr(bridge_ops, "remembered_spec", lambda op, build: build(op))
    monkeypatch.setattr(sbp_dialect, "set_signatures", _one_by_one)


def _planned(path: Path, text: str, strategy: str) -> tuple[str, list[FunctionPlan]]:
    module = parse_module(text, default_context())
    if path.parent.name == "stablehlo":  # JAX exports: data parallel on 2x4
        sbp_dialect.set_module_placement(module, Placement.of_size((2, 4)))
        sbp_dialect.set_nd_sbp_arg_attr(main_function(module), 0, (S(0), B))
    plans = SbpPropagatePass(strategy=strategy).plan_module(module)
    return str(module), plans


def _totals(p: FunctionPlan) -> tuple[object, ...]:
    plan = p.plan
    return (
        p.function,
        p.placement,
        plan.options,
        plan.comm_time,
        plan.compute_time,
        plan.total_bytes,
        plan.peak_memory,
    )


def _edge_by_edge(p: FunctionPlan) -> float:
    """The plan's communication priced edge by edge through the graph."""
    plan, graph = p.plan, p.plan.graph
    edge_cost, edge_bytes, _ = propagate_pass._edge_prices(
        p.placement, CostModel.parse("default")
    )
    costs = EdgeCosts(edge_cost, edge_bytes, graph.is_single_device)
    return sum(
        costs.time(
            graph.edge_src_layout(edge, plan.options[edge.src]),
            graph.edge_dst_layout(edge, plan.options[edge.dst]),
            graph.tensor(edge),
        )
        for edge in graph.edges
    )


@pytest.mark.parametrize("strategy", ["greedy", "bfs", "optimal"])
@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_the_shortcuts_change_no_plan(
    path: Path, strategy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for text in path.read_text().split("// -----"):
        fast_text, fast = _planned(path, text, strategy)
        with monkeypatch.context() as m:
            _plain(m)
            plain_text, plain = _planned(path, text, strategy)
        assert "sbp.sig" in fast_text
        assert fast_text == plain_text
        assert [_totals(p) for p in fast] == [_totals(p) for p in plain]
        for p in fast:
            # priced edge by edge (the combined price is the default's total)
            alone = p.plan.stats.get("uncombined_comm_time", p.plan.comm_time)
            assert alone == pytest.approx(_edge_by_edge(p), rel=1e-12)
