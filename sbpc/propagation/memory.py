"""Per-device memory of a plan: the buffers the compiled program allocates.

The number a user checks is XLA's ``memory_analysis()`` of the compiled
program: argument + output - alias + temporary bytes, per device.  This
model counts the same buffers (docs/memory.md has the measured table):

- **arguments** live for the whole program (XLA keeps entry parameters
  unless donated), in their layout's local bytes (uneven splits padded);
- **outputs** are allocations of their own, in the layout the caller gets;
  an output defined late (a training step's new parameters) lends its
  allocation to temporaries that die before it is written;
- **aliases**: a donated argument whose output has its type and layout is
  that output's allocation (``SourceNode.donated``);
- **temporaries**: the results the compiler stores (``sbpc.ops.fusion``:
  products, reductions, expensive elementwise ops read twice, fusions read
  by a stored op or a collective), and every boxed copy (one per value and
  target layout: the collective's output, from just before its first
  reader, or from the start for a value computed from arguments alone;
  an argument gathered per use: one per reading op, ``per_use_copies``);
  with ``collectives``, the emitter's combined collectives' buffers
  (``collective_memory``) and the copies they make.  A stored value lives
  from its definition to its last read; a fused value is read wherever a
  consumer recomputes it, so it keeps its own operands alive until then.

Time runs in half-steps: op ``t`` (in program order) runs at ``2t``, its
layout changes at ``2t + 1``.  Temporaries that no free output allocation
of at least their size can hold (largest first, as XLA's buffer assignment
tries) share one heap whose size is their largest live sum.

Two stages: ``Liveness`` (per graph, independent of the layouts) and
``plan_memory`` (per choice of options).  The optimal strategy's budget
rows read ``Liveness`` too (``memory_rows``).

Storage apart from use: an argument stored split and gathered around each
use (``SbpGraph.gathered_per_use``, FSDP) is an argument in its storage
layout plus one boxed buffer per reading op, live only around that op.

Not modelled: the scheduler's reordering beyond collectives (program
order is kept; where buffers are large ``sbp-propagate`` writes that order
into the program, ``order_fences``), heap fragmentation, and collectives'
internal scratch.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from sbpc.algebra.layout import is_even, local_shape
from sbpc.algebra.sbp import Broadcast, NdSbp, Partial, Split
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.graph import OpNode, SbpGraph, SourceNode, ValueId
from sbpc.propagation.liveness import Liveness, Storage


def local_bytes(tensor: TensorType, nd_sbp: NdSbp, hierarchy: Sequence[int]) -> float:
    """Bytes one device holds of ``tensor`` laid out as ``nd_sbp`` (the
    largest piece: uneven splits are padded)."""
    return _local_bytes(tensor, nd_sbp, tuple(hierarchy))


@lru_cache(maxsize=4096)
def _local_bytes(
    tensor: TensorType, nd_sbp: NdSbp, hierarchy: tuple[int, ...]
) -> float:
    """``local_bytes``, once per (type, layout, hierarchy): a plan holds the
    same few of them thousands of times."""
    if is_even(tensor.shape, nd_sbp, hierarchy):
        pieces = math.prod(
            n for s, n in zip(nd_sbp, hierarchy, strict=True) if isinstance(s, Split)
        )
        return tensor.nbytes / pieces
    local = math.prod(local_shape(tensor.shape, nd_sbp, hierarchy))
    return local * tensor.nbytes / max(math.prod(tensor.shape), 1)


class Buffer(NamedTuple):
    """One allocation: its bytes per device and its first and last half-step."""

    nbytes: float
    start: int
    end: int


@dataclass(frozen=True)
class Memory:
    """A plan's memory per device, as XLA's ``memory_analysis`` counts it.

    ``held``: per half-step, the bytes held then (arguments, outputs less
    aliases, and the temporaries the outputs' allocations do not hold); its
    maximum is ``peak``.
    """

    arguments: float
    outputs: float
    aliased: float
    temporaries: float  # the temporaries' heap: its largest live sum
    held: list[float]

    @property
    def peak(self) -> float:
        return self.arguments + self.outputs - self.aliased + self.temporaries

    @property
    def profile(self) -> list[float]:
        """Per op step, the most bytes held while it runs and its layout
        changes run (``held`` folded in pairs)."""
        held = self.held
        return [max(held[h : h + 2]) for h in range(0, len(held), 2)]


def layouts_of(graph: SbpGraph, options: Sequence[int]) -> list[NdSbp]:
    """Each value's layout when every node takes ``options``."""
    nodes = graph.nodes
    return [
        nodes[v.producer].out_layout(options[v.producer], v.index) for v in graph.values
    ]


class Boxed(NamedTuple):
    """A boxed copy's first and last half-step."""

    start: int
    end: int


@dataclass(frozen=True)
class Collectives:
    """What the emitter's combined collectives add to a plan's memory
    (``collective_memory``): a buffer per group of several members (its
    concatenated input or whole result), and the half-step at which a
    group makes each member's boxed copy (value, layout)."""

    buffers: tuple[Buffer, ...] = ()
    made: Mapping[tuple[ValueId, NdSbp], int] = field(default_factory=dict)


def copy_reads(
    graph: SbpGraph,
    liveness: Liveness,
    options: Sequence[int],
    layouts: Sequence[NdSbp],
) -> Iterator[tuple[int, tuple[ValueId, NdSbp] | None]]:
    """Per edge into an op, the boxed copy (value, layout) it reads, or
    None: read in the value's own layout, or a piece of a replicated value
    that the consumer fuses and slices itself (no collective, no copy)."""
    nodes = graph.nodes
    for e in graph.edges:
        consumer = nodes[e.dst]
        if not isinstance(consumer, OpNode):
            continue
        want = consumer.in_layout(options[e.dst], e.dst_index)
        if (
            want is None
            or want == layouts[e.value]
            or (sliced(layouts[e.value], want) and not liveness.from_buffer[e.id])
        ):
            yield e.id, None
        else:
            yield e.id, (e.value, want)


def gathered_per_use(
    graph: SbpGraph, layouts: Sequence[NdSbp], value: ValueId, want: NdSbp
) -> bool:
    """Whether ``value``'s copy in ``want`` is made per reading op: an
    argument the planner gathers per use (``SbpGraph.gathered_per_use``)
    read in a layout larger than its own (a gather, FSDP's)."""
    if value not in graph.gathered_per_use:
        return False
    tensor, hierarchy = graph.values[value].tensor, graph.hierarchy
    return local_bytes(tensor, want, hierarchy) > local_bytes(
        tensor, layouts[value], hierarchy
    )


def per_use_copies(
    graph: SbpGraph,
    liveness: Liveness,
    options: Sequence[int],
    layouts: Sequence[NdSbp],
) -> list[Buffer]:
    """The copies gathered per use (``gathered_per_use``): one per reading
    op and layout, from just before that op (``sbp-lower-boxing`` writes
    the gather there, behind a barrier with the op's other operand) to its
    last read of it."""
    if not graph.gathered_per_use:
        return []
    step = liveness.step
    copies: dict[tuple[ValueId, NdSbp, int], Boxed] = {}
    for e_id, key in copy_reads(graph, liveness, options, layouts):
        if key is None or not gathered_per_use(graph, layouts, *key):
            continue
        dst = graph.edges[e_id].dst
        start = max(2 * step[dst] - 1, 0)  # an argument: ready before op 0
        known = copies.get((*key, dst))
        end = max(liveness.use_end[e_id], start, known.end if known else 0)
        copies[(*key, dst)] = Boxed(start, end)
    return [
        Buffer(local_bytes(graph.values[v].tensor, nd, graph.hierarchy), *box)
        for (v, nd, _), box in copies.items()
    ]


def boxed_copies(
    graph: SbpGraph,
    liveness: Liveness,
    options: Sequence[int],
    layouts: Sequence[NdSbp],
    made_at: Mapping[tuple[ValueId, NdSbp], int] | None = None,
) -> tuple[dict[tuple[ValueId, NdSbp], Boxed], dict[ValueId, int]]:
    """The boxed copies: per value and target layout some op reads it in,
    the copy's life, from just before its first reader (XLA's scheduler
    runs a collective when its result is needed, not where the program
    writes it) to its last read; and per value, the last read of its own
    buffer in its own layout (values nobody reads so are absent).  A copy
    of a value computed from arguments alone exists from the start (XLA:CPU
    runs its collective first, as ``sbp-lower-boxing`` writes those of
    arguments), and one a combined collective makes (``made_at``) from that
    collective on.  Copies gathered per use are not here
    (``per_use_copies``)."""
    step = liveness.step
    boxes: dict[tuple[ValueId, NdSbp], Boxed] = {}
    own: dict[ValueId, int] = {}
    for e_id, key in copy_reads(graph, liveness, options, layouts):
        if key is None:
            if liveness.reads_buffer[e_id]:
                v = graph.edges[e_id].value
                own[v] = max(own.get(v, 0), liveness.use_end[e_id])
            continue
        if gathered_per_use(graph, layouts, *key):
            continue
        start = 0
        if not liveness.early[key[0]]:
            made = liveness.defined(graph, key[0]) + 1
            start = max(2 * step[graph.edges[e_id].dst] - 1, made)
        if made_at is not None and key in made_at:
            start = min(start, made_at[key])
        known = boxes.get(key)
        if known is not None:
            start = min(start, known.start)
        end = max(liveness.use_end[e_id], known.end if known else 0, start)
        boxes[key] = Boxed(start, end)
    return boxes, own


def sliced(src: NdSbp, dst: NdSbp) -> bool:
    """Whether boxing ``src`` to ``dst`` only cuts replicated dims (each
    device keeps its piece): a consumer that fuses its operand reads the
    piece itself, no collective and no copy."""
    return src != dst and all(
        a == b or (isinstance(a, Broadcast) and isinstance(b, Split))
        for a, b in zip(src, dst, strict=True)
    )


def in_place(src: NdSbp, dst: NdSbp) -> bool:
    """Whether boxing ``src`` to ``dst`` is all-reduces only, which XLA runs
    in the operand's buffer when nothing else reads it."""
    return src != dst and all(
        a == b or (isinstance(a, Partial) and isinstance(b, Broadcast))
        for a, b in zip(src, dst, strict=True)
    )


def argument_bytes(graph: SbpGraph, options: Sequence[int]) -> float:
    """The bytes per device of ``graph``'s arguments when every node takes
    ``options``: ``plan_memory``'s ``arguments``, held for the whole step,
    so never above its peak (outputs less aliases and temporaries add no
    less than 0).  It needs no liveness nor boxed copies: the combining
    search drops a candidate over the device's memory on it before building
    the plan (on Mixtral-8x7B at full depth, the replicated start's
    improvements, 648 GiB at their peak)."""
    values, hierarchy, nodes = graph.values, graph.hierarchy, graph.nodes
    total = 0.0
    for node in graph.sources():
        value = values[node.result]
        layout = nodes[value.producer].out_layout(options[value.producer], value.index)
        total += local_bytes(value.tensor, layout, hierarchy)
    return total


def plan_memory(
    graph: SbpGraph,
    options: Sequence[int],
    liveness: Liveness | None = None,
    collectives: Collectives | None = None,
) -> Memory:
    """The memory of ``graph`` when every node takes ``options`` (sinks
    included: the layout each result is delivered in); ``collectives``:
    what the emitter's combined collectives add (None: each runs alone)."""
    liveness = liveness or Liveness.of(graph)
    values, hierarchy = graph.values, graph.hierarchy
    layouts = layouts_of(graph, options)
    storage = liveness.storage

    arguments = argument_bytes(graph, options)
    donors = [node for node in graph.sources() if node.donated]
    outputs = 0.0
    hosts: list[Buffer] = []  # output allocations, free before their definition
    temps: list[Buffer] = []
    delivered: dict[ValueId, list[NdSbp]] = {}
    results: list[tuple[TensorType, NdSbp]] = []
    for sink in graph.sinks():
        v = sink.operand
        layout = sink.options[options[sink.id]] or layouts[v]
        nbytes = local_bytes(values[v].tensor, layout, hierarchy)
        outputs += nbytes
        changed = layout != layouts[v]
        hosts.append(Buffer(nbytes, liveness.defined(graph, v) + changed, 0))
        delivered.setdefault(v, []).append(layout)
        results.append((values[v].tensor, layout))
    aliased, hosts = _aliases(graph, donors, layouts, results, hosts)

    collectives = collectives or Collectives()
    boxes, own = boxed_copies(graph, liveness, options, layouts, collectives.made)
    first_box: dict[ValueId, int] = {}  # each boxed value's first collective
    last_box: dict[ValueId, int] = {}  # and its last
    targets: dict[ValueId, list[NdSbp]] = {}
    for (v, target), box in boxes.items():
        first_box[v] = min(first_box.get(v, box.start), box.start)
        if not (liveness.cheap[v] and sliced(layouts[v], target)):
            last_box[v] = max(last_box.get(v, box.start), box.start)
        targets.setdefault(v, []).append(target)
    for value in values:
        kind = storage[value.id]
        if kind is Storage.ARGUMENT or kind is Storage.VIEW:
            continue
        v, layout = value.id, layouts[value.id]
        start = liveness.defined(graph, v)
        out = delivered.get(v, ())
        nbytes = local_bytes(value.tensor, layout, hierarchy)
        if kind is not Storage.STORED and v in first_box:
            # Computed again as its collective's input, just before it.
            boxed = first_box[v]
            temps.append(Buffer(nbytes, max(start, boxed - 1), boxed))
        if kind is Storage.FUSED or layout in out:
            continue  # no buffer, or the output's own allocation holds it
        # Read in its layout, by the duplicates merged into it, by the
        # collectives of its boxed copies (a stored one); a result's until
        # it is boxed out.
        end = max(
            own.get(v, start),
            last_box.get(v, start) if kind is Storage.STORED else start,
            liveness.merged_end[v],
            start + (1 if out else 0),
        )
        mine = targets.get(v, ())
        if (
            kind is Storage.STORED
            and len(mine) == 1
            and not out
            and v not in own
            and liveness.merged_end[v] <= start
            and in_place(layout, mine[0])
        ):
            # An all-reduce in place: the value's buffer becomes its copy.
            end = max(end, boxes.pop((v, mine[0])).end)
        temps.append(Buffer(nbytes, start, end))
    for (v, layout), (first, last) in boxes.items():
        nbytes = local_bytes(values[v].tensor, layout, hierarchy)
        temps.append(Buffer(nbytes, first, last))
    temps += per_use_copies(graph, liveness, options, layouts)
    temps += collectives.buffers
    unhosted = _unhosted(temps, hosts)

    n = liveness.half_steps
    delta = [0.0] * (n + 1)
    for b in unhosted:
        delta[b.start] += b.nbytes
        delta[min(b.end, n - 1) + 1] -= b.nbytes
    live, heap, fixed = 0.0, 0.0, arguments + outputs - aliased
    held: list[float] = []
    for h in range(n):
        live += delta[h]
        heap = max(heap, live)
        held.append(fixed + live)
    return Memory(arguments, outputs, aliased, heap, held)


def _aliases(
    graph: SbpGraph,
    donors: Sequence[SourceNode],
    layouts: Sequence[NdSbp],
    results: Sequence[tuple[TensorType, NdSbp]],
    hosts: list[Buffer],
) -> tuple[float, list[Buffer]]:
    """Bytes of donated arguments reused as outputs, and the output
    allocations left to lend: JAX pairs a donated argument with the first
    free result of its type and layout (that allocation holds the argument
    until the result is written, so it lends nothing).  ``results`` and
    ``hosts`` run over the sinks in order."""
    if not donors:
        return 0.0, hosts
    taken = [False] * len(results)
    aliased = 0.0
    for donor in donors:
        want = (graph.values[donor.result].tensor, layouts[donor.result])
        for i, result in enumerate(results):
            if not taken[i] and result == want:
                taken[i] = True
                aliased += hosts[i].nbytes
                break
    return aliased, [h for h, t in zip(hosts, taken, strict=True) if not t]


def _unhosted(temps: list[Buffer], hosts: list[Buffer]) -> list[Buffer]:
    """The temporaries no output allocation holds: largest first, each into
    the smallest allocation at least its size that is free for its whole
    life (free before the output is defined), as XLA's buffer assignment
    reuses allocations before it simulates the heap."""
    if not hosts:
        return temps
    allocs = sorted(hosts, key=lambda b: b.nbytes)
    sizes = [b.nbytes for b in allocs]
    # Per allocation, the busy half-step intervals, sorted by start.
    busy: list[list[tuple[int, int]]] = [[(b.start, 1 << 62)] for b in allocs]
    left = []
    for temp in sorted(temps, key=lambda b: (-b.nbytes, b.start, b.end)):
        for i in range(bisect.bisect_left(sizes, temp.nbytes), len(allocs)):
            intervals = busy[i]
            k = bisect.bisect_left(intervals, (temp.start, -1))
            if (k == 0 or intervals[k - 1][1] < temp.start) and (
                k == len(intervals) or intervals[k][0] > temp.end
            ):
                intervals.insert(k, (temp.start, temp.end))
                break
        else:
            left.append(temp)
    return left
