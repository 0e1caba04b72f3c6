"""Least times over a tensor's boxing step graph, many sources in one call.

The search prices a layout change by its least time over the planner's
step graph (``planner._step_graph``: each step's exact time, as a float).
A Python Dijkstra per source in exact integers took 0.8 s of a 5.4 s
``distribute`` on the 2-layer flax.nnx training step on 2x4 (7,428 rows
over 208 step graphs of 64-81 layouts and 745-1,115 steps); one in exact
integers over the float-tight steps only was no faster (the heap, not the
scan, was the cost).

``StepGraph.least`` runs SciPy's Dijkstra (C) over the steps' times as
floats, for every source asked for at once.  A float sum of a path's steps
is within a few units in the last place of its exact sum (``plan`` still
adds exactly), far below any difference the model can mean: the search's
own LP and its ties work to 1e-9 of a plan's total.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra


class StepGraph:
    """A step graph over ``size`` layouts (step ``k`` from ``src[k]`` to
    ``dst[k]`` takes ``seconds[k]``) as a sparse matrix: the cheapest step
    per pair of layouts (steps from a layout to itself dropped)."""

    def __init__(
        self, size: int, src: np.ndarray, dst: np.ndarray, seconds: np.ndarray
    ) -> None:
        self.size = size
        keep = src != dst
        pair = src[keep] * size + dst[keep]
        times = seconds[keep]
        order = np.lexsort((times, pair))  # by pair, the cheapest first
        pair, times = pair[order], times[order]
        first = np.ones(len(pair), dtype=bool)
        first[1:] = pair[1:] != pair[:-1]
        pair, times = pair[first], times[first]
        # Explicit zeros stay edges for SciPy's graph routines (a free step).
        self.matrix = csr_array(
            (times, (pair // size, pair % size)), shape=(size, size)
        )

    def least(self, starts: Sequence[int]) -> np.ndarray:
        """Row ``r``: the least seconds from ``starts[r]`` to every layout
        (``inf``: not reached)."""
        if not starts:
            return np.zeros((0, self.size))
        return np.atleast_2d(dijkstra(self.matrix, directed=True, indices=list(starts)))
