"""The memory model: which values the compiled program stores and when
(``liveness``), and the buffers a plan allocates (``memory``), on tiny
graphs whose numbers are worked out by hand, and on random graphs against
the model read literally (``sbpc.testing.literal_memory``)."""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.algebra.sbp import B, P, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.graph import SbpGraph
from sbpc.propagation.liveness import Liveness, Storage
from sbpc.propagation.memory import argument_bytes, local_bytes, plan_memory
from sbpc.testing.literal_memory import literal_peak
from sbpc.testing.synthetic_graphs import random_graph

T = TensorType((8, 8))  # 256 bytes
ROW = TensorType((8,))  # 32 bytes

DOT = "stablehlo.dot_general"
ADD = "stablehlo.add"
MUL = "stablehlo.multiply"
SUB = "stablehlo.subtract"
EXP = "stablehlo.exponential"
REDUCE = "stablehlo.reduce"
BCAST = "stablehlo.broadcast_in_dim"


def same(nd, n_in: int = 1, n_out: int = 1):
    """Every operand and result in ``nd``."""
    return [Signature((nd,) * n_in, (nd,) * n_out)]


def op(g: SbpGraph, kind: str, *operands: int, t: TensorType = T, nd=(B,)) -> int:
    (v,) = g.add_op(kind, list(operands), [t], same(nd, len(operands)), kind=kind)
    return v


def storage(g: SbpGraph) -> list[str]:
    return [s.value for s in Liveness.of(g).storage]


def test_local_bytes() -> None:
    assert local_bytes(T, (S(0), S(1)), (2, 4)) == 32
    assert local_bytes(T, (S(0), B), (2, 4)) == 128
    assert local_bytes(T, (P, B), (2, 4)) == 256


def test_elementwise_ops_are_fused_into_their_readers() -> None:
    g = SbpGraph((2,))
    x = g.add_argument("x", T, layout=(B,))
    d = op(g, DOT, x, x)  # a product: stored
    e = op(g, ADD, d, d)  # fused into its reader
    f = op(g, MUL, e, e)  # read by the product: stored
    h = op(g, DOT, f, x)
    g.add_result("h", h)
    assert storage(g) == ["argument", "stored", "fused", "stored", "stored"]


def test_an_expensive_op_read_by_two_ops_is_stored() -> None:
    g = SbpGraph((2,))
    x = g.add_argument("x", T, layout=(B,))
    once = op(g, EXP, x)
    twice = op(g, EXP, x)
    g.add_result("a", op(g, ADD, once, twice))
    g.add_result("b", op(g, ADD, twice, x))
    assert storage(g)[once] == "fused" and storage(g)[twice] == "stored"


def test_a_reduction_absorbs_the_ops_that_feed_only_it() -> None:
    """``reduce(square(x - m))``: the square is the reduction's own; the
    difference, read elsewhere too, is stored for it."""
    g = SbpGraph((2,))
    x = g.add_argument("x", T, layout=(B,))
    m = g.add_argument("m", T, layout=(B,))
    diff = op(g, SUB, x, m)
    square = op(g, "chlo.square", diff)
    total = op(g, REDUCE, square, t=ROW)
    g.add_result("var", total)
    g.add_result("y", op(g, MUL, diff, x))
    kinds = storage(g)
    assert (kinds[diff], kinds[square], kinds[total]) == ("stored", "fused", "stored")


def test_a_fused_value_keeps_its_operands_alive_until_it_is_recomputed() -> None:
    g = SbpGraph((2,))
    x = g.add_argument("x", T, layout=(B,))
    d = op(g, DOT, x, x)  # step 0
    e = op(g, ADD, d, d)  # step 1: fused
    op(g, DOT, x, x)  # step 2
    late = op(g, MUL, e, x)  # step 3: recomputes e, so reads d
    g.add_result("late", late)
    liveness = Liveness.of(g)
    assert liveness.storage[e] is Storage.FUSED
    assert liveness.read_end[d] == 2 * 3


def test_views_share_a_buffer() -> None:
    """A reshape of a stored value, an in-place scatter into a value nothing
    else reads, and an op equal to an earlier one hold no bytes of their
    own; a reshape of a fused value is fused like it."""
    g = SbpGraph((2,))
    x = g.add_argument("x", T, layout=(B,))
    d = op(g, DOT, x, x)
    view = op(g, "stablehlo.reshape", d)
    fused = op(g, "stablehlo.reshape", op(g, ADD, x, x))
    g.add_result("product", op(g, MUL, fused, x))
    zeros = op(g, DOT, x, x)
    scattered = op(g, "stablehlo.scatter", zeros, x, x)
    candidates = tuple(same((B,), 1))  # one tuple: one op content
    (first,) = g.add_op(REDUCE, [d], [T], candidates, kind=REDUCE)
    (again,) = g.add_op(REDUCE, [d], [T], candidates, kind=REDUCE)
    for v in (view, scattered, first, again):
        g.add_result(f"r{v}", v)
    kinds = storage(g)
    assert (kinds[view], kinds[fused], kinds[scattered]) == ("view", "fused", "view")
    assert (kinds[first], kinds[again]) == ("stored", "view")


