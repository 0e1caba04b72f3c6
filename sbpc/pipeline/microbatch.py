"""Microbatches as SBP over time: which ops run per microbatch.

Time is one more hierarchy dimension, of ``count`` microbatches run one
after the other.  The batch arguments are ``S(dim)`` over it; every other
argument is ``B`` (the same for every microbatch).  The op rules then say
what each value is over time, as they say it over devices:

- ``S(k)``: per microbatch (an activation): its op runs inside the loop, on
  the microbatch's piece;
- ``B`` before the loop (``pre``): computed once from the parameters (a
  weight's transpose, a mask);
- ``P(sum)``: a per-microbatch *contribution* to a sum (a weight gradient:
  a product contracting the batch; the loss: a mean over it).  Linear ops
  keep it in the loop; the first op that needs the sum gets it from an
  ``sbp.accumulate``: summed over the microbatches, reduced once;
- ``B`` after the loop (``post``): computed once from accumulated sums (the
  optimizer update).

Time is not a parallel dimension, so nothing is searched here: the rules
leave one choice per op (the fewest microbatch slices of values from before
the loop).  A program whose op needs a sum over the whole batch *inside* the
loop (batch-norm statistics), or a batch-split value whole (a sort along the
batch), cannot be microbatched: ``MicrobatchError`` at that op.

Three refinements keep the loop small: an op before the loop whose only
uses take it split is moved into the loop when it can compute its split
directly (a mask broadcast to the batch shape: no full-batch copy), and an
accumulation is moved back through ops that only scale, reshape or convert
one contribution (Adam's ``(1 - b1) * g``: one accumulator per gradient).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from sbpc.algebra.layout import UnevenSplitError, check_even
from sbpc.algebra.sbp import B, Partial, Sbp, Split
from sbpc.algebra.signature import Signature
from sbpc.ops.halo import halos
from sbpc.ops.registry import local_op, local_op_varies, signatures_1d
from sbpc.ops.spec import OpSpec

from .function import Function, ValueId

SUM = Partial("sum")


class Phase(StrEnum):
    """Where an op runs relative to the microbatch loop."""

    PRE = "pre"
    LOOP = "loop"
    POST = "post"


class MicrobatchError(ValueError):
    """The step cannot be microbatched; ``node`` is the op at fault (None:
    the function)."""

    def __init__(self, message: str, node: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.node = node


@dataclass
class Microbatching:
    """The analysis of a step over ``count`` microbatches.

    ``phase``: per node.  ``time``: per value, its layout over time (``B``
    for values outside the loop; ``after`` holds those computed after it).
    ``signature``: the 1-D signature over time of each loop node.
    ``slices``: per ``(node, operand index)`` of a loop node reading a value
    from before the loop split, the dim it is split along (an
    ``sbp.microbatch`` of it).  ``accumulated``: loop values summed over the
    microbatches (an ``sbp.accumulate`` each), in program order.
    ``batch``: the batch arguments and their dims.
    """

    count: int
    phase: list[Phase]
    time: dict[ValueId, Sbp]
    after: set[ValueId]
    signature: dict[int, Signature]
    slices: dict[tuple[int, int], int]
    accumulated: list[ValueId]
    batch: dict[ValueId, int]

    def loop_nodes(self) -> list[int]:
        return [n for n, p in enumerate(self.phase) if p is Phase.LOOP]

    def per_microbatch(self, spec: OpSpec, node: int) -> OpSpec:
        """The op one microbatch runs (``local_op`` over time)."""
        return per_microbatch(spec, self.signature[node], self.count)


def per_microbatch(spec: OpSpec, sig: Signature, count: int) -> OpSpec:
    """``spec`` on one microbatch under ``sig`` over time; an op whose
    attributes depend on *which* microbatch (an iota along the batch) has no
    single per-microbatch form: ``MicrobatchError``."""
    first = local_op(spec, sig, (count,), (0,))
    if count > 1 and local_op_varies(spec.name):
        last = local_op(spec, sig, (count,), (count - 1,))
        if last != first:
            raise MicrobatchError(
                f"'{spec.name}' differs between microbatches (its attributes "
                "depend on the microbatch's position in the batch)"
            )
    return first


@dataclass
class _State:
    """The forward walk's state: each value's layout over time."""

    f: Function
    count: int
    time: dict[ValueId, Sbp] = field(default_factory=dict)
    after: set[ValueId] = field(default_factory=set)
    # Zeros from before the loop: their own partial pieces (a sum's init).
    zeros: set[ValueId] = field(default_factory=set)

    def even(self, v: ValueId, s: Sbp) -> bool:
        if not isinstance(s, Split):
            return True
        try:
            check_even(self.f.types[v].shape, (s,), (self.count,))
        except UnevenSplitError:
            return False
        return True


def analyze(f: Function, batch: Mapping[ValueId, int], count: int) -> Microbatching:
    """Each op's phase and each value's layout over ``count`` microbatches,
    the batch arguments ``batch`` (value -> dim) split over time."""
    if count < 1:
        raise MicrobatchError(f"microbatches must be at least 1, not {count}")
    st = _State(f, count, zeros=_zeros(f))
    for a in f.args:
        st.time[a] = B
    for a, dim in batch.items():
        t = f.types[a]
        if not 0 <= dim < t.rank:
            raise MicrobatchError(f"batch argument of type {t} has no dim {dim}")
        if not st.even(a, Split(dim)):
            raise MicrobatchError(
                f"{count} microbatches do not divide the batch dim {dim} of "
                f"an argument of type {t}"
            )
        st.time[a] = Split(dim)
    phase: list[Phase] = []
    signature: dict[int, Signature] = {}
    slices: dict[tuple[int, int], int] = {}
    must_sum: set[ValueId] = set()
    for n in range(len(f.nodes)):
        ph, sig, sliced, summed = _classify(st, n)
        phase.append(ph)
        if sig is not None:
            signature[n] = sig
        for i, dim in sliced.items():
            slices[(n, i)] = dim
        must_sum |= summed
    for i, v in enumerate(f.returns):
        s = st.time.get(v, B)
        if isinstance(s, Split):
            raise MicrobatchError(
                f"result #{i} is per microbatch (split over time along dim "
                f"{s.axis}): a step must return values of the whole batch"
            )
        if s == SUM:
            must_sum.add(v)
    mb = Microbatching(
        count,
        phase,
        st.time,
        st.after,
        signature,
        slices,
        [],
        {a: d for a, d in batch.items()},
    )
    _sink_into_loop(f, mb)
    _accumulate_late(f, mb, must_sum)
    return mb


def _classify(
    st: _State, n: int
) -> tuple[Phase, Signature | None, dict[int, int], set[ValueId]]:
    """Node ``n``'s phase, its signature over time (loop nodes), the operands
    it takes sliced, and the contributions it needs summed."""
    node = st.f.nodes[n]
    states = [st.time.get(v, B) for v in node.operands]
    looped = any(s != B for s in states)
    if not looped:
        post = any(v in st.after for v in node.operands)
        for r in node.results:
            st.time[r] = B
            if post:
                st.after.add(r)
        return (Phase.POST if post else Phase.PRE), None, {}, set()
    if node.identity:
        (s,) = states
        for r in node.results:
            st.time[r] = s
        return Phase.LOOP, Signature(((s,),), ((s,),) * len(node.results)), {}, set()
    if node.spec is None:
        raise MicrobatchError(
            "this op computes on per-microbatch values but sbp-pipeline cannot "
            "read it (an op with regions over microbatch values is not supported)",
            n,
        )
    best: tuple[int, Signature, dict[int, int]] | None = None
    for sig in signatures_1d(node.spec):
        got = _match(st, n, sig, states)
        if got is not None and (best is None or len(got) < best[0]):
            best = (len(got), sig, got)
    if best is not None:
        _, sig, sliced = best
        for r, (s,) in zip(node.results, sig.outputs, strict=True):
            st.time[r] = s
        return Phase.LOOP, sig, sliced, set()
    # No signature keeps the loop's values as they are: the op needs sums.
    split = [i for i, s in enumerate(states) if isinstance(s, Split)]
    partial = [i for i, s in enumerate(states) if s == SUM]
    if split and partial:
        raise MicrobatchError(
            f"'{node.spec.name}' needs operand #{partial[0]} summed over the whole "
            f"batch while it runs on one microbatch (operand #{split[0]}): a "
            "statistic of the batch used inside the step (batch normalization) "
            "makes the step impossible to microbatch",
            n,
        )
    after = [i for i, v in enumerate(node.operands) if v in st.after]
    if split and after:
        raise MicrobatchError(
            f"'{node.spec.name}' uses operand #{after[0]}, computed from sums over "
            f"the whole batch, while it runs on one microbatch (operand "
            f"#{split[0]}): a statistic of the batch used inside the step makes "
            "the step impossible to microbatch",
            n,
        )
    if split:
        i = split[0]
        s = states[i]
        assert isinstance(s, Split)
        raise MicrobatchError(
            f"'{node.spec.name}' needs its operand #{i} whole, but it is split "
            f"over microbatches along dim {s.axis} (an op across the batch, such "
            "as a sort or a scan along it, cannot run one microbatch at a time)",
            n,
        )
    for r in node.results:
        st.time[r] = B
        st.after.add(r)
    return Phase.POST, None, {}, {node.operands[i] for i in partial}


def _match(
    st: _State, n: int, sig: Signature, states: list[Sbp]
) -> dict[int, int] | None:
    """The operands ``sig`` takes sliced (index -> dim) if ``sig`` keeps the
    loop's values as they are over time; None if it does not."""
    node = st.f.nodes[n]
    sliced: dict[int, int] = {}
    for i, (s, (want,)) in enumerate(zip(states, sig.inputs, strict=True)):
        v = node.operands[i]
        if s != B:
            if want != s:
                return None
        elif v in st.after or (isinstance(want, Partial) and v not in st.zeros):
            return None
        elif isinstance(want, Split):
            if not st.even(v, want):
                return None
            sliced[i] = want.axis
    for r, (out,) in zip(node.results, sig.outputs, strict=True):
        if out == B or (isinstance(out, Partial) and out != SUM):
            return None
        if not st.even(r, out):
            return None
    if _needs_halo(node.spec, sig, st.count):
        return None  # a window across microbatches: no exchange over time
    return sliced


