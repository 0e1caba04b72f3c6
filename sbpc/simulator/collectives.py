"""What each device computes in a boxing step, on numpy pieces: the semantic oracle.

``apply_step`` runs one ``BoxingStep`` on the local pieces of virtual devices
(``sbpc.algebra.pieces.Pieces``, keyed by device coordinate).  Each device
computes its new piece from the pieces of its group only (the devices that
differ along ``step.dims``, ordered as the hierarchy), as a real collective
would; nothing here assembles the logical tensor or reads the target layout
beyond the entries of the changed dims.  So a step that the planner wrongly
thought legal produces wrong pieces, and ``assemble`` exposes it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from sbpc.algebra.pieces import Pieces
from sbpc.algebra.placement import Coord
from sbpc.algebra.sbp import Broadcast, Partial, PartialKind, Split
from sbpc.boxing.collective_kind import CollectiveKind
from sbpc.boxing.planner import BoxingPlan, BoxingStep


class CollectiveError(ValueError):
    """Pieces that do not fit the step (missing devices, indivisible shapes)."""


def groups(hierarchy: Sequence[int], dims: Sequence[int]) -> list[list[Coord]]:
    """Device groups of ``dims``: equal coordinates elsewhere, row-major in ``dims``."""
    others = [d for d in range(len(hierarchy)) if d not in dims]
    out = []
    for fixed in itertools.product(*(range(hierarchy[d]) for d in others)):
        group = []
        for varying in itertools.product(*(range(hierarchy[d]) for d in dims)):
            coord = [0] * len(hierarchy)
            for d, c in zip(others, fixed, strict=True):
                coord[d] = c
            for d, c in zip(dims, varying, strict=True):
                coord[d] = c
            group.append(tuple(coord))
        out.append(group)
    return out


def identity(kind: PartialKind, dtype: np.dtype) -> np.generic:
    """The value that leaves a ``kind`` reduction unchanged (fills partial pieces)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return np.bool_(kind == "min")  # sum and max of booleans are "or"
    if kind == "sum":
        return dtype.type(0)
    if np.issubdtype(dtype, np.floating):
        return dtype.type(-np.inf if kind == "max" else np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.min if kind == "max" else info.max)


def reduce(parts: Sequence[np.ndarray], kind: PartialKind) -> np.ndarray:
    """Elementwise ``kind`` over ``parts`` (booleans: sum/max are or, min is and)."""
    stacked = np.stack(parts)
    if stacked.dtype == np.bool_:
        op = np.logical_and if kind == "min" else np.logical_or
    else:
        op = {"sum": np.add, "max": np.maximum, "min": np.minimum}[kind]
    return op.reduce(stacked, axis=0).astype(parts[0].dtype)


def _split(x: np.ndarray, n: int, axis: int) -> list[np.ndarray]:
    """Balanced pieces (the first ``size mod n`` one longer), as layouts cut."""
    if not 0 <= axis < x.ndim:
        raise CollectiveError(f"no axis {axis} in a piece of shape {x.shape}")
    return np.array_split(x, n, axis=axis)


def _run_group(xs: list[np.ndarray], step: BoxingStep) -> list[np.ndarray]:
    """New pieces of one group, in group order, from its old pieces ``xs``."""
    d = step.dims[0]
    s, t = step.src[d], step.dst[d]
    n = len(xs)
    kind = step.kind
    if kind == CollectiveKind.ALL_GATHER:
        assert isinstance(s, Split)
        whole = np.concatenate(xs, axis=s.axis)
        return [whole.copy() for _ in xs]
    if kind == CollectiveKind.ALL_TO_ALL:
        assert isinstance(s, Split) and isinstance(t, Split)
        chunks = [_split(x, n, t.axis) for x in xs]
        return [np.concatenate([c[r] for c in chunks], axis=s.axis) for r in range(n)]
    if kind == CollectiveKind.ALL_REDUCE:
        assert step.reduce is not None
        total = reduce(xs, step.reduce)
        return [total.copy() for _ in xs]
    if kind == CollectiveKind.REDUCE_SCATTER:
        assert step.reduce is not None and isinstance(t, Split)
        chunks = [_split(x, n, t.axis) for x in xs]
        return [reduce([c[r] for c in chunks], step.reduce) for r in range(n)]
    if kind == CollectiveKind.LOCAL_SLICE:
        assert isinstance(t, Split)
        return [_split(x, n, t.axis)[g].copy() for g, x in enumerate(xs)]
    if kind == CollectiveKind.LOCAL_TO_PARTIAL:
        assert isinstance(t, Partial)
        if isinstance(s, Broadcast):
            if t.kind != "sum":  # every copy is a valid max/min piece
                return [x.copy() for x in xs]
            zero = identity("sum", xs[0].dtype)
            return [
                x.copy() if g == 0 else np.full_like(x, zero) for g, x in enumerate(xs)
            ]
        assert isinstance(s, Split)
        out = []
        sizes = [x.shape[s.axis] for x in xs]  # unequal under an uneven split
        for g, x in enumerate(xs):
            shape = list(x.shape)
            shape[s.axis] = sum(sizes)
            y = np.full(shape, identity(t.kind, x.dtype), dtype=x.dtype)
            index = [slice(None)] * x.ndim
            index[s.axis] = slice(sum(sizes[:g]), sum(sizes[: g + 1]))
            y[tuple(index)] = x
            out.append(y)
        return out
    raise CollectiveError(f"no group semantics for step kind '{kind}'")


def _transfer(pieces: Mapping[Coord, np.ndarray], step: BoxingStep) -> Pieces:
    assert step.src_placement is not None and step.dst_placement is not None
    src = list(step.src_placement.coords())
    dst = list(step.dst_placement.coords())
    return {dst[j]: pieces[src[i]].copy() for j, i in enumerate(step.sources)}


def apply_step(pieces: Mapping[Coord, np.ndarray], step: BoxingStep) -> Pieces:
    """Every device's piece after ``step``, computed from its group's pieces."""
    if step.kind == CollectiveKind.TRANSFER:
        return _transfer(pieces, step)
    out: Pieces = {}
    for group in groups(step.hierarchy, step.dims):
        try:
            xs = [pieces[c] for c in group]
        except KeyError as err:
            raise CollectiveError(f"no piece for device {err.args[0]}") from None
        out.update(zip(group, _run_group(xs, step), strict=True))
    return out


def run_plan(pieces: Mapping[Coord, np.ndarray], plan: BoxingPlan) -> Pieces:
    """Apply every step of ``plan`` in order."""
    out = dict(pieces)
    for step in plan.steps:
        out = apply_step(out, step)
    return out