def test_a_value_with_one_tensor_operand_is_duplicated() -> None:
    """``d + broadcast(b)`` read by a reduction and by a later fused op: XLA
    stores it for the reduction and recomputes it for the other, so ``d``
    lives until then and the sum's buffer only until the reduction."""
    g = SbpGraph((2,))
    x = g.add_argument("x", T, layout=(B,))
    bias = g.add_argument("b", ROW, layout=(B,))
    d = op(g, DOT, x, x)  # step 0
    spread = op(g, BCAST, bias)  # step 1
    biased = op(g, ADD, d, spread)  # step 2
    mean = op(g, REDUCE, biased, t=ROW)  # step 3
    op(g, DOT, x, x)  # step 4
    late = op(g, DOT, op(g, MUL, biased, x), x)  # steps 5 (stored) and 6
    g.add_result("mean", mean)
    g.add_result("late", late)
    liveness = Liveness.of(g)
    assert liveness.storage[biased] is Storage.DUPLICATED
    assert liveness.buffer_end[biased] == 2 * 3
    assert liveness.read_end[d] == 2 * 5


def unary_chain(layouts):
    """x (given) -> op -> op ... with the layouts each op takes and makes."""
    g = SbpGraph((4,))
    v = g.add_argument("x", T, layout=layouts[0][0])
    for i, (src, dst) in enumerate(layouts[1:]):
        (v,) = g.add_op(f"op{i}", [v], [T], [Signature((src,), (dst,))])
    return g, v


def test_arguments_and_results_are_held_for_the_whole_program() -> None:
    g, v = unary_chain([((S(0),), None), ((S(0),), (B,))])
    g.add_result("y", v, (B,))
    memory = plan_memory(g, [0] * len(g.nodes))
    # x 64 B, y 256 B (its own allocation holds the op's result); no temporary
    assert (memory.arguments, memory.outputs, memory.temporaries) == (64, 256, 0)
    assert memory.peak == 320 == max(memory.profile)


def test_a_boxed_copy_lives_from_just_before_its_first_reader_to_its_last() -> None:
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(S(0),))
    (a,) = g.add_op("a", [x], [T], [Signature(((S(0),),), ((S(0),),))])  # step 0
    g.add_op("b", [x], [T], [Signature(((S(0),),), ((S(0),),))])  # step 1
    (c,) = g.add_op("c", [a], [T], [Signature(((B,),), ((S(0),),))])  # step 2
    (d,) = g.add_op("d", [a], [T], [Signature(((B,),), ((S(0),),))])  # step 3
    g.add_result("c", c, (S(0),))
    g.add_result("d", d, (S(0),))
    memory = plan_memory(g, [0] * len(g.nodes))
    # x and the outputs c and d (64 B each) throughout; a's copy in B
    # (256 B) from half-step 3 (just before c) to 6 (d); a (64 B) until that
    # copy's collective reads it (3), in d's allocation (d is written at 6);
    # b's unread result (64 B) at half-step 2, in c's (written at 4)
    base = 64 + 2 * 64
    assert memory.held == [base] * 3 + [base + 256] * 4 + [base]


def test_an_all_reduce_runs_in_the_partial_value_s_buffer() -> None:
    g, v = unary_chain([((B,), None), ((B,), (P,)), ((B,), (B,))])
    g.add_result("y", v, (B,))
    memory = plan_memory(g, [0] * len(g.nodes))
    # x and y 256 B each; the partial value and its sum share 256 B
    assert memory.peak == 256 + 256 + 256


def test_a_piece_a_fused_reader_slices_needs_no_copy() -> None:
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(B,))
    y = op(g, ADD, x, x, nd=(S(0),))  # reads pieces of x: no copy
    z = op(g, DOT, x, x, nd=(S(0),))  # a product reads a sliced copy
    g.add_result("y", y, (S(0),))
    g.add_result("z", z, (S(0),))
    memory = plan_memory(g, [0] * len(g.nodes))
    # x 256 B; y and z 64 B each; z's operand copy (64 B) at step 1, where
    # y's allocation (written at step 0) is busy and z's is not yet
    assert memory.peak == 256 + 128 + 64


