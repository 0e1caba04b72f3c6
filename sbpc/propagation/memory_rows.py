"""The memory model as linear rows: the optimal strategy's budget constraints.

An integer program can constrain what is linear in the labels, so each row
keeps the part of ``memory.plan_memory`` that is a sum of one node's bytes
per option, at one half-step ``h``:

- every argument's bytes (sources' options);
- every output defined by ``h`` (sinks' options; a result delivered as it
  is produced has its producer's bytes);
- every stored value live at ``h`` that is no result, until its last
  reader (its producer's option);
- every boxed copy live at ``h`` (``Box``): a value read by some consumer
  in a layout its producer did not make, from just before its first such
  read (from the start for a value computed from arguments alone) to its
  last.  That depends on three labels (producer, first and
  last reader), so the optimal strategy gives each stretch between two
  possible reads a column ``w >= 0`` with ``w >= bytes * (a wants it + b
  wants it - 1 - producer made it)`` for each read ``a`` before and ``b``
  after: at integral labels ``w`` is the copy's bytes exactly when it is
  live there.
  An argument gathered per use (``SbpGraph.gathered_per_use``) has a
  box per read for the options that store it smaller than the layout read.

Left out, as a packing or too short to matter: output allocations lent to
temporaries (here every output byte not yet written is lent), donated
arguments aliased to outputs, all-reduces run in place, and the collective
inputs of fused values.  So a row is an estimate, not a bound: the
optimal strategy checks each plan against ``plan_memory`` and, where the
plan exceeds the budget, lowers the row that covers that half-step by the
gap and solves again (``Optimal._refine``); the plan it returns fits the
exact model.  ``least`` (arguments and outputs at their fewest bytes, less
what donations can alias) is a true lower bound of every plan's peak.

Rows are kept only at half-steps where some term ends, and the last one:
between two such half-steps terms are only added, so each row covers the
half-steps before it back to the previous row (``row_of``).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from sbpc.algebra.sbp import NdSbp
from sbpc.propagation.graph import OpNode, SbpGraph, SinkNode, SourceNode
from sbpc.propagation.liveness import Liveness, Storage
from sbpc.propagation.memory import local_bytes, sliced

# (node, bytes per option, first half-step, last half-step)
Term = tuple[int, np.ndarray, int, int]


@dataclass(frozen=True)
class Box:
    """A stretch of a boxed copy of one value in one layout, from half-step
    ``first`` to ``last``: ``nbytes`` when, for some ``(a, wants_a, b,
    wants_b, made)`` in ``pairs``, consumer ``a`` (reading before the
    stretch) takes an option in ``wants_a``, consumer ``b`` (reading after)
    one in ``wants_b``, and the producer an option outside ``made`` (the
    options that need no copy).  Boolean masks over the nodes' options."""

    producer: int
    pairs: tuple[tuple[int, np.ndarray, int, np.ndarray, np.ndarray], ...]
    nbytes: float
    first: int
    last: int

    def held(self, labels: Mapping[int, int]) -> float:
        """The copy's bytes when node ``v`` takes ``labels.get(v, 0)``."""
        made = labels.get(self.producer, 0)
        for a, wants_a, b, wants_b, no_copy in self.pairs:
            if (
                wants_a[labels.get(a, 0)]
                and wants_b[labels.get(b, 0)]
                and not no_copy[made]
            ):
                return self.nbytes
        return 0.0


