"""MindSpore's sharding propagation: seed 004's FFN on 8 devices as [2, 4]."""

from __future__ import annotations

import itertools
import math

from sbpc.algebra.sbp import B, NdSbp, P, Partial, S, Split
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.driver import propagate
from sbpc.propagation.graph import SbpGraph


def derive(*args, **kwargs):
    """The strategy's own choice (MindSpore), without the driver's local
    improvement (``improve.py``), which these tests are not about."""
    return propagate(*args, improve=False, **kwargs)


HIER = (2, 4)
BANDWIDTH = 100e9  # bytes/s on every hierarchy dimension

# 1-D signatures, written out by hand (OneFlow's matmul, seed 000).
MATMUL_1D = [
    Signature((S(0), B), (S(0),)),
    Signature((B, S(1)), (S(1),)),
    Signature((S(1), S(0)), (P,)),
    Signature((P, B), (P,)),
    Signature((B, P), (P,)),
    Signature((B, B), (B,)),
]
# y[m, n] + b[n]: the bias is split along n when y is.
BIAS_ADD_1D = [
    Signature((S(0), B), (S(0),)),
    Signature((S(1), S(0)), (S(1),)),
    Signature((P, P), (P,)),
    Signature((B, B), (B,)),
]
RELU_1D = [
    Signature((S(0),), (S(0),)),
    Signature((S(1),), (S(1),)),
    Signature((B,), (B,)),
]


def nd_product(sigs_1d: list[Signature]) -> list[Signature]:
    """OneFlow's direct product: one 1-D signature per hierarchy dimension."""
    out = []
    for combo in itertools.product(sigs_1d, repeat=len(HIER)):
        ins = tuple(
            tuple(c.inputs[k] for c in combo) for k in range(len(combo[0].inputs))
        )
        outs = tuple(
            tuple(c.outputs[r] for c in combo) for r in range(len(combo[0].outputs))
        )
        out.append(Signature(ins, outs))
    return out


def one_dim_bytes(src, dst, n: int, t: float) -> float:
    """DESIGN.md's ring table: bytes each device sends on one dimension."""
    if src == dst:
        return 0.0
    if isinstance(dst, Partial) or (src == B and isinstance(dst, Split)):
        return 0.0  # local: keep one copy / slice / place the shard in zeros
    if isinstance(src, Split):
        return (n - 1) / n * t if dst == B else (n - 1) / n**2 * t
    if isinstance(src, Partial):
        return 2 * (n - 1) / n * t if dst == B else (n - 1) / n * t
    raise AssertionError((src, dst))


def ring_bytes(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
    total = 0.0
    for d, (a, b) in enumerate(zip(src, dst, strict=True)):
        others = math.prod(
            n for e, n in enumerate(HIER) if e != d and isinstance(src[e], Split)
        )
        total += one_dim_bytes(a, b, HIER[d], tensor.nbytes / others)
    return total


def ring_time(src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
    return ring_bytes(src, dst, tensor) / BANDWIDTH


ARG_LAYOUTS = [nd for nd in itertools.product([B, S(0), S(1)], repeat=2)]
MAT = TensorType((64, 64))
VEC = TensorType((64,))


def ffn(configure: bool = True, relu: Signature | None = None) -> SbpGraph:
    g = SbpGraph(HIER)
    vec_layouts = [nd for nd in ARG_LAYOUTS if S(1) not in nd]
    x = g.add_argument("x", MAT, candidates=ARG_LAYOUTS)
    w1 = g.add_argument("w1", MAT, candidates=ARG_LAYOUTS)
    b1 = g.add_argument("b1", VEC, candidates=vec_layouts)
    w2 = g.add_argument("w2", MAT, candidates=ARG_LAYOUTS)
    # MindSpore's matmul.shard(((2, 1), (1, 4))) as an nd signature.
    conf = Signature(((S(0), B), (B, S(1))), ((S(0), S(1)),))
    (y,) = g.add_op(
        "matmul1",
        [x, w1],
        [MAT],
        nd_product(MATMUL_1D),
        fixed=conf if configure else None,
    )
    (h,) = g.add_op("add1", [y, b1], [MAT], nd_product(BIAS_ADD_1D))
    (r,) = g.add_op("relu", [h], [MAT], nd_product(RELU_1D), fixed=relu)
    (z,) = g.add_op("matmul2", [r, w2], [MAT], nd_product(MATMUL_1D))
    g.add_result("out", z, (S(0), S(1)))
    return g


def sig(text: str) -> Signature:
    from sbpc.algebra.signature import parse_signature

    return parse_signature(text)


def test_ffn_propagates_from_the_configured_matmul() -> None:
    plan = derive(ffn(), ring_time, "bfs", edge_bytes=ring_bytes)
    assert plan.signature_of("matmul1") == sig(
        "([S(0), B], [B, S(1)]) -> ([S(0), S(1)])"
    )
    assert plan.signature_of("add1") == sig(
        "([S(0), S(1)], [B, S(0)]) -> ([S(0), S(1)])"
    )
    assert plan.signature_of("relu") == sig("([S(0), S(1)]) -> ([S(0), S(1)])")
    assert plan.signature_of("matmul2") == sig(
        "([S(0), S(1)], [B, S(0)]) -> ([S(0), P(sum)])"
    )
    # Free arguments reached by the walk take exactly what their consumer wants.
    assert plan.layout_of("x") == (S(0), B)
    assert plan.layout_of("w1") == (B, S(1))
    assert plan.layout_of("b1") == (B, S(0))
    assert plan.layout_of("w2") == (B, S(0))
    # The only change left: the partial sum of matmul2 is reduced (scattered).
    [change] = plan.changes
    assert (change.src, change.dst) == ((S(0), P), (S(0), S(1)))
    assert change.bytes == 3 / 4 * MAT.nbytes / 2  # reduce_scatter over 4 of 32x64
    assert change.time > 0
    assert plan.stats == {"seeds": 1, "reached": 7}


def test_bfs_stops_at_configured_ops() -> None:
    # Configure relu as data parallel: the walk from matmul1 must not change it.
    plan = derive(ffn(relu=sig("([S(0), B]) -> ([S(0), B])")), ring_time, "bfs")
    assert plan.signature_of("relu") == sig("([S(0), B]) -> ([S(0), B])")
    assert plan.signature_of("matmul1") == sig(
        "([S(0), B], [B, S(1)]) -> ([S(0), S(1)])"
    )


def test_unconfigured_graph_falls_back_to_greedy() -> None:
    g = ffn(configure=False)
    assert derive(g, ring_time, "bfs").options == derive(g, ring_time, "greedy").options


def test_bfs_is_never_worse_than_its_seed_on_the_ffn() -> None:
    plan_b = derive(ffn(), ring_time, "bfs")
    plan_g = derive(ffn(), ring_time, "greedy")
    assert plan_b.total_time <= plan_g.total_time
