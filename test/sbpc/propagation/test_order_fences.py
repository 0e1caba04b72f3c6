"""Order fences (``order_fences``): which frees of large buffers must run
before which allocations, on small graphs whose liveness is worked out by
hand (``test_memory.py`` checks that liveness itself)."""

from __future__ import annotations

from sbpc.algebra.sbp import B, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.graph import SbpGraph
from sbpc.propagation.liveness import Liveness, Storage
from sbpc.propagation.memory import layouts_of
from sbpc.propagation.order_fences import WINDOW, Fence, order_fences

BIG = TensorType((2, 16, 16))  # 1 KiB per device, split in two
SMALL = TensorType((2, 16, 4))  # 256 bytes per device

DOT = "stablehlo.dot_general"
EXP = "stablehlo.exponential"
NEG = "stablehlo.negate"
MUL = "stablehlo.multiply"
RESHAPE = "stablehlo.reshape"


def op(g: SbpGraph, kind: str, *operands: int, t: TensorType = BIG) -> int:
    signature = Signature((((S(0),),) * len(operands)), ((S(0),),))
    (v,) = g.add_op(kind, list(operands), [t], [signature], kind=kind)
    return v


def node(g: SbpGraph, value: int) -> int:
    return g.values[value].producer


def fences(g: SbpGraph, min_bytes: float = 1024) -> list[Fence]:
    return order_fences(g, layouts_of(g, [0] * len(g.nodes)), min_bytes)


def attention_backward(
    g: SbpGraph, dv_reads_ds: bool = False
) -> tuple[int, int, int, int]:
    """Probabilities ``p`` read by the forward product and last by ``dv``;
    ``ds`` allocated after ``dv`` from ``dp``.  Returns p, dp, dv, ds."""
    s = g.add_argument("s", BIG, layout=(S(0),))
    v = g.add_argument("v", SMALL, layout=(S(0),))
    do = g.add_argument("do", SMALL, layout=(S(0),))
    p = op(g, EXP, s)
    o = op(g, DOT, p, v, t=SMALL)
    dp = op(g, DOT, do, v)
    dv = op(g, DOT, p, do, t=SMALL)
    t = op(g, NEG, dp)  # fused into ds
    ds = op(g, MUL, t, dv if dv_reads_ds else s)
    for name, value in (("o", o), ("dv", dv), ("ds", ds)):
        g.add_result(name, value, (S(0),))
    return p, dp, dv, ds


def test_a_free_the_allocation_does_not_wait_for_is_fenced_before_it() -> None:
    g = SbpGraph((2,))
    p, dp, dv, ds = attention_backward(g)
    t = g.nodes[node(g, ds)].operands[0]
    assert g.nodes[node(g, t)].operands == (dp,)  # the negate XLA fuses in
    assert fences(g) == [
        Fence((node(g, dv),), node(g, ds), (node(g, t), node(g, ds)), (p,))
    ]


def test_an_allocation_that_reads_the_reader_needs_no_fence() -> None:
    g = SbpGraph((2,))
    attention_backward(g, dv_reads_ds=True)
    assert fences(g) == []


def test_buffers_under_the_threshold_are_left_to_the_scheduler() -> None:
    g = SbpGraph((2,))
    attention_backward(g)
    assert fences(g, min_bytes=1025) == []


def test_a_free_more_than_the_window_of_allocations_back_is_not_fenced() -> None:
    def graph(allocations_between: int) -> SbpGraph:
        g = SbpGraph((2,))
        s = g.add_argument("s", BIG, layout=(S(0),))
        v = g.add_argument("v", SMALL, layout=(S(0),))
        p = op(g, EXP, s)
        dv = op(g, DOT, p, v, t=SMALL)  # frees p
        chain = s
        for _ in range(allocations_between):
            chain = op(g, DOT, chain, s)  # a large allocation
        last = op(g, DOT, chain, s)
        g.add_result("dv", dv, (S(0),))
        g.add_result("last", last, (S(0),))
        return g

    near, far = graph(WINDOW - 1), graph(WINDOW)
    assert [f.allocation for f in fences(near)][-1] == node(
        near, near.nodes[-1].operand
    )
    assert all(f.allocation != node(far, far.nodes[-1].operand) for f in fences(far))


def test_an_op_equal_to_a_stored_one_is_held_not_copied() -> None:
    """``again`` is ``p`` (XLA merges equal ops; the model views ``p``'s
    buffer): the barrier holds it, where a copy after the barrier would
    be computed and stored anew."""
    g = SbpGraph((2,))
    s = g.add_argument("s", BIG, layout=(S(0),))
    v = g.add_argument("v", SMALL, layout=(S(0),))
    p = op(g, EXP, s)
    q = op(g, DOT, p, v, t=SMALL)
    dp = op(g, DOT, s, s)
    dv = op(g, DOT, dp, v, t=SMALL)  # frees dp
    (again,) = g.add_op(EXP, [s], [BIG], g.nodes[node(g, p)].candidates, kind=EXP)
    ds = op(g, MUL, again, s)
    for name, value in (("q", q), ("dv", dv), ("ds", ds)):
        g.add_result(name, value, (S(0),))
    assert Liveness.of(g).storage[again] is Storage.VIEW
    by_allocation = {f.allocation: f for f in fences(g)}
    assert by_allocation[node(g, ds)].group == (node(g, ds),)


def test_the_group_takes_fused_and_duplicated_values_and_reshapes() -> None:
    g = SbpGraph((2,))
    s = g.add_argument("s", BIG, layout=(S(0),))
    v = g.add_argument("v", SMALL, layout=(S(0),))
    p = op(g, EXP, s)
    dp = op(g, DOT, s, s)
    dv = op(g, DOT, p, v, t=SMALL)
    view = op(g, RESHAPE, dp)  # a view of a stored value
    n = op(g, NEG, view)  # duplicated: stored for the product, fused in ds
    q = op(g, DOT, n, s)
    ds = op(g, MUL, n, s)
    for name, value in (("dv", dv), ("q", q), ("ds", ds)):
        g.add_result(name, value, (S(0),))
    by_allocation = {f.allocation: f for f in fences(g)}
    assert by_allocation[node(g, ds)].group == (node(g, view), node(g, n), node(g, ds))


def test_a_replicated_layout_counts_the_whole_tensor() -> None:
    g = SbpGraph((2,))
    s = g.add_argument("s", BIG, layout=(B,))
    big = Signature(((B,),), ((B,),))
    (p,) = g.add_op(EXP, [s], [BIG], [big], kind=EXP)
    (dv,) = g.add_op(DOT, [p, s], [SMALL], [Signature(((B,), (B,)), ((B,),))], kind=DOT)
    (dp,) = g.add_op(DOT, [s, s], [BIG], [Signature(((B,), (B,)), ((B,),))], kind=DOT)
    g.add_result("dv", dv, (B,))
    g.add_result("dp", dp, (B,))
    # 2 KiB per device: over 1.5 KiB, where the split tensors were not.
    assert [f.freed for f in fences(g, min_bytes=1536)] == [(p,)]