@dataclass
class MemoryRows:
    """Per row: its half-step, the nodes whose bytes it sums with their
    bytes per option, and the boxes it holds (indices into ``boxes``);
    ``least``: a lower bound of every plan's peak; ``frozen``: the nodes
    whose bytes vary or that boxes read (the shrink keeps them, so their
    labels stay the graph's options)."""

    half_steps: list[int]
    rows: list[dict[int, np.ndarray]]
    liveness: Liveness
    least: float = 0.0
    frozen: set[int] = field(default_factory=set)
    boxes: list[Box] = field(default_factory=list)
    row_boxes: list[list[int]] = field(default_factory=list)

    @staticmethod
    def of(graph: SbpGraph, liveness: Liveness | None = None) -> MemoryRows:
        liveness = liveness or Liveness.of(graph)
        arguments, outputs, stored = _terms(graph, liveness)
        boxes = _boxes(graph, liveness)
        events = outputs + stored
        last = liveness.half_steps - 1
        ends = sorted(
            {min(end, last) for *_, end in events}
            | {min(b.last, last) for b in boxes}
            | {last}
        )
        rows: list[dict[int, np.ndarray]] = []
        by_start = sorted(events, key=lambda t: t[2])
        k = 0
        live: list[Term] = []
        for h in ends:  # a row holds the terms started by h, ending at or after
            while k < len(by_start) and by_start[k][2] <= h:
                live.append(by_start[k])
                k += 1
            live = [t for t in live if t[3] >= h]
            row = dict(arguments)
            for node, b, _, _ in live:
                row[node] = row[node] + b if node in row else b
            rows.append(row)
        frozen = {
            node
            for row in rows
            for node, b in row.items()
            if len(b) > 1 and float(np.ptp(b)) > 0
        }
        for box in boxes:
            frozen.add(box.producer)
            frozen.update(node for a, _, b, _, _ in box.pairs for node in (a, b))
        row_boxes: list[list[int]] = [[] for _ in ends]
        for i, box in enumerate(boxes):
            lo = bisect.bisect_left(ends, box.first)
            hi = bisect.bisect_right(ends, box.last)
            for r in range(lo, hi):
                row_boxes[r].append(i)
        donated = sum(
            float(arguments[n.id].max())
            for n in graph.sources()
            if n.donated and n.id in arguments
        )
        least = (
            sum(float(b.min()) for b in arguments.values())
            + sum(float(b.min()) for _, b, _, _ in outputs)
            - donated
        )
        return MemoryRows(
            ends, rows, liveness, max(least, 0.0), frozen, boxes, row_boxes
        )

    def row_of(self, half_step: int) -> int:
        """The row that covers ``half_step``: the first at or after it."""
        return min(bisect.bisect_left(self.half_steps, half_step), len(self.rows) - 1)

    def floor(self) -> float:
        """A lower bound on every plan's peak (``least``)."""
        return self.least

    def values(self, labels: Mapping[int, int]) -> list[float]:
        """Each row's bytes when node ``v`` takes ``labels.get(v, 0)``."""
        held = [box.held(labels) for box in self.boxes]
        return [
            sum(float(b[labels.get(node, 0)]) for node, b in row.items())
            + sum(held[i] for i in boxed)
            for row, boxed in zip(self.rows, self.row_boxes, strict=True)
        ]

    def peak(self, labels: Mapping[int, int]) -> float:
        """The largest row (see ``values``)."""
        return max(self.values(labels), default=0.0)


def _terms(
    graph: SbpGraph, liveness: Liveness
) -> tuple[dict[int, np.ndarray], list[Term], list[Term]]:
    """The arguments' bytes (by source node), the outputs from their
    definition to the end, and the stored values that are no results from
    their definition to their last read."""
    nodes, values, hierarchy = graph.nodes, graph.values, graph.hierarchy
    last = liveness.half_steps - 1

    def per_option(node_id: int, value_id: int, layout_of: Callable[[int], NdSbp]):
        tensor = values[value_id].tensor
        n = len(nodes[node_id].options)
        return np.array(
            [local_bytes(tensor, layout_of(i), hierarchy) for i in range(n)]
        )

    arguments: dict[int, np.ndarray] = {}
    outputs: list[Term] = []
    results: set[int] = set()
    for node in nodes:
        if isinstance(node, SourceNode):
            arguments[node.id] = per_option(
                node.id, node.result, lambda i, n=node: n.options[i]
            )
        elif isinstance(node, SinkNode):
            v = node.operand
            results.add(v)
            start = liveness.defined(graph, v)
            if all(nd is not None for nd in node.options):
                b = per_option(node.id, v, lambda i, n=node: n.options[i])
                outputs.append((node.id, b, start, last))
            else:  # delivered as produced: the producer's bytes
                p, index = values[v].producer, values[v].index
                b = per_option(p, v, lambda i, n=nodes[p], r=index: n.out_layout(i, r))
                outputs.append((p, b, start, last))
    stored: list[Term] = []
    for value in values:
        kind = liveness.storage[value.id]
        if kind not in (Storage.STORED, Storage.DUPLICATED) or value.id in results:
            continue
        p = value.producer
        node = nodes[p]
        assert isinstance(node, OpNode)
        b = per_option(p, value.id, lambda i, n=node, r=value.index: n.out_layout(i, r))
        start = liveness.defined(graph, value.id)
        stored.append((p, b, start, max(liveness.buffer_end[value.id], start)))
    return arguments, outputs, stored


