"""Order fences: the memory model's order, kept where the buffers are large.

The memory model runs ops in program order (``memory``: "Not modelled: the
scheduler's reordering"); XLA's scheduler does not.  On Llama-3-70B's
attention backward XLA:GPU ran the product ``dV = P^T dO`` after the
scores' gradient, so the bf16 probabilities ``P`` (8 GiB per device) stayed
alive across the step's peak: 83.0 GiB compiled against 73.5 planned
(docs/memory.md).  A fence makes the model's order the program's where it
decides the peak: when the last reader of a large buffer comes before a
large allocation in program order and the allocation does not depend on
it, the allocating op and the ops fused into it read their buffers through
an ``optimization_barrier`` with the reader's results (``sbp-propagate``
writes it, ``passes/bridge/fences.py``), so the reader runs, and frees
its buffer, first.

Which pairs: per large allocation (a stored result of at least
``min_bytes`` per device), the readers that free a large buffer since the
``WINDOW``-th large allocation before it.  Allocations stay
unordered among themselves and everything small is left to the scheduler,
so communication still overlaps compute.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from sbpc.algebra.sbp import NdSbp
from sbpc.ops.fusion import Fusion, fusion_of
from sbpc.propagation.graph import NodeId, OpNode, SbpGraph, ValueId
from sbpc.propagation.liveness import Liveness, Storage
from sbpc.propagation.memory import local_bytes

# The default ``min_bytes``: this fraction of the device's memory (1.25 GB
# of an 80 GB GPU: the attention scores and probabilities of a large
# model's layer, not its weights or activations per layer).
FENCE_FRACTION = 64

# How far back an allocation's fence reaches: the frees since this many
# large allocations before it.  An allocation that XLA fuses from a chain
# the model stores in parts (a reduction's input, then the fusion reading
# both) is several allocations in the model; windows of one and two
# missed Llama-3-70B's attention backward (docs/memory.md).
WINDOW = 4

# Values with a buffer of their own that an op allocates.
_BUFFERED = (Storage.STORED, Storage.DUPLICATED)
# Values XLA recomputes inside the fusion that reads them.
_RECOMPUTED = (Storage.FUSED, Storage.DUPLICATED)


@dataclass(frozen=True)
class Fence:
    """``readers`` run before ``allocation``: ``group`` (the allocation and
    the ops XLA fuses into it, in program order) reads its buffers through
    a barrier with the readers' results.  ``freed``: the large buffers the
    readers free (the reason, for reports and tests)."""

    readers: tuple[NodeId, ...]
    allocation: NodeId
    group: tuple[NodeId, ...]
    freed: tuple[ValueId, ...]


def order_fences(
    graph: SbpGraph,
    layouts: Sequence[NdSbp],
    min_bytes: float,
) -> list[Fence]:
    """The fences that keep each free of a buffer of at least ``min_bytes``
    per device (in ``layouts``) before the next ``WINDOW`` allocations of
    one, those that do not read the freeing op's results already."""
    liveness = Liveness.of(graph)
    storage, step = liveness.storage, liveness.step
    at_step = {s: n for n, s in step.items()}

    def size(v: ValueId) -> float:
        return local_bytes(graph.values[v].tensor, layouts[v], graph.hierarchy)

    def large(v: ValueId) -> bool:
        return storage[v] in _BUFFERED and size(v) >= min_bytes

    frees: dict[NodeId, list[ValueId]] = {}
    for value in graph.values:
        end = liveness.buffer_end[value.id]
        if end % 2 or end <= liveness.defined(graph, value.id) or not large(value.id):
            continue
        reader = graph.nodes[at_step[end // 2]]
        # The barrier holds the reader's results: they must be stored anyway
        # (a duplicated one would be, where XLA recomputes it).
        if (
            isinstance(reader, OpNode)
            and reader.results
            and all(storage[r] is Storage.STORED for r in reader.results)
        ):
            frees.setdefault(reader.id, []).append(value.id)
    readers = sorted(frees, key=step.__getitem__)
    reader_steps = [step[r] for r in readers]

    fences: list[Fence] = []
    previous = [0] * WINDOW  # the last allocations' steps, oldest first
    for node in graph.ops():
        if not any(large(r) for r in node.results):
            continue
        here = step[node.id]
        lo = bisect.bisect_left(reader_steps, previous[0])
        hi = bisect.bisect_left(reader_steps, here)
        previous = [*previous[1:], here]
        before = [r for r in readers[lo:hi] if not _depends(graph, step, node.id, r)]
        if before:
            fences.append(
                Fence(
                    tuple(before),
                    node.id,
                    _fused_group(graph, storage, step, node.id),
                    tuple(v for r in before for v in frees[r]),
                )
            )
    return fences


def _depends(
    graph: SbpGraph, step: dict[NodeId, int], node: NodeId, on: NodeId
) -> bool:
    """Whether ``node`` reads a result of ``on``, directly or through ops
    (only ops at or after ``on``'s step can)."""
    floor = step[on]
    seen = {node}
    stack = [node]
    while stack:
        n = graph.nodes[stack.pop()]
        if not isinstance(n, OpNode):
            continue
        for v in n.operands:
            producer = graph.values[v].producer
            if producer == on:
                return True
            if producer not in seen and step.get(producer, -1) > floor:
                seen.add(producer)
                stack.append(producer)
    return False


def _fused_group(
    graph: SbpGraph, storage: Sequence[Storage], step: dict[NodeId, int], node: NodeId
) -> tuple[NodeId, ...]:
    """``node`` and the ops whose results it recomputes, transitively, in
    program order: fused and duplicated values (a barrier holding them
    would make XLA store them), and reshapes (bitcasts: free to repeat).
    Other views stay outside: an op equal to a stored one is that buffer
    (XLA merges them), and a copy after the barrier would be computed
    and stored anew."""
    group = {node}
    stack = [node]
    while stack:
        n = graph.nodes[stack.pop()]
        assert isinstance(n, OpNode)
        for v in n.operands:
            producer = graph.nodes[graph.values[v].producer]
            if producer.id in group or not isinstance(producer, OpNode):
                continue
            if storage[v] in _RECOMPUTED or (
                storage[v] is Storage.VIEW and fusion_of(producer.kind) is Fusion.VIEW
            ):
                group.add(producer.id)
                stack.append(producer.id)
    return tuple(sorted(group, key=step.__getitem__))
