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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from sbpc.algebra.sbp import NdSbp
from sbpc.algebra.tensor_type import TensorType
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
    labels stay the graph's options).

    Kept as intervals: the arguments (in every row), each term's rows
    (``spans``: node, bytes per option, first row, row after its last) and
    each box's (``box_first``, ``box_after``).  A long-lived term or box
    covers most rows, so the rows written out (``rows``, ``row_boxes``:
    made when first read, for the budgeted program of small graphs) grow
    as rows times terms: 93 million box entries at 8 layers of
    Llama-3-70B.  The memory price reads sums over its hot rows from the
    intervals (``hot_bytes``, ``box_spans``)."""

    half_steps: list[int]
    liveness: Liveness
    arguments: dict[int, np.ndarray]
    spans: list[tuple[int, np.ndarray, int, int]]
    least: float = 0.0
    frozen: set[int] = field(default_factory=set)
    boxes: list[Box] = field(default_factory=list)
    box_first: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    box_after: np.ndarray = field(default_factory=lambda: np.zeros(0, int))

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
        # A row holds the terms started by its half-step and ending at or
        # after it; summed in the order they start.
        spans = [
            (node, b, bisect.bisect_left(ends, first), bisect.bisect_right(ends, end))
            for node, b, first, end in sorted(events, key=lambda t: t[2])
        ]
        box_first = np.searchsorted(ends, [b.first for b in boxes], side="left")
        box_after = np.searchsorted(ends, [b.last for b in boxes], side="right")
        frozen = _varying(arguments, spans, len(ends))
        for box in boxes:
            frozen.add(box.producer)
            frozen.update(node for a, _, b, _, _ in box.pairs for node in (a, b))
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
            ends,
            liveness,
            arguments,
            spans,
            max(least, 0.0),
            frozen,
            boxes,
            np.asarray(box_first, dtype=int),
            np.asarray(box_after, dtype=int),
        )

    def restricted(self, kept: Sequence[np.ndarray]) -> MemoryRows:
        """The rows of the problem whose node ``v`` keeps the labels
        ``kept[v]`` (``pairwise.restrict``): every node's bytes and masks
        cut to them.  A box whose reads are settled (every node of one of
        its pairs keeps one label) is a fixed span of its producer when
        some settled pair holds it, and is dropped when none can: the
        program of a few free nodes then has a box column only where a
        free node decides."""
        spans = [
            (node, b[kept[node]], first, after) for node, b, first, after in self.spans
        ]
        boxes: list[Box] = []
        first_rows: list[int] = []
        after_rows: list[int] = []
        for box, first, after in zip(
            self.boxes, self.box_first.tolist(), self.box_after.tolist(), strict=True
        ):
            made = kept[box.producer]
            pairs = []
            held = False
            for a, wants_a, b, wants_b, no_copy in box.pairs:
                pair = (a, wants_a[kept[a]], b, wants_b[kept[b]], no_copy[made])
                if len(kept[a]) == len(kept[b]) == len(made) == 1:
                    held = held or bool(pair[1][0] and pair[3][0] and not pair[4][0])
                elif pair[1].any() and pair[3].any() and not pair[4].all():
                    pairs.append(pair)
            if held:  # len(made) == 1: the producer's one label
                spans.append((box.producer, np.array([box.nbytes]), first, after))
            elif pairs:
                boxes.append(
                    Box(box.producer, tuple(pairs), box.nbytes, box.first, box.last)
                )
                first_rows.append(first)
                after_rows.append(after)
        return MemoryRows(
            self.half_steps,
            self.liveness,
            {node: b[kept[node]] for node, b in self.arguments.items()},
            spans,
            self.least,
            self.frozen,
            boxes,
            np.asarray(first_rows, dtype=int),
            np.asarray(after_rows, dtype=int),
        )

    @property
    def entries(self) -> int:
        """How many entries the rows written out hold (``rows``,
        ``row_boxes``): a budgeted program's size grows with it."""
        spans = sum(after - first for _, _, first, after in self.spans)
        boxes = int((self.box_after - self.box_first).sum())
        return len(self.arguments) * len(self.half_steps) + spans + boxes

    @cached_property
    def rows(self) -> list[dict[int, np.ndarray]]:
        """Per row, each node's bytes per option summed over its terms there."""
        rows = [dict(self.arguments) for _ in self.half_steps]
        for node, b, first, after in self.spans:
            for row in rows[first:after]:
                row[node] = row[node] + b if node in row else b
        return rows

    @cached_property
    def row_boxes(self) -> list[list[int]]:
        """Per row, the boxes that may be held there."""
        row_boxes: list[list[int]] = [[] for _ in self.half_steps]
        for i, (first, after) in enumerate(
            zip(self.box_first.tolist(), self.box_after.tolist(), strict=True)
        ):
            for r in range(first, after):
                row_boxes[r].append(i)
        return row_boxes

    def hot_bytes(self, hot: Sequence[int]) -> dict[int, np.ndarray]:
        """Per node, its bytes per option summed over the rows ``hot``."""
        order = sorted(hot)
        out = {node: len(order) * b for node, b in self.arguments.items()}
        if not self.spans:
            return out
        _, _, first, after = zip(*self.spans, strict=True)
        counts = _rows_in(order, np.array(first), np.array(after))
        for (node, b, _, _), n in zip(self.spans, counts.tolist(), strict=True):
            if n:
                out[node] = out[node] + n * b if node in out else n * b
        return out

    def box_spans(self, hot: Sequence[int]) -> dict[int, int]:
        """Per box held in some row of ``hot``: how many of them it spans."""
        counts = self.box_counts(hot)
        return {int(i): int(counts[i]) for i in np.flatnonzero(counts)}

    def box_counts(self, hot: Sequence[int]) -> np.ndarray:
        """Per box: how many rows of ``hot`` it spans."""
        return _rows_in(sorted(hot), self.box_first, self.box_after)

    def row_of(self, half_step: int) -> int:
        """The row that covers ``half_step``: the first at or after it."""
        return min(
            bisect.bisect_left(self.half_steps, half_step), len(self.half_steps) - 1
        )

    def shortfalls(
        self, held: Sequence[float], estimate: Sequence[float], budget: float
    ) -> dict[int, float]:
        """Per row covering a half-step where the exact model holds more
        than ``budget`` (``held``, per half-step): how much more it holds
        there than the row's ``estimate`` (``values``) says, the amount to
        lower that row by so that the plan no longer meets it."""
        gaps: dict[int, float] = {}
        for h, bytes_ in enumerate(held):
            if bytes_ > budget * (1 + 1e-9):
                r = self.row_of(h)
                gaps[r] = max(gaps.get(r, 0.0), bytes_ - estimate[r])
        return gaps

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


