"""Microbatches as SBP over time: each op's phase from the op rules."""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.algebra.sbp import B, Partial, Split
from sbpc.algebra.tensor_type import TensorType
from sbpc.ops.derive import sig1d
from sbpc.ops.spec import OpSpec
from sbpc.pipeline.function import Function, Node
from sbpc.pipeline.microbatch import (
    MicrobatchError,
    Phase,
    analyze,
    per_microbatch,
)

F = "f32"


def T(*shape: int) -> TensorType:
    return TensorType(shape, F)


class Builder:
    """A function written op by op: ``op(name, operands, result types)``."""

    def __init__(self, *args: TensorType) -> None:
        self.types: dict[int, TensorType] = {}
        self.args = tuple(self.new(t) for t in args)
        self.nodes: list[Node] = []

    def new(self, t: TensorType) -> int:
        v = len(self.types)
        self.types[v] = t
        return v

    def op(self, name: str, operands: list[int], *results: TensorType, **attrs) -> int:
        spec = OpSpec(name, [self.types[v] for v in operands], results, attrs)
        outs = tuple(self.new(t) for t in results)
        self.nodes.append(Node(spec, tuple(operands), outs, name))
        return outs[0]

    def function(self, *returns: int) -> Function:
        return Function(self.args, self.nodes, returns, self.types)


def dot(b: Builder, x: int, w: int, contract: tuple[int, int] = (1, 0)) -> int:
    (m, k), (_, n) = b.types[x].shape, b.types[w].shape
    out = (m, n) if contract == (1, 0) else (k, n)
    return b.op(
        "stablehlo.dot_general",
        [x, w],
        T(*out),
        lhs_contracting_dimensions=(contract[0],),
        rhs_contracting_dimensions=(contract[1],),
        lhs_batching_dimensions=(),
        rhs_batching_dimensions=(),
    )


def zero(b: Builder) -> int:
    return b.op("stablehlo.constant", [], T(), value=np.zeros((), np.float32))


def total(b: Builder, x: int) -> int:
    dims = tuple(range(b.types[x].rank))
    return b.op("stablehlo.reduce", [x, zero(b)], T(), dimensions=dims, kind="add")


def test_a_linear_step_splits_activations_and_sums_gradients() -> None:
    b = Builder(T(4, 4), T(8, 4))  # w, x
    w, x = b.args
    h = dot(b, x, w)  # per microbatch
    loss = total(b, h)  # a contribution to the loss
    g = dot(b, x, h, (0, 0))  # x^T h: contracts the batch
    lr = b.op("stablehlo.constant", [], T(4, 4), value=np.full((4, 4), 0.1, np.float32))
    step = b.op("stablehlo.multiply", [lr, g], T(4, 4))
    new_w = b.op("stablehlo.subtract", [w, step], T(4, 4))
    mb = analyze(b.function(loss, new_w), {x: 0}, 2)
    assert mb.time[h] == Split(0) and mb.time[loss] == Partial("sum")
    assert mb.time[g] == Partial("sum")
    ph = dict(zip([n.results[0] for n in b.nodes], mb.phase, strict=True))
    assert ph[h] is Phase.LOOP and ph[new_w] is Phase.POST
    # lr * g only scales one contribution: it runs after the loop, on g's sum.
    assert ph[step] is Phase.POST
    assert mb.accumulated == [loss, g]
    assert mb.time[new_w] == B and new_w in mb.after


def test_a_value_from_before_the_loop_used_split_is_sliced() -> None:
    b = Builder(T(8, 4), T(8, 4))
    table, x = b.args  # a per-example table argument, not split itself
    y = b.op("stablehlo.add", [x, table], T(8, 4))
    loss = total(b, y)
    mb = analyze(b.function(loss), {x: 0}, 4)
    assert mb.slices == {(0, 1): 0}
    assert mb.phase[0] is Phase.LOOP


def test_a_broadcast_to_the_batch_moves_into_the_loop() -> None:
    b = Builder(T(8, 4))
    (x,) = b.args
    c = b.op("stablehlo.constant", [], T(), value=np.float32(2.0))
    wide = b.op("stablehlo.broadcast_in_dim", [c], T(8, 4), broadcast_dimensions=())
    y = b.op("stablehlo.multiply", [x, wide], T(8, 4))
    loss = total(b, y)
    mb = analyze(b.function(loss), {x: 0}, 2)
    assert mb.time[wide] == Split(0)  # made per microbatch, not sliced
    assert not mb.slices
    assert mb.phase[0] is Phase.PRE  # the constant itself stays


def test_batch_statistics_inside_the_step_are_refused() -> None:
    b = Builder(T(8, 4))
    (x,) = b.args
    s = b.op("stablehlo.reduce", [x, zero(b)], T(4), dimensions=(0,), kind="add")
    mean = b.op("stablehlo.broadcast_in_dim", [s], T(8, 4), broadcast_dimensions=(1,))
    b.op("stablehlo.subtract", [x, mean], T(8, 4))
    with pytest.raises(MicrobatchError, match="batch normalization") as e:
        analyze(b.function(), {x: 0}, 2)
    assert e.value.node == 3  # the subtract (after the zero, the sum, the broadcast)


def test_uneven_microbatches_are_refused() -> None:
    b = Builder(T(6, 4))
    with pytest.raises(MicrobatchError, match="4 microbatches do not divide"):
        analyze(b.function(), {b.args[0]: 0}, 4)


def test_a_per_microbatch_result_is_refused() -> None:
    b = Builder(T(8, 4))
    y = b.op("stablehlo.tanh", [b.args[0]], T(8, 4))
    with pytest.raises(MicrobatchError, match="result #0 is per microbatch"):
        analyze(b.function(y), {b.args[0]: 0}, 2)


def test_one_microbatch_keeps_every_op_in_the_loop() -> None:
    b = Builder(T(4, 4), T(8, 4))
    w, x = b.args
    loss = total(b, dot(b, x, w))
    mb = analyze(b.function(loss), {x: 0}, 1)
    assert mb.phase[0] is Phase.LOOP and mb.accumulated == [loss]


def test_a_gather_from_rows_split_over_time_has_no_single_form() -> None:
    """Its block offsets depend on the microbatch (``indexed_blocks``); split
    by its indices, every microbatch runs the same gather."""
    rows = OpSpec(
        "stablehlo.gather",
        (T(32, 16), TensorType((8, 1), "i32")),
        (T(8, 16),),
        dict.fromkeys(("operand_batching_dims", "start_indices_batching_dims"), ())
        | {"offset_dims": (1,), "collapsed_slice_dims": (0,), "start_index_map": (0,)}
        | {"index_vector_dim": 1, "slice_sizes": (1, 16)},
    )
    with pytest.raises(MicrobatchError, match="differs between microbatches"):
        per_microbatch(rows, sig1d([Split(0), B], [Partial("sum")]), 4)
    local = per_microbatch(rows, sig1d([B, Split(0)], [Split(0)]), 4)
    assert local.operands[1].shape == (2, 1) and local.attr("index_offsets") is None