def _needs_halo(spec: OpSpec | None, sig: Signature, count: int) -> bool:
    if spec is None:
        return False
    try:
        return bool(halos(spec, sig, (count,)))
    except ValueError:
        return True


# Ops that keep a zero zero: a zero constant broadcast, reshaped or converted.
_KEEPS_ZERO = frozenset(
    {
        "stablehlo.broadcast_in_dim",
        "stablehlo.reshape",
        "stablehlo.convert",
        "stablehlo.transpose",
    }
)


def _zeros(f: Function) -> set[ValueId]:
    """Values that are all zeros by construction: a zero taken once per
    microbatch sums to zero, so it is its own ``P(sum)`` over time (the init
    of a sum, the zeros a gradient is scattered into)."""
    out: set[ValueId] = set()
    for node in f.nodes:
        spec = node.spec
        if spec is None or len(node.results) != 1:
            continue
        if spec.name in ("stablehlo.constant", "arith.constant"):
            value = spec.attr("value")
            if value is not None and not np.any(np.asarray(value)):
                out.add(node.results[0])
        elif spec.name in _KEEPS_ZERO and node.operands[0] in out:
            out.add(node.results[0])
    return out


def _sink_into_loop(f: Function, mb: Microbatching) -> None:
    """Move into the loop an op from before it whose every use takes its one
    result split along one dim, when it can compute that split from its
    operands unsplit or themselves split (a broadcast to the batch shape): the
    loop then never holds a full-batch copy.  Walking backwards, a chain of
    such ops moves together.  Ops whose attributes vary by position (iota,
    constants) stay before the loop and are sliced."""
    for n in reversed(range(len(f.nodes))):
        node = f.nodes[n]
        if mb.phase[n] is not Phase.PRE or node.spec is None or node.identity:
            continue
        if len(node.results) != 1 or not node.operands:
            continue
        (r,) = node.results
        uses = f.uses(r)
        if not uses or r in f.returns:
            continue
        dims = {mb.slices.get(u) for u in uses}
        if len(dims) != 1 or None in dims:
            continue
        (dim,) = dims
        assert dim is not None
        best: Signature | None = None
        for sig in signatures_1d(node.spec):
            if sig.outputs != ((Split(dim),),):
                continue
            ins = [s for (s,) in sig.inputs]
            if any(not (s == B or isinstance(s, Split)) for s in ins):
                continue
            if any(
                isinstance(s, Split) and not _even(f, mb.count, v, s)
                for v, s in zip(node.operands, ins, strict=True)
            ):
                continue
            if _varies_over_time(node.spec, sig, mb.count):
                continue
            if best is None or _splits(sig) < _splits(best):
                best = sig
        if best is None:
            continue
        mb.phase[n] = Phase.LOOP
        mb.signature[n] = best
        mb.time[r] = Split(dim)
        for u in uses:
            del mb.slices[u]
        for i, (s,) in enumerate(best.inputs):
            if isinstance(s, Split):
                mb.slices[(n, i)] = s.axis