def _rows_in(order: list[int], first: np.ndarray, after: np.ndarray) -> np.ndarray:
    """How many rows of ``order`` (sorted) each interval [first, after) holds."""
    return np.searchsorted(order, after) - np.searchsorted(order, first)


def _varying(
    arguments: dict[int, np.ndarray],
    spans: list[tuple[int, np.ndarray, int, int]],
    n_rows: int,
) -> set[int]:
    """The nodes whose summed bytes differ between their options in some row."""
    terms: dict[int, list[tuple[np.ndarray, int, int]]] = {
        node: [(b, 0, n_rows)] for node, b in arguments.items()
    }
    for node, b, first, after in spans:
        if first < after:
            terms.setdefault(node, []).append((b, first, after))
    varying: set[int] = set()
    for node, own in terms.items():
        # the terms live in a row change only where one starts or ends
        for r in sorted({t[1] for t in own} | {t[2] for t in own if t[2] < n_rows}):
            live = [b for b, first, after in own if first <= r < after]
            if not live:
                continue
            total = live[0]
            for b in live[1:]:
                total = total + b
            if len(total) > 1 and float(np.ptp(total)) > 0:
                varying.add(node)
                break
    return varying


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


class _Layouts:
    """The layouts a producer's options make, numbered, and what a read in
    one layout needs of each (memoised: a 2-D mesh's few dozen layouts meet
    each other millions of times on a model at full depth).  Memos are
    keyed by the option lists, which ops alike share (each layer's ops
    share their lists with every other layer's), and by layout numbers,
    not layouts, whose hashing was a tenth of the rows' time on
    Llama-3-70B.  The masks handed out are shared by many boxes, so they
    are read-only."""

    def __init__(self) -> None:
        self.ids: dict[NdSbp, int] = {}
        self.of_id: list[NdSbp] = []
        # per (option list, result or operand index): the list (keeping its
        # id from being reused) and what was found
        self.outputs: dict[tuple[int, int], tuple[object, tuple[int, ...]]] = {}
        self.inputs: dict[tuple[int, int], tuple[object, int, tuple[int, ...]]] = {}
        self.wanted_ids: list[np.ndarray] = []
        self.masks: dict[tuple[int, int], np.ndarray] = {}
        self.copies: dict[tuple[tuple[int, ...], int, bool], np.ndarray] = {}
        self.sizes: dict[tuple[tuple[int, ...], TensorType], np.ndarray] = {}
        self.shared = SharedMasks()  # the stretches' unions and tests

    def made(self, producer: OpNode | SourceNode, index: int) -> tuple[int, ...]:
        """The numbers of the layouts ``producer``'s options make of its
        result ``index``."""
        options = producer.options
        key = (id(options), index)
        found = self.outputs.get(key)
        if found is None:
            made = tuple(
                self._id(producer.out_layout(i, index)) for i in range(len(options))
            )
            found = self.outputs[key] = (options, made)
        return found[1]

    def wanted(self, consumer: OpNode, index: int) -> tuple[int, tuple[int, ...]]:
        """(a handle of: per option of ``consumer``, the number of the layout
        it reads its operand ``index`` in, -1 for none; the numbers of the
        layouts read, ascending)."""
        options = consumer.options
        key = (id(options), index)
        found = self.inputs.get(key)
        if found is None:
            read = [consumer.in_layout(j, index) for j in range(len(options))]
            ids = [-1 if nd is None else self._id(nd) for nd in read]
            self.wanted_ids.append(np.array(ids, dtype=int))
            handle = len(self.wanted_ids) - 1
            found = self.inputs[key] = (options, handle, tuple(sorted(set(ids) - {-1})))
        return found[1], found[2]

    def wants(self, handle: int, layout: int) -> np.ndarray:
        """Per option of the reader ``handle`` names: it reads ``layout``."""
        key = (handle, layout)
        found = self.masks.get(key)
        if found is None:
            found = self.masks[key] = _frozen(self.wanted_ids[handle] == layout)
        return found

    def _id(self, layout: NdSbp) -> int:
        found = self.ids.get(layout)
        if found is None:
            found = self.ids[layout] = len(self.of_id)
            self.of_id.append(layout)
        return found

    def no_copy(self, made: tuple[int, ...], layout: int, fuses: bool) -> np.ndarray:
        """Per option: it makes layout number ``layout``, or a reader that
        fuses (``fuses``) slices it from what the option makes
        (``memory.sliced``)."""
        key = (made, layout, fuses)
        found = self.copies.get(key)
        if found is None:
            read = self.of_id[layout]
            found = self.copies[key] = _frozen(
                np.array(
                    [
                        m == layout or (fuses and sliced(self.of_id[m], read))
                        for m in made
                    ]
                )
            )
        return found

    def made_bytes(
        self, made: tuple[int, ...], tensor: TensorType, hierarchy: Sequence[int]
    ) -> np.ndarray:
        """Per option, the bytes of what it makes of ``tensor`` per device."""
        key = (made, tensor)
        found = self.sizes.get(key)
        if found is None:
            found = self.sizes[key] = np.array(
                [local_bytes(tensor, self.of_id[m], hierarchy) for m in made]
            )
        return found


