"""Synthetic propagation graphs: realistic candidate lists and a ring cost.

Stand-ins for the op-rule registry and the cost model (which live in their
own modules) so that the strategies can be tested and benchmarked alone:

- 1-D signature sets of common ops (OneFlow's matmul, elementwise, bias add,
  reductions, transpose, row-wise softmax/layernorm) and their N-D direct
  product (seed 003), filtered by even splits of the actual shapes;
- ``RingCost``: DESIGN.md's ring table per hierarchy dimension, bytes turned
  into time by a per-dimension bandwidth and latency;
- ``compute_costs``: an op's work divided by the devices that share it;
- ``random_graph`` (small DAGs for the brute-force proofs) and
  ``transformer_graph`` (layers of attention and MLP blocks with residual
  connections, for the benchmark).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sbpc.algebra.layout import is_even
from sbpc.algebra.sbp import B, Broadcast, NdSbp, P, Partial, S, Sbp, Split
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.graph import SbpGraph, SourceNode, ValueId


def sig1(ins: Sequence[Sbp], out: Sbp) -> Signature:
    return Signature(tuple((s,) for s in ins), ((out,),))


# (m, k) x (k, n) -> (m, n), OneFlow's matmul_op.cpp plus all-broadcast.
MATMUL = (
    sig1([S(0), B], S(0)),
    sig1([B, S(1)], S(1)),
    sig1([S(1), S(0)], P),
    sig1([P, B], P),
    sig1([B, P], P),
    sig1([B, B], B),
)
# Same-shape binary elementwise add (OneFlow's add_n).
ADD = (
    sig1([S(0), S(0)], S(0)),
    sig1([S(1), S(1)], S(1)),
    sig1([P, P], P),
    sig1([B, B], B),
)
# y[m, n] + b[n].
BIAS_ADD = (
    sig1([S(0), B], S(0)),
    sig1([S(1), S(0)], S(1)),
    sig1([P, P], P),
    sig1([B, B], B),
)
# Non-linear elementwise (relu, gelu): partial sums do not pass through.
UNARY = (sig1([S(0)], S(0)), sig1([S(1)], S(1)), sig1([B], B))
# Linear elementwise (scale, negate): partial sums pass through.
LINEAR = (*UNARY, sig1([P], P))
# Row-wise softmax or layernorm over dim 1: dim 1 must stay whole.
ROWWISE = (sig1([S(0)], S(0)), sig1([B], B))
# Sum over dim 1 of (m, n) -> (m,).
REDUCE_SUM_1 = (sig1([S(0)], S(0)), sig1([S(1)], P), sig1([B], B), sig1([P], P))
TRANSPOSE = (sig1([S(0)], S(1)), sig1([S(1)], S(0)), sig1([B], B), sig1([P], P))

ONE_D_SETS: dict[str, tuple[Signature, ...]] = {
    "matmul": MATMUL,
    "add": ADD,
    "bias_add": BIAS_ADD,
    "unary": UNARY,
    "linear": LINEAR,
    "rowwise": ROWWISE,
    "reduce_sum_1": REDUCE_SUM_1,
    "transpose": TRANSPOSE,
}


def nd_product(sigs_1d: Sequence[Signature], ndim: int) -> tuple[Signature, ...]:
    """OneFlow's N-D candidates: one 1-D signature per hierarchy dimension."""
    out = []
    for combo in itertools.product(sigs_1d, repeat=ndim):
        n_in, n_out = len(combo[0].inputs), len(combo[0].outputs)
        ins = tuple(tuple(c.inputs[k][0] for c in combo) for k in range(n_in))
        outs = tuple(tuple(c.outputs[r][0] for c in combo) for r in range(n_out))
        out.append(Signature(ins, outs))
    return tuple(out)


def even_candidates(
    sigs: Sequence[Signature],
    inputs: Sequence[TensorType],
    outputs: Sequence[TensorType],
    hierarchy: Sequence[int],
) -> tuple[Signature, ...]:
    """Candidates whose every split divides its tensor evenly."""
    return tuple(
        sig
        for sig in sigs
        if all(
            is_even(t.shape, nd, hierarchy)
            for t, nd in zip(inputs, sig.inputs, strict=True)
        )
        and all(
            is_even(t.shape, nd, hierarchy)
            for t, nd in zip(outputs, sig.outputs, strict=True)
        )
    )


def one_dim_bytes(src: Sbp, dst: Sbp, n: int, nbytes: float) -> float:
    """DESIGN.md's ring table: bytes each device sends on one dimension of n."""
    if src == dst or n == 1:
        return 0.0
    if isinstance(dst, Partial) and not isinstance(src, Partial):
        return 0.0  # keep one copy / place the shard in zeros
    if isinstance(src, Broadcast):
        return 0.0  # local slice
    if isinstance(src, Split):
        if isinstance(dst, Broadcast):
            return (n - 1) / n * nbytes  # all_gather
        return (n - 1) / n**2 * nbytes  # all_to_all
    # src is partial
    if isinstance(dst, Split):
        return (n - 1) / n * nbytes  # reduce_scatter
    return 2 * (n - 1) / n * nbytes  # all_reduce (to B, or to another partial kind)


