"""The kinds of boxing step, named once: the collectives of the sbp dialect.

A ``StrEnum``: each member equals (and hashes as) its name string, so plans,
programs, reports and the emitted JAX text read the same as when the kinds
were plain strings, and a string from elsewhere (``"all_gather"``) still
compares equal.  Each kind is one row of the boxing table
(``sbpc.boxing.cost_model``); ``transfer`` moves a value between placements.
"""

from __future__ import annotations

import enum


class CollectiveKind(enum.StrEnum):
    """One step of a boxing plan: what the sbp dialect's collective ops name."""

    ALL_GATHER = "all_gather"
    ALL_REDUCE = "all_reduce"
    REDUCE_SCATTER = "reduce_scatter"
    ALL_TO_ALL = "all_to_all"
    LOCAL_SLICE = "local_slice"
    LOCAL_TO_PARTIAL = "local_to_partial"
    TRANSFER = "transfer"


# The kinds that communicate within one placement: a step may span several
# hierarchy dims only with one of these (one ring over their devices).
COLLECTIVES: tuple[CollectiveKind, ...] = (
    CollectiveKind.ALL_GATHER,
    CollectiveKind.ALL_REDUCE,
    CollectiveKind.REDUCE_SCATTER,
    CollectiveKind.ALL_TO_ALL,
)
# The kinds each device does alone: no bytes sent, no latency.
LOCAL_KINDS: tuple[CollectiveKind, ...] = (
    CollectiveKind.LOCAL_SLICE,
    CollectiveKind.LOCAL_TO_PARTIAL,
)
# The reductions: they combine partial pieces.
REDUCTIONS: tuple[CollectiveKind, ...] = (
    CollectiveKind.ALL_REDUCE,
    CollectiveKind.REDUCE_SCATTER,
)