def _frozen(mask: np.ndarray) -> np.ndarray:
    """``mask``, read-only: one array is shared by every box that reads it."""
    mask.flags.writeable = False
    return mask


class SharedMasks:
    """Unions, tests and bytes of read-only masks, once per mask (or pair),
    keyed by the masks' ids: millions of boxes on a model at full depth
    combine a few thousand masks (Llama-3-70B: 5 million pairs of reads),
    and numpy's overhead on each small array was most of the rows' and the
    price tables' time.  The memo holds every mask it keys, so an id met
    again is the same array; masks are never written to."""

    def __init__(self) -> None:
        self._unions: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}
        self._complete: dict[int, tuple[np.ndarray, bool]] = {}
        self._bytes: dict[int, tuple[np.ndarray, bytes]] = {}

    def either(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``x | y``, read-only (``x`` itself when ``y`` is ``x``)."""
        if x is y:
            return x
        found = self._unions.get((id(x), id(y)))
        if found is None:
            found = self._unions[(id(x), id(y))] = (x, y, _frozen(x | y))
        return found[2]

    def everywhere(self, mask: np.ndarray) -> bool:
        """``mask.all()``."""
        found = self._complete.get(id(mask))
        if found is None:
            found = self._complete[id(mask)] = (mask, bool(mask.all()))
        return found[1]

    def bytes_of(self, mask: np.ndarray) -> bytes:
        """``mask.tobytes()``: a key of its contents."""
        found = self._bytes.get(id(mask))
        if found is None:
            found = self._bytes[id(mask)] = (mask, mask.tobytes())
        return found[1]


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
    # (value, layout number) -> per read: (consumer, wants, no copy, first, last)
    found: dict[tuple[int, int], list] = {}
    boxes: list[Box] = []
    layouts = _Layouts()
    for e in graph.edges:
        consumer = nodes[e.dst]
        if not isinstance(consumer, OpNode):
            continue
        made = layouts.made(nodes[e.src], e.src_index)
        wanted, read = layouts.wanted(consumer, e.dst_index)
        fuses = not liveness.from_buffer[e.id]
        # a value computed from arguments alone: its copy first
        start = 0
        if not liveness.early[e.value]:
            start = max(2 * step[e.dst] - 1, liveness.defined(graph, e.value) + 1)
        per_use = e.value in graph.gathered_per_use  # an argument's
        at_use = max(2 * step[e.dst] - 1, 0)
        end = max(liveness.use_end[e.id], start)
        for layout in read:
            no_copy = layouts.no_copy(made, layout, fuses)
            wants = layouts.wants(wanted, layout)
            if per_use:  # gathers: a copy per read (memory.per_use_copies)
                tensor = values[e.value].tensor
                size = local_bytes(tensor, layouts.of_id[layout], hierarchy)
                gather = layouts.made_bytes(made, tensor, hierarchy) < size
                kept = _frozen(no_copy | ~gather)
                if not kept.all():
                    pair = (e.dst, wants, e.dst, wants, kept)
                    boxes.append(Box(e.src, (pair,), size, at_use, max(end, at_use)))
                no_copy = _frozen(no_copy | gather)
            if not layouts.shared.everywhere(no_copy):
                found.setdefault((e.value, layout), []).append(
                    (e.dst, wants, no_copy, start, end)
                )
    for (v, layout), reads in found.items():
        nbytes = local_bytes(values[v].tensor, layouts.of_id[layout], hierarchy)
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
                (a[0], a[1], b[0], b[1], layouts.shared.either(a[2], b[2]))
                for a in reads
                if a[3] <= first
                for b in reads
                if b[4] >= first
            )
            if pairs:
                boxes.append(Box(producer, pairs, nbytes, first, after - 1))
    return boxes