# A boxed copy read by more consumers than this is cut per read instead
# of per stretch between reads (the pairs grow as their square).
MAX_PAIRS = 64


def _boxes(graph: SbpGraph, liveness: Liveness) -> list[Box]:
    """Every copy some plan may box, per value and layout a consumer may
    read it in (unless every producer option makes that layout, or a piece
    of it the consumer slices itself, ``memory.sliced``; an argument
    gathered per use: a box per read), cut into the
    stretches between its possible reads: a stretch is held when a read
    before it and one after it both take the copy."""
    nodes, values, hierarchy, step = (
        graph.nodes,
        graph.values,
        graph.hierarchy,
        liveness.step,
    )
    # (value, layout) -> per read: (consumer, wants, no copy, first, last)
    found: dict[tuple[int, NdSbp], list] = {}
    boxes: list[Box] = []
    for e in graph.edges:
        consumer = nodes[e.dst]
        if not isinstance(consumer, OpNode):
            continue
        producer = nodes[e.src]
        made = [
            producer.out_layout(i, e.src_index) for i in range(len(producer.options))
        ]
        wanted = [
            consumer.in_layout(j, e.dst_index) for j in range(len(consumer.options))
        ]
        fuses = not liveness.from_buffer[e.id]
        # a value computed from arguments alone: its copy first
        start = 0
        if not liveness.early[e.value]:
            start = max(2 * step[e.dst] - 1, liveness.defined(graph, e.value) + 1)
        per_use = e.value in graph.gathered_per_use  # an argument's
        at_use = max(2 * step[e.dst] - 1, 0)
        end = max(liveness.use_end[e.id], start)
        for layout in {nd for nd in wanted if nd is not None}:
            no_copy = np.array(
                [m == layout or (fuses and sliced(m, layout)) for m in made]
            )
            wants = np.array([nd == layout for nd in wanted])
            if per_use:  # gathers: a copy per read (memory.per_use_copies)
                tensor = values[e.value].tensor
                size = local_bytes(tensor, layout, hierarchy)
                gather = np.array(
                    [local_bytes(tensor, m, hierarchy) < size for m in made]
                )
                if not (no_copy | ~gather).all():
                    pair = (e.dst, wants, e.dst, wants, no_copy | ~gather)
                    boxes.append(Box(e.src, (pair,), size, at_use, max(end, at_use)))
                no_copy = no_copy | gather
            if not no_copy.all():
                found.setdefault((e.value, layout), []).append(
                    (e.dst, wants, no_copy, start, end)
                )
    for (v, layout), reads in found.items():
        nbytes = local_bytes(values[v].tensor, layout, hierarchy)
        producer = values[v].producer
        if len(reads) ** 2 > MAX_PAIRS:  # each read its own stretch
            boxes += [
                Box(producer, ((c, w, c, w, n),), nbytes, first, last)
                for c, w, n, first, last in reads
            ]
            continue
        cuts = sorted({r[3] for r in reads} | {r[4] + 1 for r in reads})
        for first, after in itertools.pairwise(cuts):
            pairs = tuple(
                (a[0], a[1], b[0], b[1], a[2] | b[2])
                for a in reads
                if a[3] <= first
                for b in reads
                if b[4] >= first
            )
            if pairs:
                boxes.append(Box(producer, pairs, nbytes, first, after - 1))
    return boxes
