"""Stages as placements: the mesh's stage axis cut into sub-meshes.

The stage axis is the mesh axis named ``stage``, else the first.  With ``s``
stages it is cut into ``s`` equal blocks; stage ``k``'s placement is the
mesh's ranks in block ``k``, keeping the other axes (and the stage axis
itself where a block still has more than one position on it).  One stage
is the whole mesh: its stage axis is an ordinary axis (data parallel, say).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sbpc.algebra.layout import local_shape
from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, NdSbp, Sbp, Split


class StagePlacementError(ValueError):
    """The mesh cannot hold that many stages."""


def stage_axis(placement: Placement, axis_names: Sequence[str] = ()) -> int:
    """The hierarchy dim stages are cut along: the one named ``stage``, else 0."""
    names = list(axis_names)
    return names.index("stage") if "stage" in names else 0


def stage_placements(
    placement: Placement, stages: int, axis: int = 0
) -> list[Placement]:
    """Each stage's placement (one: ``placement`` itself)."""
    if stages < 1:
        raise StagePlacementError(f"stages must be at least 1, not {stages}")
    if stages == 1:
        return [placement]
    size = placement.hierarchy[axis]
    if size % stages:
        raise StagePlacementError(
            f"{stages} stages do not divide the stage axis (mesh dim {axis}, "
            f"of size {size}) of the {'x'.join(map(str, placement.hierarchy))} mesh"
        )
    ranks = np.array(placement.ranks).reshape(placement.hierarchy)
    per = size // stages
    out = []
    for k in range(stages):
        block = np.take(ranks, range(k * per, (k + 1) * per), axis=axis)
        if per == 1 and placement.ndim > 1:
            block = np.squeeze(block, axis=axis)
        out.append(Placement.from_nested(placement.device, block.tolist()))
    return out


def drops_stage_axis(placement: Placement, stages: int, axis: int = 0) -> bool:
    """Whether a stage's placement has no stage axis (one position on it per
    stage, and other axes to keep)."""
    return stages > 1 and placement.ndim > 1 and placement.hierarchy[axis] == stages


def stage_layout(nd: NdSbp, placement: Placement, stages: int, axis: int = 0) -> NdSbp:
    """A layout on the whole mesh as a layout on a stage's placement."""
    if drops_stage_axis(placement, stages, axis):
        return tuple(s for k, s in enumerate(nd) if k != axis)
    return tuple(nd)


def stage_axis_names(
    names: Sequence[str], placement: Placement, stages: int, axis: int = 0
) -> tuple[str, ...]:
    """The mesh axis names of a stage's placement."""
    if names and drops_stage_axis(placement, stages, axis):
        return tuple(n for k, n in enumerate(names) if k != axis)
    return tuple(names)


def boundary_layout(
    shape: Sequence[int], hierarchy: Sequence[int], prefer: int | None = None
) -> NdSbp:
    """The layout a value crosses between stages in: each mesh dim splits
    the preferred tensor dim (the batch's), else the largest, that it
    still divides evenly, so each device sends and receives the least."""
    nd: list[Sbp] = []
    order = sorted(range(len(shape)), key=lambda d: (d != prefer, -shape[d]))
    for k, n in enumerate(hierarchy):
        chosen: Sbp = B
        for d in order:
            trial = (*nd, Split(d))
            here = local_shape(tuple(shape), (*trial,), tuple(hierarchy[: k + 1]))
            before = local_shape(tuple(shape), (*nd, B), tuple(hierarchy[: k + 1]))
            if before[d] % n == 0 and here[d] >= 1 and shape[d] > 1:
                chosen = Split(d)
                break
        nd.append(chosen)
    return tuple(nd)
