"""The graph bridge: a function read into plain ``SbpGraph``s, a plan written back."""

from __future__ import annotations

import pytest
from xdsl.dialects import func

from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.cost_model import CostModel
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects.diagnostics import LocatedError
from sbpc.passes.bridge.graph import FunctionGraphs, free_layouts, function_graphs
from sbpc.passes.bridge.ops import op_label
from sbpc.passes.pipeline import parse_module
from sbpc.propagation.driver import propagate
from sbpc.propagation.graph import OpNode, SinkNode, SourceNode

MLP = """
module attributes {sbp.placement = #sbp.placement<cuda, [0, 1, 2, 3]>} {
  func.func @mlp(%x: tensor<8x16xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>},
                 %w: tensor<16x4xf32>) -> (tensor<8x4xf32> {sbp.nd_sbp = #sbp.nd<[B]>}, tensor<8x4xf32>) {
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %t = stablehlo.tanh %y {sbp.sig = #sbp.sig<([S(0)]) -> ([S(0)])>} : tensor<8x4xf32>
    %c = sbp.cast %t to #sbp.nd<[S(1)]> : tensor<8x4xf32>
    return %t, %c : tensor<8x4xf32>, tensor<8x4xf32>
  }
}
"""

STAGES = """
module attributes {sbp.placement = #sbp.placement<cuda, [0, 1]>} {
  func.func @stages(%x: tensor<4x8xf32> {sbp.nd_sbp = #sbp.nd<[S(0)]>}) -> tensor<4x8xf32> {
    %y = stablehlo.tanh %x : tensor<4x8xf32>
    %z = sbp.cast %y to #sbp.nd<[S(0)]> on #sbp.placement<cuda, [2, 3]> : tensor<4x8xf32>
    %r = stablehlo.tanh %z : tensor<4x8xf32>
    return %r : tensor<4x8xf32>
  }
}
"""


def _read(text: str) -> tuple[func.FuncOp, FunctionGraphs]:
    module = parse_module(text)
    f = next(op for op in module.ops if isinstance(op, func.FuncOp))
    return f, function_graphs(module, f, CostModel.parse("default"))


def test_free_layouts_are_the_non_partial_ones() -> None:
    got = free_layouts(TensorType((8, 6)), (2,))
    assert got and not any(isinstance(s, Partial) for nd in got for s in nd)
    assert {(B,), (S(0),), (S(1),)} <= set(got)
    assert (P,) not in got


def test_a_function_becomes_sources_ops_and_sinks() -> None:
    _, graphs = _read(MLP)
    (placement,) = graphs.graphs
    assert placement.hierarchy == (4,)
    graph = graphs.graphs[placement]
    sources = [n for n in graph.nodes if isinstance(n, SourceNode)]
    ops = [n for n in graph.nodes if isinstance(n, OpNode)]
    sinks = [n for n in graph.nodes if isinstance(n, SinkNode)]
    assert [s.name for s in sources] == ["%x", "%w"]
    assert sources[0].options == ((S(0),),)  # given
    assert (P,) not in sources[1].options  # free: no partial argument
    assert [o.name for o in ops] == [
        "stablehlo.dot_general %y",
        "stablehlo.tanh %t",
        "sbp.cast %c",
    ]
    assert len(ops[0].options) > 1 and all(
        c > 0 for c in ops[0].option_costs
    )  # candidates from the rules, priced by the cost model
    assert ops[1].options == (Signature(((S(0),),), ((S(0),),)),)  # user sbp.sig
    assert ops[2].options == (Signature(((S(1),),), ((S(1),),)),)  # the cast
    assert sinks[0].options == ((B,),)  # the caller's layout
    assert (P,) not in sinks[1].options  # free result: no partial
    # Written back: ops and ends (a cast carries its layout already).
    assert [n for n, _ in graphs.op_nodes[placement]] == [o.id for o in ops[:2]]
    assert [i for _, i in graphs.arg_nodes[placement]] == [0, 1]
    assert [i for _, i in graphs.result_nodes[placement]] == [0, 1]


def test_write_back_annotates_ops_and_unannotated_ends_only() -> None:
    f, graphs = _read(MLP)
    ((placement, graph),) = graphs.graphs.items()
    plan = propagate(graph, lambda s, d, t: 1.0, "greedy")
    graphs.write_back(placement, plan)
    for node, op in graphs.op_nodes[placement]:
        assert sbp_dialect.get_signature(op) == plan.signatures[node]
    assert sbp_dialect.get_nd_sbp_arg_attr(f, 0) == (S(0),)  # kept
    assert sbp_dialect.get_nd_sbp_arg_attr(f, 1) == plan.layout_of("%w")
    assert sbp_dialect.get_nd_sbp_res_attr(f, 0) == (B,)
    sink = graphs.result_nodes[placement][1][0]
    assert sbp_dialect.get_nd_sbp_res_attr(f, 1) == plan.sinks[sink]


def test_a_cast_to_another_placement_splits_the_graph() -> None:
    _, graphs = _read(STAGES)
    first, second = graphs.graphs
    assert (first.ranks, second.ranks) == ((0, 1), (2, 3))
    a, b = graphs.graphs[first], graphs.graphs[second]
    # The first stage delivers the cast's source in any layout ...
    (cast_sink,) = [n for n in a.nodes if isinstance(n, SinkNode)]
    assert cast_sink.name == "sbp.cast %z" and cast_sink.options == (None,)
    # ... the second starts from it, fixed, and returns the result.
    cast_source = next(n for n in b.nodes if isinstance(n, SourceNode))
    assert cast_source.options == ((S(0),),)
    assert graphs.arg_nodes[second] == [] and len(graphs.result_nodes[second]) == 1


def test_op_label_names_the_first_result() -> None:
    f, _ = _read(MLP)
    labels = [op_label(op) for op in f.body.ops]
    assert labels[:2] == ["stablehlo.dot_general %y", "stablehlo.tanh %t"]
    assert labels[-1] == "func.return"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            MLP.replace(
                " attributes {sbp.placement = #sbp.placement<cuda, [0, 1, 2, 3]>}", ""
            ),
            "placement",
        ),
        (
            MLP.replace(
                "#sbp.sig<([S(0)]) -> ([S(0)])>", "#sbp.sig<([S(0)]) -> ([B])>"
            ),
            "is not a legal signature of 'stablehlo.tanh'",
        ),
        (
            MLP.replace(
                "    return %t, %c",
                "    %i = arith.constant 1 : i32\n    return %t, %c",
            ),
            "'arith.constant' does not compute on ranked tensors only",
        ),
        (
            MLP.replace(
                "    return %t, %c",
                "    %d = stablehlo.reshape %t : (tensor<8x4xf32>) -> tensor<?x4xf32>\n"
                "    return %t, %c",
            ),
            "dynamic dimensions are not supported: tensor<\\?x4xf32>",
        ),
        (
            MLP.replace(
                "    return %t, %c",
                "    %g = sbp.all_gather %t dims [0] from [S(0)] to [B] : tensor<8x4xf32>\n"
                "    return %t, %c",
            ),
            "runs before sbp-lower-boxing: found a collective",
        ),
    ],
)
def test_what_is_not_a_graph_is_a_located_error(text: str, message: str) -> None:
    with pytest.raises(LocatedError, match=message):
        _read(text)