@dataclass(frozen=True)
class RingCost:
    """Per-dimension ring costs; a dimension sees the tensor already divided
    by the splits of the other dimensions.  A simple, monotone stand-in for
    the boxing planner (which finds better orders for N-D changes)."""

    hierarchy: tuple[int, ...]
    bandwidth: tuple[float, ...] = ()  # bytes/s per dimension, default 100 GB/s
    latency: tuple[float, ...] = ()  # s per collective per dimension

    def _dims(
        self, src: NdSbp, dst: NdSbp, tensor: TensorType
    ) -> list[tuple[int, float]]:
        out = []
        for d, (a, b) in enumerate(zip(src, dst, strict=True)):
            others = math.prod(
                n
                for e, n in enumerate(self.hierarchy)
                if e != d and isinstance(src[e], Split)
            )
            out.append(
                (d, one_dim_bytes(a, b, self.hierarchy[d], tensor.nbytes / others))
            )
        return out

    def bytes(self, src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
        return sum(b for _, b in self._dims(src, dst, tensor))

    def time(self, src: NdSbp, dst: NdSbp, tensor: TensorType) -> float:
        total = 0.0
        for d, moved in self._dims(src, dst, tensor):
            if moved > 0:
                bw = self.bandwidth[d] if self.bandwidth else 100e9
                lat = self.latency[d] if self.latency else 0.0
                total += moved / bw + lat
        return total


def compute_costs(
    sigs: Sequence[Signature],
    flops: float,
    hierarchy: Sequence[int],
    flop_rate: float = 100e12,
) -> tuple[float, ...]:
    """Time of each signature: the work is shared along every hierarchy
    dimension where some layout is not ``B`` (all-``B`` dims repeat it)."""
    out = []
    for sig in sigs:
        share = 1
        for d, n in enumerate(hierarchy):
            if any(
                not isinstance(nd[d], Broadcast) for nd in (*sig.inputs, *sig.outputs)
            ):
                share *= n
        out.append(flops / share / flop_rate)
    return tuple(out)


def layouts(ndim: int, rank: int, partial: bool = False) -> tuple[NdSbp, ...]:
    """Every nd_sbp of S(0..rank-1), B (and P) on ``ndim`` dimensions."""
    one = [B, *(S(k) for k in range(rank))] + ([P] if partial else [])
    return tuple(itertools.product(one, repeat=ndim))


class _Builder:
    """Adds ops with their even, direct-product candidates (memoized lists,
    shared between ops of the same kind and shapes as a registry would)."""

    def __init__(self, hierarchy: Sequence[int], with_compute: bool) -> None:
        self.graph = SbpGraph(hierarchy)
        self.hierarchy = tuple(hierarchy)
        self.with_compute = with_compute
        self._cands: dict[tuple, tuple[Signature, ...]] = {}
        self._costs: dict[tuple, tuple[float, ...]] = {}

    def candidates(
        self, kind: str, ins: Sequence[TensorType], outs: Sequence[TensorType]
    ):
        key = (kind, tuple(ins), tuple(outs))
        hit = self._cands.get(key)
        if hit is None:
            full = nd_product(ONE_D_SETS[kind], len(self.hierarchy))
            hit = self._cands[key] = even_candidates(full, ins, outs, self.hierarchy)
        return hit

    def op(
        self,
        kind: str,
        name: str,
        operands: Sequence[ValueId],
        out: TensorType,
        flops: float = 0.0,
        **kwargs,
    ) -> ValueId:
        ins = [self.graph.values[v].tensor for v in operands]
        cands = self.candidates(kind, ins, [out])
        costs = None
        if self.with_compute:
            key = (kind, tuple(ins), out, flops)
            costs = self._costs.get(key)
            if costs is None:
                costs = self._costs[key] = compute_costs(cands, flops, self.hierarchy)
        (v,) = self.graph.add_op(
            name, operands, [out], cands, compute_costs=costs, **kwargs
        )
        return v


def random_graph(
    rng: np.random.Generator,
    hierarchy: Sequence[int],
    n_ops: int,
    max_candidates: int = 4,
    min_candidates: int = 1,
    with_compute: bool = True,
    square: bool = False,
) -> SbpGraph:
    """A random DAG of up to ``n_ops`` ops over 2-D tensors of random sizes;
    each op keeps a random subset (min..max_candidates) of its realistic
    candidates, each free argument a random subset of its layouts.
    ``square``: every tensor 16x16, so binary ops reach back often and the
    graph is rarely series-parallel (the shrinking then leaves a core)."""
    bld = _Builder(hierarchy, with_compute)
    g = bld.graph
    dims = [16] if square else [16, 32]
    n_args = int(rng.integers(1, 4))
    mats: list[ValueId] = []
    for a in range(n_args):
        t = TensorType((int(rng.choice(dims)), int(rng.choice(dims))))
        lays = list(layouts(len(hierarchy), 2))
        lays = [nd for nd in lays if is_even(t.shape, nd, hierarchy)]
        pick = rng.choice(
            len(lays),
            size=min(len(lays), int(rng.integers(max(min_candidates, 1), 4))),
            replace=False,
        )
        given = rng.random() < 0.3
        if given:
            mats.append(g.add_argument(f"a{a}", t, layout=lays[int(pick[0])]))
        else:
            mats.append(
                g.add_argument(f"a{a}", t, candidates=[lays[int(i)] for i in pick])
            )
    for i in range(n_ops):
        # Mostly extend recent values, binary ops reach back: reconvergent paths.
        x = mats[max(len(mats) - 1 - int(rng.geometric(0.5)) + 1, 0)]
        tx = g.values[x].tensor
        m, k = tx.shape
        kinds = ["matmul", "add", "unary", "linear", "transpose", "rowwise"]
        kind = str(rng.choice(kinds, p=[0.3, 0.3, 0.1, 0.1, 0.1, 0.1]))
        if kind == "matmul":
            rhs = [v for v in mats if g.values[v].tensor.shape[0] == k]
            if rhs and rng.random() < 0.6:  # reuse a value: the DAG gets cycles
                w = rhs[int(rng.integers(len(rhs)))]
                n = g.values[w].tensor.shape[1]
            else:
                n = int(rng.choice(dims))
                w = g.add_argument(
                    f"w{i}", TensorType((k, n)), candidates=layouts(len(hierarchy), 2)
                )
            operands, out, flops = [x, w], TensorType((m, n)), 2.0 * m * k * n
        elif kind == "add":
            same = [v for v in mats if g.values[v].tensor == tx]
            y = same[int(rng.integers(len(same)))]
            operands, out, flops = [x, y], tx, float(m * k)
        elif kind == "transpose":
            operands, out, flops = [x], TensorType((k, m)), float(m * k)
        else:
            operands, out, flops = [x], tx, float(m * k)
        ins = [g.values[v].tensor for v in operands]
        cands = bld.candidates(kind, ins, [out])
        if not cands:
            continue
        keep = sorted(
            rng.choice(
                len(cands),
                size=min(
                    len(cands), int(rng.integers(min_candidates, max_candidates + 1))
                ),
                replace=False,
            )
        )
        chosen = tuple(cands[int(j)] for j in keep)
        costs = compute_costs(chosen, flops * 1e6, hierarchy) if with_compute else None
        fixed = chosen[0] if rng.random() < 0.1 else None
        (v,) = g.add_op(
            f"{kind}{i}", operands, [out], chosen, fixed=fixed, compute_costs=costs
        )
        mats.append(v)
    consumed = {g.edges[e].value for node in g.ops() for e in node.in_edges}
    for v in mats:
        if v in consumed or isinstance(g.nodes[g.values[v].producer], SourceNode):
            continue
        t = g.values[v].tensor
        wanted = [
            nd for nd in layouts(len(hierarchy), 2) if is_even(t.shape, nd, hierarchy)
        ]
        pick = wanted[int(rng.integers(len(wanted)))] if rng.random() < 0.7 else None
        g.add_result(f"r{v}", v, pick)
    return g


def transformer_graph(
    n_layers: int,
    hierarchy: Sequence[int],
    seq: int = 2048,
    hidden: int = 1024,
    ffn: int = 4096,
    configure: int = 0,
    dense_skips: int = 0,
) -> SbpGraph:
    """A decoder stack, one head group per layer, ``17 * n_layers + 2`` ops:
    layernorm, q/k/v projections, k transpose, scores, scale, softmax,
    context, output projection, residual add, layernorm, up projection, bias,
    gelu, down projection, residual add; a final sum over the hidden
    dimension.  Weights are free arguments (any S/B layout); the input is
    given data parallel.  ``configure``: how many layers get Megatron-style
    fixed signatures on their projections (the seeds of BFS).
    ``dense_skips``: each layer output also adds the outputs of the layers
    2 .. 1 + dense_skips back (DenseNet-like).  A plain stack is
    series-parallel, which the shrinking solves alone; two or more skips
    give treewidth 3 and leave the ILP a core to solve."""
    bld = _Builder(hierarchy, with_compute=True)
    g = bld.graph
    nd = len(hierarchy)
    act = TensorType((seq, hidden), "bf16")
    wl = layouts(nd, 2)
    x = g.add_argument("x", act, layout=(S(0),) + (B,) * (nd - 1))
    h = x
    col = (S(0),) + (S(1),) * (nd - 1) if nd > 1 else (S(1),)
    weight_layouts: dict[tuple[int, ...], tuple[NdSbp, ...]] = {}

    def weight(name: str, shape: tuple[int, ...]) -> ValueId:
        lays = weight_layouts.get(shape)
        if lays is None:
            lays = weight_layouts[shape] = tuple(
                nd_
                for nd_ in (wl if len(shape) == 2 else layouts(nd, 1))
                if is_even(shape, nd_, hierarchy)
            )
        return g.add_argument(name, TensorType(shape, "bf16"), candidates=lays)

    outputs: list[ValueId] = []
    for layer in range(n_layers):
        p = f"l{layer}."
        conf = layer < configure

        ln1 = bld.op("rowwise", p + "ln1", [h], act, 5.0 * seq * hidden)
        qkv = []
        for name in ("q", "k", "v"):
            w = weight(p + "w" + name, (hidden, hidden))
            fixed = None
            if (
                conf
            ):  # column parallel on the last dimension, data parallel on the first
                fixed = (
                    Signature(
                        ((S(0),) + (B,) * (nd - 1), (B,) + (S(1),) * (nd - 1)), (col,)
                    )
                    if nd > 1
                    else Signature(((B,), (S(1),)), ((S(1),),))
                )
            qkv.append(
                bld.op(
                    "matmul",
                    p + name,
                    [ln1, w],
                    act,
                    2.0 * seq * hidden * hidden,
                    fixed=fixed,
                )
            )
        q, k, v = qkv
        kt = bld.op(
            "transpose", p + "kT", [k], TensorType((hidden, seq), "bf16"), seq * hidden
        )
        scores_t = TensorType((seq, seq), "bf16")
        scores = bld.op(
            "matmul", p + "scores", [q, kt], scores_t, 2.0 * seq * seq * hidden
        )
        scaled = bld.op("linear", p + "scale", [scores], scores_t, seq * seq)
        probs = bld.op("rowwise", p + "softmax", [scaled], scores_t, 5.0 * seq * seq)
        ctx = bld.op("matmul", p + "context", [probs, v], act, 2.0 * seq * seq * hidden)
        wo = weight(p + "wo", (hidden, hidden))
        attn = bld.op("matmul", p + "out", [ctx, wo], act, 2.0 * seq * hidden * hidden)
        h1 = bld.op("add", p + "res1", [h, attn], act, seq * hidden)
        ln2 = bld.op("rowwise", p + "ln2", [h1], act, 5.0 * seq * hidden)
        w1 = weight(p + "w1", (hidden, ffn))
        up = bld.op(
            "matmul",
            p + "up",
            [ln2, w1],
            TensorType((seq, ffn), "bf16"),
            2.0 * seq * hidden * ffn,
        )
        b1 = weight(p + "b1", (ffn,))
        biased = bld.op(
            "bias_add", p + "bias", [up, b1], TensorType((seq, ffn), "bf16"), seq * ffn
        )
        gelu = bld.op(
            "unary",
            p + "gelu",
            [biased],
            TensorType((seq, ffn), "bf16"),
            8.0 * seq * ffn,
        )
        w2 = weight(p + "w2", (ffn, hidden))
        down = bld.op("matmul", p + "down", [gelu, w2], act, 2.0 * seq * hidden * ffn)
        h = bld.op("add", p + "res2", [h1, down], act, seq * hidden)
        for back in range(2, 2 + dense_skips):
            if layer - back >= 0:
                h = bld.op(
                    "add",
                    f"{p}skip{back}",
                    [h, outputs[layer - back]],
                    act,
                    seq * hidden,
                )
        outputs.append(h)
    lnf = bld.op("rowwise", "ln_f", [h], act, 5.0 * seq * hidden)
    total = bld.op(
        "reduce_sum_1", "sum", [lnf], TensorType((seq,), "bf16"), seq * hidden
    )
    g.add_result("loss", total, (B,) * nd)
    return g


def mixed_graphs(
    rng: np.random.Generator,
    hierarchy: Sequence[int],
    n_ops: int,
    candidates: tuple[int, int],
    layers: int,
) -> list[SbpGraph]:
    """Three random square graphs (``random_graph``, ``candidates`` =
    (min, max) options per op) and a transformer stack of ``layers`` with
    dense skips: the mix the solver's equivalence tests plan both ways."""
    low, high = candidates
    graphs = [
        random_graph(
            rng, hierarchy, n_ops, max_candidates=high, min_candidates=low, square=True
        )
        for _ in range(3)
    ]
    return [*graphs, transformer_graph(layers, hierarchy, dense_skips=2)]
