"""Results of the shrink's pure steps, remembered by the contents of their inputs.

A model of repeated layers gives the shrink the same small problems over and
over: the same series node between the same two tables, the same leaf, the
same node with the same neighbour tables to prune.  Each step is a pure
function of a few small arrays, so its result can be kept under a key made
of those arrays' exact bytes (shape and dtype included) and reused.  A hit
returns the very arrays the first computation returned, so every record,
every table and every later float is bit-for-bit what recomputing gives: the
plan and its objective cannot change.  The arrays kept are never written to
(the shrink replaces arrays, it does not update them in place).

Keys hold the inputs in the order the step reads them (a node's neighbours
in the order it visits them), since a float sum depends on its order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")


def content(*arrays: np.ndarray) -> tuple:
    """An exact, hashable key of ``arrays``' values (shape, dtype and bytes).

    The dtype object itself, not its name: equal dtypes (byte order
    included) compare and hash equal, and it costs no string."""
    return tuple([(x.dtype, x.shape, x.tobytes()) for x in arrays])


class ContentMemo:
    """One dictionary per step kind, with hit and miss counts (for tests and
    the profile: a memo that never hits only costs its keys)."""

    def __init__(self) -> None:
        self._results: dict[tuple, object] = {}
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple, compute: Callable[..., T], *args: Any) -> T:
        """``compute(*args)``, or what it returned for an equal ``key`` before."""
        try:
            result = self._results[key]
        except KeyError:
            self.misses += 1
            result = self._results[key] = compute(*args)
            return result
        self.hits += 1
        return result  # type: ignore[return-value]
