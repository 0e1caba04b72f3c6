"""Per-device memory of a plan under the program's own schedule.

The model, shared by the plan's report and the optimal strategy's budget:

- ops run one per step in topological (program) order, steps 0..T-1;
- an argument is live from step 0 (it exists when the program starts) to its
  last use; an op result from the step of its producer to its last use; a
  value that is a function result stays live to the last step; a value with
  no use is live only at its producer's step;
- a live value occupies its *local* bytes in the layout it was produced in:
  the logical bytes divided by the hierarchy sizes of the dimensions that
  split it (``B`` and ``P`` hold a full-size piece);
- the peak is the largest sum over one step.

Not modeled: transient boxing buffers (a consumer's converted copy), the
ops' own workspace, and memory reuse across non-overlapping values that an
allocator could do better than "free after last use".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sbpc.algebra.layout import is_even, local_shape
from sbpc.algebra.sbp import NdSbp, Split
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.graph import OpNode, SbpGraph, SinkNode, ValueId


def local_bytes(tensor: TensorType, nd_sbp: NdSbp, hierarchy: Sequence[int]) -> float:
    """Bytes one device holds of ``tensor`` laid out as ``nd_sbp`` (the
    largest piece: uneven splits are padded)."""
    if is_even(tensor.shape, nd_sbp, hierarchy):
        pieces = math.prod(
            n for s, n in zip(nd_sbp, hierarchy, strict=True) if isinstance(s, Split)
        )
        return tensor.nbytes / pieces
    local = math.prod(local_shape(tensor.shape, nd_sbp, hierarchy))
    return local * tensor.nbytes / max(math.prod(tensor.shape), 1)


@dataclass(frozen=True)
class LiveInterval:
    value: ValueId
    start: int
    end: int  # inclusive


def live_intervals(graph: SbpGraph) -> tuple[list[LiveInterval], int]:
    """Every value's live steps, and the number of steps (at least 1)."""
    step: dict[int, int] = {}
    for node_id in graph.topological_order():
        if isinstance(graph.nodes[node_id], OpNode):
            step[node_id] = len(step)
    n_steps = max(len(step), 1)
    intervals = []
    for value in graph.values:
        start = step.get(value.producer, 0)
        end = start
        for e in value.uses:
            dst = graph.edges[e].dst
            if isinstance(graph.nodes[dst], SinkNode):
                end = n_steps - 1
            else:
                end = max(end, step[dst])
        intervals.append(LiveInterval(value.id, start, end))
    return intervals, n_steps


def peak_memory(graph: SbpGraph, layout_of: Callable[[ValueId], NdSbp]) -> float:
    """Peak per-device bytes when each value is held in ``layout_of(value)``."""
    intervals, n_steps = live_intervals(graph)
    delta = [0.0] * (n_steps + 1)
    for iv in intervals:
        value = graph.values[iv.value]
        size = local_bytes(value.tensor, layout_of(iv.value), graph.hierarchy)
        delta[iv.start] += size
        delta[iv.end + 1] -= size
    peak = live = 0.0
    for d in delta[:n_steps]:
        live += d
        peak = max(peak, live)
    return peak


def critical_steps(intervals: Sequence[LiveInterval]) -> list[int]:
    """Steps whose live set is not contained in another step's.

    The live set only shrinks after a step where some value dies, so the
    steps at which a value is last live dominate all others: a memory bound
    holding there holds everywhere.  Used to keep the ILP small.
    """
    return sorted({iv.end for iv in intervals})
