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
from functools import lru_cache
from typing import NamedTuple

from sbpc.algebra.layout import is_even, local_shape
from sbpc.algebra.sbp import NdSbp, Split
from sbpc.algebra.tensor_type import TensorType
from sbpc.propagation.graph import OpNode, SbpGraph, SinkNode, ValueId


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


class LiveInterval(NamedTuple):
    value: ValueId
    start: int
    end: int  # inclusive


def live_intervals(graph: SbpGraph) -> tuple[list[LiveInterval], int]:
    """Every value's live steps, and the number of steps (at least 1)."""
    starts, ends, n_steps = _live_ranges(graph)
    return list(map(LiveInterval, range(len(starts)), starts, ends)), n_steps


def _live_ranges(graph: SbpGraph) -> tuple[list[int], list[int], int]:
    """Per value (by id), its first and last live step; and the number of
    steps.  One pass over the nodes and one over the values' uses."""
    nodes = graph.nodes
    # Op node id -> its step; sinks -1 (they keep a value to the last step);
    # sources never consume.
    step = [0] * len(nodes)
    n_ops = 0
    for node in nodes:
        if isinstance(node, OpNode):
            step[node.id] = n_ops
            n_ops += 1
        elif isinstance(node, SinkNode):
            step[node.id] = -1
    n_steps = max(n_ops, 1)
    last = n_steps - 1
    dst_step = [step[e.dst] for e in graph.edges]
    starts: list[int] = []
    ends: list[int] = []
    for value in graph.values:
        producer = nodes[value.producer]
        start = step[value.producer] if isinstance(producer, OpNode) else 0
        end = start
        for e in value.uses:
            t = dst_step[e]
            if t < 0:
                end = last
            elif t > end:
                end = t
        starts.append(start)
        ends.append(end)
    return starts, ends, n_steps


def live_bytes(graph: SbpGraph, layout_of: Callable[[ValueId], NdSbp]) -> list[float]:
    """Live bytes per device at each step when each value is held in
    ``layout_of(value)``."""
    starts, ends, n_steps = _live_ranges(graph)
    delta = [0.0] * (n_steps + 1)
    hierarchy = graph.hierarchy
    # By the identities of a value's type and layout (a plan shares both
    # objects among thousands of values); each entry holds its objects, so
    # no identity is reused while the loop runs.
    sizes: dict[tuple[int, int], tuple[TensorType, NdSbp, float]] = {}
    for value, start, end in zip(graph.values, starts, ends, strict=True):
        tensor, layout = value.tensor, layout_of(value.id)
        known = sizes.get((id(tensor), id(layout)))
        if known is None:
            size = _local_bytes(tensor, layout, hierarchy)
            sizes[(id(tensor), id(layout))] = (tensor, layout, size)
        else:
            size = known[2]
        delta[start] += size
        delta[end + 1] -= size
    live, out = 0.0, []
    for d in delta[:n_steps]:
        live += d
        out.append(live)
    return out


def peak_memory(graph: SbpGraph, layout_of: Callable[[ValueId], NdSbp]) -> float:
    """Peak per-device bytes when each value is held in ``layout_of(value)``."""
    return max(0.0, max(live_bytes(graph, layout_of)))


def critical_steps(intervals: Sequence[LiveInterval]) -> list[int]:
    """Steps whose live set is not contained in another step's.

    The live set only shrinks after a step where some value dies, so the
    steps at which a value is last live dominate all others: a memory bound
    holding there holds everywhere.  Used to keep the ILP small.
    """
    return sorted({iv.end for iv in intervals})
