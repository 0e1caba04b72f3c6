"""The memory model read literally, for graphs whose ops store every result
(no op kinds): what the tests check ``sbpc.propagation.memory`` against.

Written from the model's statement in ``docs/memory.md`` alone, half-step by
half-step, sharing no code with it: arguments for the whole program, one
allocation per result, every op result from its step to its last reader
(a copy's collective, just before the copy's first reader, reads it), one
boxed copy per value and layout read from just before its first reader (an
argument's: from the start; one gathered per use, a copy per reading op
around that op) to its last (an all-reduce only, of a value nothing else reads, keeps the
value's buffer instead), and the temporaries that no free result
allocation of at least their size holds (largest first) summed per
half-step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sbpc.algebra.sbp import Broadcast, NdSbp, Partial, Split
from sbpc.propagation.graph import OpNode, SbpGraph, SinkNode, SourceNode


def _bytes(graph: SbpGraph, value: int, nd: NdSbp) -> float:
    pieces = math.prod(
        n for s, n in zip(nd, graph.hierarchy, strict=True) if isinstance(s, Split)
    )
    return graph.values[value].tensor.nbytes / pieces


def literal_peak(graph: SbpGraph, options: Sequence[int]) -> float:
    """Peak bytes per device of ``graph`` under ``options`` (even splits)."""
    ops = [n.id for n in graph.nodes if isinstance(n, OpNode)]
    half_steps = max(2 * len(ops), 2)
    at = {node: 2 * t for t, node in enumerate(ops)}

    def layout(value: int) -> NdSbp:
        v = graph.values[value]
        return graph.nodes[v.producer].out_layout(options[v.producer], v.index)

    fixed = 0.0
    for node in graph.nodes:
        if isinstance(node, SourceNode):
            fixed += _bytes(graph, node.result, layout(node.result))
    allocations = []  # (bytes, first half-step written)
    results = {}
    for node in graph.nodes:
        if isinstance(node, SinkNode):
            nd = node.options[options[node.id]] or layout(node.operand)
            fixed += _bytes(graph, node.operand, nd)
            written = at.get(graph.values[node.operand].producer, 0)
            allocations.append(
                (
                    _bytes(graph, node.operand, nd),
                    written + (nd != layout(node.operand)),
                )
            )
            results.setdefault(node.operand, []).append(nd)
    temps = []  # (bytes, first, last)
    for value in graph.values:
        if value.producer not in at:
            continue
        readers = [graph.edges[e] for e in value.uses]
        own = [e for e in readers if not isinstance(graph.nodes[e.dst], SinkNode)]
        wants = {}
        for e in own:
            nd = graph.nodes[e.dst].in_layout(options[e.dst], e.dst_index)
            if nd is not None and nd != layout(value.id):
                wants.setdefault(nd, []).append(at[e.dst])
        direct = [
            at[e.dst]
            for e in own
            if graph.nodes[e.dst].in_layout(options[e.dst], e.dst_index)
            in (None, layout(value.id))
        ]
        born = at[value.producer]
        mine = layout(value.id)
        # Read where it is, and by each copy's collective (just before the
        # copy's first reader).
        collectives = [max(min(steps) - 1, born + 1) for steps in wants.values()]
        last = max([born, *direct, *collectives])
        if mine in results.get(value.id, []):
            pass  # its result allocation holds it
        elif (
            len(wants) == 1
            and not direct
            and value.id not in results
            and all(
                a == b or (isinstance(a, Partial) and isinstance(b, Broadcast))
                for a, b in zip(mine, next(iter(wants)), strict=True)
            )
        ):
            (steps,) = wants.values()
            temps.append((_bytes(graph, value.id, mine), born, max(steps)))
            wants = {}
        else:
            keep = max(last, born + 1) if value.id in results else last
            temps.append((_bytes(graph, value.id, mine), born, keep))
        for nd, steps in wants.items():
            temps.append(
                (_bytes(graph, value.id, nd), max(min(steps) - 1, born + 1), max(steps))
            )
    for node in graph.nodes:  # arguments read in another layout
        if not isinstance(node, SourceNode):
            continue
        wants = {}
        for e in graph.values[node.result].uses:
            edge = graph.edges[e]
            if isinstance(graph.nodes[edge.dst], SinkNode):
                continue
            nd = graph.nodes[edge.dst].in_layout(options[edge.dst], edge.dst_index)
            if nd is not None and nd != layout(node.result):
                wants.setdefault(nd, []).append(at[edge.dst])
        mine = _bytes(graph, node.result, layout(node.result))
        for nd, steps in wants.items():
            if (
                node.result in graph.gathered_per_use
                and _bytes(graph, node.result, nd) > mine
            ):  # gathered per use: just before each reader, for it
                for t in sorted(set(steps)):
                    temps.append((_bytes(graph, node.result, nd), max(t - 1, 0), t))
            else:  # its collectives run first
                temps.append((_bytes(graph, node.result, nd), 0, max(steps)))
    hosted = [[] for _ in allocations]  # intervals each allocation holds
    left = []
    for nbytes, first, last in sorted(temps, key=lambda t: (-t[0], t[1], t[2])):
        for k in sorted(range(len(allocations)), key=lambda k: allocations[k][0]):
            size, written = allocations[k]
            free = last < written and all(last < a or first > b for a, b in hosted[k])
            if size >= nbytes and free:
                hosted[k].append((first, last))
                break
        else:
            left.append((nbytes, first, last))
    heap = max(
        (
            sum(b for b, first, last in left if first <= h <= last)
            for h in range(half_steps)
        ),
        default=0.0,
    )
    return fixed + heap