def _varies_over_time(spec: OpSpec, sig: Signature, count: int) -> bool:
    """Whether the op's attributes under ``sig`` depend on the microbatch's
    position (an iota along the batch, a constant, a gather from rows split
    over time): such ops stay before the loop and are sliced."""
    try:
        per_microbatch(spec, sig, count)
    except MicrobatchError:
        return True
    return False


def _splits(sig: Signature) -> int:
    return sum(isinstance(s, Split) for (s,) in sig.inputs)


def _even(f: Function, count: int, v: ValueId, s: Split) -> bool:
    try:
        check_even(f.types[v].shape, (s,), (count,))
    except UnevenSplitError:
        return False
    return True


def _accumulate_late(f: Function, mb: Microbatching, must_sum: set[ValueId]) -> None:
    """The contributions to sum: those the loop's consumers need summed,
    moved back through loop ops that only transform one contribution (a
    scale, a reshape, a convert) when nothing in the loop uses their result;
    such an op then runs once after the loop.  Fills ``mb.accumulated``."""
    todo = set(must_sum)
    done: set[ValueId] = set()
    while todo:
        v = todo.pop()
        n = f.producer.get(v)
        if n is not None and _moves_after(f, mb, n):
            node = f.nodes[n]
            mb.phase[n] = Phase.POST
            del mb.signature[n]
            for i in range(len(node.operands)):
                mb.slices.pop((n, i), None)
            for r in node.results:
                mb.time[r] = B
                mb.after.add(r)
            for u in node.operands:
                if mb.time.get(u) == SUM:
                    todo.add(u)
            continue
        done.add(v)
    order = {v: k for k, v in enumerate(_definition_order(f))}
    mb.accumulated = sorted(done, key=lambda v: order.get(v, -1))


def _moves_after(f: Function, mb: Microbatching, n: int) -> bool:
    """Whether loop node ``n`` can run after the loop instead: one result,
    exactly one operand a contribution, the others from before the loop, and
    no loop op using its result."""
    if mb.phase[n] is not Phase.LOOP:
        return False
    node = f.nodes[n]
    if len(node.results) != 1:
        return False
    states = [mb.time.get(u, B) for u in node.operands]
    if sum(s == SUM for s in states) != 1 or any(isinstance(s, Split) for s in states):
        return False
    (r,) = node.results
    return all(mb.phase[m] is Phase.POST for m, _ in f.uses(r))


def _definition_order(f: Function) -> list[ValueId]:
    return [*f.args, *(r for node in f.nodes for r in node.results)]
