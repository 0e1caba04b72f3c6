"""Which values the compiled program stores, and until when: the memory
model's layout-independent half (``memory.plan_memory`` adds the layouts).

XLA does not store every op result (``sbpc.ops.fusion`` says which op kinds
it fuses), and a fused value is recomputed wherever a consumer needs it, so
it keeps its own operands alive until then.  Per graph, once:

- **storage** of each value: an argument, stored (a buffer), fused (none)
  or a view of another value's buffer (a reshape of a stored value, an
  in-place update of its operand, or a duplicate of an equal op that XLA's
  common-subexpression elimination merges);
- **reads**: the last half-step at which some op reads each value, through
  the fused and viewing values that read it.

Time runs in half-steps: op ``t`` (in program order) runs at ``2t``, the
layout changes after it at ``2t + 1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from weakref import WeakKeyDictionary

from sbpc.ops.fusion import SPREAD, Fusion, divides_cheaply, fusion_of
from sbpc.propagation.graph import OpNode, SbpGraph, SinkNode, ValueId

# Op kinds XLA never merges with an equal op (they have effects or draw
# random numbers).
_NOT_MERGED = frozenset(
    {"stablehlo.custom_call", "stablehlo.rng", "stablehlo.rng_bit_generator"}
)


# Per graph: its sizes when its liveness was computed (a graph only grows:
# they say whether what is kept is still whole), and that liveness.
_KNOWN: WeakKeyDictionary[SbpGraph, tuple[tuple[int, int, int], Liveness]] = (
    WeakKeyDictionary()
)


class Storage(Enum):
    """What the compiled program holds of a value."""

    ARGUMENT = "argument"  # an entry parameter: the whole program
    STORED = "stored"  # a buffer from its definition to its last read
    # A buffer for the ops that read one (a product, a reduction), recomputed
    # inside the fused ones: XLA duplicates an op with one tensor operand.
    DUPLICATED = "duplicated"
    FUSED = "fused"  # recomputed inside its consumers: no buffer
    VIEW = "view"  # another value's buffer (reshape, in-place, duplicate)


@dataclass(frozen=True)
class Liveness:
    """The layout-independent part of the memory model, once per graph.

    ``step``: each op node's step (program order); ``storage``: per value;
    ``read_end``: per value, the last half-step at which some op reads it;
    ``buffer_end``: per value, the last read of its buffer (every read when
    stored; those of the ops that need a buffer when duplicated);
    ``merged_end``: per value, the last read of the duplicates merged into
    it; ``use_end``: per edge, the last half-step its consumer reads it (0
    for a duplicate's operands: the duplicate never runs); ``reads_buffer``:
    per edge, whether that read is of the value's buffer; ``from_buffer``:
    per edge, whether its consumer needs the operand in a buffer (a stored
    op, a reduction, a result) rather than fusing it; ``half_steps``: 2 per
    op (at least 2); ``early``: per value, whether it is an argument or
    computed from them by ops XLA does not store (``_early``).
    """

    step: dict[int, int]
    storage: list[Storage]
    read_end: list[int]
    buffer_end: list[int]
    merged_end: list[int]
    use_end: list[int]
    reads_buffer: list[bool]
    from_buffer: list[bool]
    half_steps: int
    early: list[bool]
    cheap: list[bool]

    @staticmethod
    def of(graph: SbpGraph) -> Liveness:
        """The graph's liveness, computed once per graph: every plan of it
        (each candidate of the combining search, each price of a memory
        budget) reads the same (2 s a time on Llama-3-70B's 80 layers)."""
        sizes = (len(graph.nodes), len(graph.values), len(graph.edges))
        known = _KNOWN.get(graph)
        if known is not None and known[0] == sizes:
            return known[1]
        found = _liveness(graph)
        _KNOWN[graph] = (sizes, found)
        return found

    def defined(self, graph: SbpGraph, value: ValueId) -> int:
        """The half-step at which ``value`` exists (0 for arguments)."""
        return 2 * self.step.get(graph.values[value].producer, 0)


def _liveness(graph: SbpGraph) -> Liveness:
    nodes, values, edges = graph.nodes, graph.values, graph.edges
    step: dict[int, int] = {}
    fusion: dict[int, Fusion] = {}
    for node in nodes:
        if isinstance(node, OpNode):
            step[node.id] = len(step)
            fusion[node.id] = _fusion(graph, node)
    absorbed, from_buffer = _buffer_reads(graph, fusion)
    storage: list[Storage] = []
    cheap = [False] * len(values)
    for value in values:
        producer = nodes[value.producer]
        if not isinstance(producer, OpNode):
            storage.append(Storage.ARGUMENT)
            continue
        role = fusion[producer.id]
        if absorbed[value.id]:
            storage.append(Storage.FUSED)
        elif (
            role is Fusion.VIEW
            and producer.operands
            and (storage[producer.operands[0]] is not Storage.FUSED)
        ) or (role is Fusion.IN_PLACE and _writable(graph, producer)):
            storage.append(Storage.VIEW)
        elif role in (Fusion.STORED, Fusion.REDUCE, Fusion.IN_PLACE) or (
            role is Fusion.NOT_DUPLICATED
            and len({edges[e].dst for e in value.uses}) > 1
        ):
            storage.append(Storage.STORED)
        elif any(from_buffer[e] for e in value.uses):
            duplicable = role is not Fusion.NOT_DUPLICATED and _unary(graph, producer)
            storage.append(Storage.DUPLICATED if duplicable else Storage.STORED)
            cheap[value.id] = role is not Fusion.NOT_DUPLICATED
        else:
            storage.append(Storage.FUSED)
    same = _merge(_duplicates(graph), storage)
    use_end, reads_buffer, read_end, buffer_end, merged_end = _reads(
        graph, step, storage, same, from_buffer
    )
    return Liveness(
        step,
        storage,
        read_end,
        buffer_end,
        merged_end,
        use_end,
        reads_buffer,
        from_buffer,
        max(2 * len(step), 2),
        _early(graph, storage),
        cheap,
    )


def _early(graph: SbpGraph, storage: Sequence[Storage]) -> list[bool]:
    """Per value, whether it is an argument, or computed from such values
    by ops whose results XLA does not store (a broadcast of a bias): XLA
    may compute it anywhere, and runs its collectives first."""
    early = [True] * len(graph.values)
    for node in graph.nodes:  # program order: operands first
        if isinstance(node, OpNode):
            computed = all(early[v] for v in node.operands)
            for r in node.results:
                early[r] = computed and storage[r] is not Storage.STORED
    return early


def _reads(
    graph: SbpGraph,
    step: dict[int, int],
    storage: list[Storage],
    same: list[ValueId],
    from_buffer: list[bool],
) -> tuple[list[int], list[bool], list[int], list[int], list[int]]:
    """Per edge, the last half-step of its read and whether it reads the
    value's buffer; per value, the last read, the last read of its buffer,
    and the last read of its duplicates (``Liveness``).  Last consumer
    first: a fused or viewing consumer reads its operand wherever its own
    result is read (a duplicated one, wherever it is recomputed)."""
    nodes, values, edges = graph.nodes, graph.values, graph.edges
    use_end = [0] * len(edges)
    reads_buffer = [False] * len(edges)
    read_end = [0] * len(values)
    buffer_end = [0] * len(values)
    merged_end = [0] * len(values)
    recomputed = [0] * len(values)  # duplicated values: last recomputation
    for value in reversed(values):
        v = value.id
        defined = 2 * step.get(value.producer, 0)
        end, buffered, fused = max(defined, merged_end[v]), defined, defined
        for e in value.uses:
            consumer = nodes[edges[e].dst]
            if isinstance(consumer, SinkNode) or _is_duplicate(consumer, same):
                continue
            t = 2 * step[consumer.id]
            viewed = False
            for r in consumer.results:
                if storage[r] in (Storage.FUSED, Storage.VIEW):
                    t = max(t, read_end[r])
                    viewed = viewed or storage[r] is Storage.VIEW
                elif storage[r] is Storage.DUPLICATED:
                    t = max(t, recomputed[r])
            use_end[e] = t
            end = max(end, t)
            if storage[v] is Storage.STORED or (
                storage[v] is Storage.DUPLICATED and (from_buffer[e] or viewed)
            ):
                reads_buffer[e] = True
                buffered = max(buffered, t)
            else:
                fused = max(fused, t)
        read_end[v] = end
        recomputed[v] = fused
        buffer_end[v] = max(buffered, merged_end[v])
        original = same[v]
        if original != v:
            merged_end[original] = max(merged_end[original], end)
    return use_end, reads_buffer, read_end, buffer_end, merged_end


def _unary(graph: SbpGraph, node: OpNode) -> bool:
    """Whether ``node`` has at most one operand that is a tensor of its own
    (not a scalar, not a broadcast or a constant): XLA then duplicates it
    into every consumer that fuses it, even when another needs a buffer."""
    tensors = 0
    for v in node.operands:
        value = graph.values[v]
        producer = graph.nodes[value.producer]
        if not value.tensor.shape or (
            isinstance(producer, OpNode) and producer.kind in SPREAD
        ):
            continue
        tensors += 1
    return tensors <= 1


def _is_duplicate(node: OpNode, same: Sequence[ValueId]) -> bool:
    return bool(node.results) and same[node.results[0]] != node.results[0]


def _duplicates(graph: SbpGraph) -> list[ValueId]:
    """Per value, the value of the first equal op (itself if none): same
    kind, same operands (up to duplicates), same candidate signatures (one
    tuple per distinct op content, ``sbpc.ops.registry``), as XLA's
    common-subexpression elimination merges them."""
    same = list(range(len(graph.values)))
    first: dict[tuple[object, ...], OpNode] = {}
    for node in graph.ops():
        if not node.kind or node.kind in _NOT_MERGED or not node.results:
            continue
        key = (
            node.kind,
            tuple(same[v] for v in node.operands),
            id(node.candidates),
            len(node.results),
        )
        original = first.setdefault(key, node)
        if original is not node:
            for mine, theirs in zip(node.results, original.results, strict=True):
                same[mine] = theirs
    return same


def _merge(same: list[ValueId], storage: list[Storage]) -> list[ValueId]:
    """Merge the duplicates XLA keeps one buffer of: where either copy is
    stored, the original is stored and the duplicate views it (fused
    copies stay fused: each consumer recomputes them anyway).  Returns the
    merges kept (``same``, with the others mapped to themselves)."""
    kept = list(range(len(same)))
    for v, original in enumerate(same):
        if original == v or Storage.STORED not in (storage[v], storage[original]):
            continue
        if storage[original] is not Storage.ARGUMENT:
            storage[original] = Storage.STORED
        storage[v] = Storage.VIEW
        kept[v] = original
    return kept


def _fusion(graph: SbpGraph, node: OpNode) -> Fusion:
    """How the compiler treats ``node``'s results (``STORED`` when its kind
    is unknown)."""
    if not node.kind:
        return Fusion.STORED
    if len(node.operands) == 2:
        divisor = graph.nodes[graph.values[node.operands[1]].producer]
        if isinstance(divisor, OpNode) and divides_cheaply(node.kind, divisor.kind):
            return Fusion.FUSED
    return fusion_of(node.kind)


def _writable(graph: SbpGraph, node: OpNode) -> bool:
    """Whether an in-place op may write into its first operand's buffer: an
    op's result that nothing else reads (an argument's buffer is the
    caller's)."""
    if not node.operands or len(node.results) != 1:
        return False
    operand = graph.values[node.operands[0]]
    return isinstance(graph.nodes[operand.producer], OpNode) and (
        len({graph.edges[e].dst for e in operand.uses}) == 1
    )


def _buffer_reads(
    graph: SbpGraph, fusion: dict[int, Fusion]
) -> tuple[list[bool], list[bool]]:
    """Per value, whether a reduction absorbs it (an elementwise op whose
    only consumer is a reduction, or is absorbed itself); per edge, whether
    its consumer reads the value from a buffer (a stored op, an absorbing
    reduction, a program result).  One walk, last op first."""
    nodes, values, edges = graph.nodes, graph.values, graph.edges
    absorbed = [False] * len(values)
    from_buffer = [False] * len(edges)
    for sink in graph.sinks():
        from_buffer[sink.in_edges[0]] = True
    absorbable = (Fusion.FUSED, Fusion.NOT_DUPLICATED, Fusion.VIEW)
    for node in reversed(nodes):
        if not isinstance(node, OpNode):
            continue
        role = fusion[node.id]
        if role in (Fusion.STORED, Fusion.IN_PLACE):
            for e in node.in_edges:
                from_buffer[e] = True
        elif role is Fusion.REDUCE or any(absorbed[r] for r in node.results):
            for e, v in zip(node.in_edges, node.operands, strict=True):
                producer = values[v].producer
                if (
                    fusion.get(producer) in absorbable
                    and len(nodes[producer].results) == 1
                    and len({edges[u].dst for u in values[v].uses}) == 1
                    and not any(from_buffer[u] for u in values[v].uses)
                ):
                    absorbed[v] = True
                else:
                    from_buffer[e] = True
    return absorbed, from_buffer