def test_a_late_output_lends_its_allocation_to_temporaries() -> None:
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(B,))
    (a,) = g.add_op("a", [x], [T], same((B,)))  # 256 B, read by b
    (b,) = g.add_op("b", [a], [T], same((B,)))
    (c,) = g.add_op("c", [b], [T], same((B,)))  # the output, written last
    g.add_result("c", c, (B,))
    memory = plan_memory(g, [0] * len(g.nodes))
    # a then b fit in c's allocation in turn (a dies at b's step, but both
    # are live there, so b goes to the heap)
    assert memory.temporaries == 256
    assert memory.peak == 256 + 256 + 256


def test_a_donated_argument_is_its_result_s_allocation() -> None:
    for donated, expected in ((False, 2 * 256), (True, 256)):
        g = SbpGraph((4,))
        x = g.add_argument("x", T, layout=(B,), donated=donated)
        (y,) = g.add_op("y", [x], [T], same((B,)))
        g.add_result("y", y, (B,))
        memory = plan_memory(g, [0] * len(g.nodes))
        assert memory.aliased == (256 if donated else 0)
        assert memory.peak == expected


@pytest.mark.parametrize("seed", range(40))
def test_random_plans_agree_with_the_model_read_literally(seed: int) -> None:
    rng = np.random.default_rng(seed)
    hierarchy = (2, 4) if seed % 2 else (4,)
    g = random_graph(rng, hierarchy, n_ops=int(rng.integers(1, 30)))
    options = [int(rng.integers(len(n.options))) for n in g.nodes]
    memory = plan_memory(g, options)
    assert memory.peak == pytest.approx(literal_peak(g, options), rel=1e-12)
    assert max(memory.held) == pytest.approx(memory.peak, rel=1e-12)
    # the arguments alone, without liveness: never above the peak
    assert argument_bytes(g, options) == memory.arguments <= memory.peak


def _fsdp_graph() -> tuple[SbpGraph, int]:
    """x (batch split) through two products with w stored split and read
    whole, far apart (forward and backward): the gather's copy is 256 B."""
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(S(0),))
    w = g.add_argument("w", T, layout=(S(0),))
    whole = [Signature(((S(0),), (B,)), ((S(0),),))]
    (h,) = g.add_op("fwd", [x, w], [T], whole, kind=DOT)
    for _ in range(3):
        h = op(g, DOT, h, h, nd=(S(0),))
    (y,) = g.add_op("bwd", [h, w], [T], whole, kind=DOT)
    g.add_result("y", y)
    return g, w


def test_an_argument_gathered_per_use_holds_its_copy_only_around_each_reader() -> None:
    g, w = _fsdp_graph()
    options = [0] * len(g.nodes)
    once = plan_memory(g, options).held
    g.gathered_per_use = frozenset({w})
    per_use = plan_memory(g, options).held
    # op 0 and op 4 read w's gathered copy (256 B); between them (half-steps
    # 1 to 6) the copy made once is held, the ones made per use are not
    assert [a - b for a, b in zip(once, per_use, strict=True)] == [
        0, 256, 256, 256, 256, 256, 256, 0, 0, 0,
    ]  # fmt: skip
    assert max(per_use) == pytest.approx(literal_peak(g, options))


def test_a_copy_smaller_than_the_stored_piece_is_made_once() -> None:
    """Only gathers are made per use: w stored whole and read split is
    sliced or moved once, as before."""
    g = SbpGraph((4,))
    x = g.add_argument("x", T, layout=(S(0),))
    w = g.add_argument("w", T, layout=(B,))
    split = [Signature(((S(0),), (S(1),)), ((S(0),),))]
    (h,) = g.add_op("fwd", [x, w], [T], split, kind=DOT)
    (y,) = g.add_op("bwd", [h, w], [T], split, kind=DOT)
    g.add_result("y", y)
    options = [0] * len(g.nodes)
    once = plan_memory(g, options).held
    g.gathered_per_use = frozenset({w})
    assert plan_memory(g, options).held == once


@pytest.mark.parametrize("seed", range(12))
def test_random_plans_gathered_per_use_agree_with_the_model_read_literally(
    seed: int,
) -> None:
    rng = np.random.default_rng(100 + seed)
    hierarchy = (2, 4) if seed % 2 else (4,)
    g = random_graph(rng, hierarchy, n_ops=int(rng.integers(1, 30)))
    g.gathered_per_use = frozenset(n.result for n in g.sources())
    options = [int(rng.integers(len(n.options))) for n in g.nodes]
    memory = plan_memory(g, options)
    assert memory.peak == pytest.approx(literal_peak(g, options), rel=1e-12)


def test_liveness_is_computed_once_per_graph_until_it_grows() -> None:
    g = SbpGraph((4,))
    x = g.add_argument("x", T)
    y = op(g, "stablehlo.tanh", x)
    first = Liveness.of(g)
    assert Liveness.of(g) is first  # every plan of the graph reads this one
    op(g, "stablehlo.exponential", y)
    grown = Liveness.of(g)
    assert grown is not first
    assert len(grown.storage) == len(g.values) == len(first.storage) + 1
