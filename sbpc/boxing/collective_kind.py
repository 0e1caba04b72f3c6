"""The kinds of boxing step, named once: the collectives of the sbp dialect.

A ``StrEnum``: each member equals (and hashes as) its name string, so plans,
programs, reports and the emitted JAX text read the same as when the kinds
were plain strings, and a string from elsewhere (``"all_gather"``) still
compares equal.  Each kind is one row of the boxing table
(``sbpc.boxing.cost_model``); ``transfer`` moves a value between placements.
``makes`` and ``split_further`` say which layout changes a step can make,
for the sbp dialect's verifiers and the JAX lowering alike.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from sbpc.algebra.sbp import Broadcast, NdSbp, Partial, Sbp, Split


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

# What one changed hierarchy dim of each kind looks like: (source, target).
CHANGES: dict[CollectiveKind, tuple[type | tuple[type, ...], type]] = {
    CollectiveKind.ALL_GATHER: (Split, Broadcast),
    CollectiveKind.ALL_REDUCE: (Partial, Broadcast),
    CollectiveKind.REDUCE_SCATTER: (Partial, Split),
    CollectiveKind.ALL_TO_ALL: (Split, Split),
    CollectiveKind.LOCAL_SLICE: (Broadcast, Split),
    CollectiveKind.LOCAL_TO_PARTIAL: ((Broadcast, Split), Partial),
}


def makes(kind: CollectiveKind, src: Sbp, dst: Sbp) -> bool:
    """Whether one hierarchy dim changing ``src -> dst`` is ``kind``'s sort of
    change (``S -> B`` for an all_gather, ...; an all_to_all must moreover
    change the split axis, which callers check with their own words)."""
    before, after = CHANGES[kind]
    return isinstance(src, before) and isinstance(dst, after)


def split_further(
    src: NdSbp, dst: NdSbp, dims: Sequence[int], d: int
) -> tuple[int, int] | None:
    """``(later, axis)``: a later hierarchy dim outside ``dims`` that splits
    tensor dim ``axis`` further, whose split hierarchy dim ``d`` changes
    (None: none does).

    A collective can change only the innermost split of a tensor dim: under a
    further split the blocks a device group holds are not contiguous.
    """
    axes = {s.axis for s in (src[d], dst[d]) if isinstance(s, Split)}
    for later in range(d + 1, len(src)):
        s = src[later]
        if later not in dims and isinstance(s, Split) and s.axis in axes:
            return later, s.axis
    return None
