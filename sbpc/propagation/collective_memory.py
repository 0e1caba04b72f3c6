"""The buffers of the emitter's combined collectives, for the memory model.

The JAX emitter runs independent collectives of one key as one
(``sbpc.boxing.combine_schedule``): it concatenates its members' local
pieces, runs one collective on that buffer and slices each member's result
out of its result.  So while a group runs, the device holds the
concatenated input or the collective's whole result besides its members'
results (``max(sum of inputs, sum of results)`` more than the members'
own copies, whichever side is larger), and every member's result exists
from the group on, not from just before its first reader.  Measured on
XLA:CPU (``bench/memory_model.py``): the GPT forward on 2x4 gathers its
parameters in one 208 KiB buffer, and its compiled peak is that buffer,
the gathered parameters and the live activations.

Here a plan's boxed copies are laid out as ``sbp-lower-boxing`` writes them
(one chain of boxing steps per value and layout some op reads, or a result
is delivered in, right after the value's definition), grouped by the
emitter's own schedule, and each group of several members becomes a
``Buffer`` at the half-step its last member's input is ready.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from sbpc.algebra.layout import is_even
from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp
from sbpc.boxing import planner as boxing
from sbpc.boxing.combine_schedule import Combined, combine_groups
from sbpc.boxing.cost_model import CostModel
from sbpc.propagation.combined_cost import combine_key
from sbpc.propagation.graph import OpNode, SbpGraph, SinkNode, SourceNode, ValueId
from sbpc.propagation.liveness import Liveness
from sbpc.propagation.memory import (
    Buffer,
    Collectives,
    copy_reads,
    gathered_per_use,
    layouts_of,
    local_bytes,
)


@dataclass(frozen=True)
class _Item:
    """An op or one boxing step of the program ``sbp-lower-boxing`` writes."""

    operands: tuple[Hashable, ...]
    results: tuple[Hashable, ...]
    key: Hashable | None = None  # None: no combinable collective
    value: ValueId = -1  # the boxed value (steps)
    copy: tuple[ValueId, NdSbp] | None = None  # the copy a chain's last step makes
    src_bytes: float = 0.0
    dst_bytes: float = 0.0


def combined_collectives(
    graph: SbpGraph,
    options: Sequence[int],
    placement: Placement,
    cost_model: CostModel,
    max_bytes: int,
    liveness: Liveness | None = None,
) -> Collectives:
    """What the emitter's combined collectives add to ``graph``'s memory
    when every node takes ``options``: a buffer per group of several
    members, and the half-step at which each member's copy is made."""
    if max_bytes <= 0:
        return Collectives()
    liveness = liveness or Liveness.of(graph)
    layouts = layouts_of(graph, options)
    # Gathers made per use run fenced before their readers: not combined.
    reads = {
        e: key
        for e, key in copy_reads(graph, liveness, options, layouts)
        if key is not None and not gathered_per_use(graph, layouts, *key)
    }
    wanted: dict[ValueId, list[NdSbp]] = {}
    fused: dict[tuple[ValueId, NdSbp], int] = {}  # a copy's last fused read
    for e, (v, want) in reads.items():
        if want not in wanted.setdefault(v, []):
            wanted[v].append(want)
        if not liveness.from_buffer[e]:
            fused[v, want] = max(fused.get((v, want), 0), liveness.use_end[e])
    for sink in graph.sinks():
        v = sink.operand
        layout = sink.options[options[sink.id]] or layouts[v]
        if layout != layouts[v] and layout not in wanted.setdefault(v, []):
            wanted[v].append(layout)
    hierarchy = graph.hierarchy

    def chains(v: ValueId) -> list[_Item]:
        out: list[_Item] = []
        tensor = graph.values[v].tensor
        for want in wanted.get(v, ()):
            try:
                steps = boxing.plan(layouts[v], want, tensor, placement, cost_model)
            except boxing.BoxingError:
                continue
            current: Hashable = ("v", v)
            for i, step in enumerate(steps.steps):
                last = i == len(steps.steps) - 1
                result = ("c", v, want) if last else ("s", v, want, i)
                key = None
                if tensor.num_elements and all(
                    is_even(tensor.shape, nd, step.hierarchy)
                    for nd in (step.src, step.dst)
                ):
                    key = combine_key(step, tensor.element)
                out.append(
                    _Item(
                        (current,),
                        (result,),
                        key,
                        v,
                        (v, want) if last else None,
                        local_bytes(tensor, step.src, hierarchy),
                        local_bytes(tensor, step.dst, hierarchy),
                    )
                )
                current = result
        return out

    items: list[_Item] = []
    for node in graph.nodes:
        if isinstance(node, SourceNode):
            items.append(_Item((), (("v", node.result),)))
            items += chains(node.result)
        elif isinstance(node, OpNode):
            operands = tuple(
                ("c", *reads[e]) if e in reads else ("v", graph.edges[e].value)
                for e in node.in_edges
            )
            items.append(_Item(operands, tuple(("v", r) for r in node.results)))
            for r in node.results:
                items += chains(r)
        else:
            assert isinstance(node, SinkNode)
    order = combine_groups(
        items,
        lambda n: n.operands,
        lambda n: n.results,
        lambda n: n.key,
        lambda n: max(n.src_bytes, n.dst_bytes),
        max_bytes,
    ).schedule()
    ready: dict[Hashable, int] = {}  # half-step at which a step's result exists
    buffers: list[Buffer] = []
    made: dict[tuple[ValueId, NdSbp], int] = {}
    for unit in order:
        members = unit.members if isinstance(unit, Combined) else (unit,)
        if members[0].value < 0:
            continue  # an op
        at = max(
            ready.get(m.operands[0], _made(graph, liveness, m.value)) for m in members
        )
        for m in members:
            ready[m.results[0]] = at
        if len(members) < 2:
            continue
        # A member's slice that its reader fuses is read from the whole
        # result, which then lives until that read.
        end = max([at] + [fused.get(m.copy, 0) for m in members if m.copy])
        nbytes = max(
            sum(m.src_bytes for m in members), sum(m.dst_bytes for m in members)
        )
        buffers.append(Buffer(nbytes, at, end))
        for m in members:
            if m.copy is not None:
                made[m.copy] = at
    return Collectives(tuple(buffers), made)


def _made(graph: SbpGraph, liveness: Liveness, v: ValueId) -> int:
    """The half-step after ``v``'s definition (0 for a value computed from
    arguments alone: XLA runs its collectives first)."""
    if liveness.early[v]:
        return 0
    return liveness.defined(graph, v) + 1
