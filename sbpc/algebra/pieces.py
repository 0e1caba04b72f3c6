"""Numpy pieces of a logical tensor on virtual devices: the semantic oracle.

``distribute`` cuts a logical array into the local pieces an nd_sbp implies;
``assemble`` puts local pieces back together.  Splits are balanced
(``np.array_split``: the first ``n mod p`` pieces hold one more element).  Partial layouts are made of
*random* pieces (summing, or max/min-ing, to the value), so a program that
treats a partial piece as if it were the value is caught by a test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from sbpc.algebra.layout import block_index, check_axes
from sbpc.algebra.placement import Coord
from sbpc.algebra.sbp import Broadcast, NdSbp, Partial, Split

Pieces = dict[Coord, np.ndarray]


def _coords(hierarchy: Sequence[int]) -> list[Coord]:
    return [tuple(int(c) for c in idx) for idx in np.ndindex(*hierarchy)]


def distribute(
    value: np.ndarray,
    nd_sbp: NdSbp,
    hierarchy: Sequence[int],
    rng: np.random.Generator | None = None,
) -> Pieces:
    """Every device's local piece of ``value`` laid out as ``nd_sbp``."""
    value = np.asarray(value)
    check_axes(value.shape, nd_sbp)
    rng = rng or np.random.default_rng(0)
    pieces: Pieces = {(): value}
    # Hierarchy dims are applied in order: dim k re-distributes each dim-(k-1) piece.
    for sbp, n in zip(nd_sbp, hierarchy, strict=True):
        nxt: Pieces = {}
        for prefix, piece in pieces.items():
            for c, sub in enumerate(_split_one(piece, sbp, n, rng)):
                nxt[(*prefix, c)] = sub
        pieces = nxt
    return pieces


def _split_one(
    piece: np.ndarray,
    sbp: Split | Broadcast | Partial,
    n: int,
    rng: np.random.Generator,
) -> list[np.ndarray]:
    if isinstance(sbp, Split):
        return [
            np.ascontiguousarray(p) for p in np.array_split(piece, n, axis=sbp.axis)
        ]
    if isinstance(sbp, Broadcast):
        return [piece.copy() for _ in range(n)]
    return _partial_pieces(piece, sbp.kind, n, rng)


def _partial_pieces(
    piece: np.ndarray, kind: str, n: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """``n`` random pieces whose sum / max / min is ``piece``."""
    if n == 1:
        return [piece.copy()]
    holder = int(rng.integers(n))
    if piece.dtype == np.bool_:
        # sum of booleans is "or"; max is "or", min is "and".
        fill = kind == "min"
        return [
            piece.copy() if i == holder else np.full_like(piece, fill) for i in range(n)
        ]
    floating = np.issubdtype(piece.dtype, np.floating)
    if kind == "sum":
        if not floating:
            return [
                piece.copy() if i == holder else np.zeros_like(piece) for i in range(n)
            ]
        others = [
            rng.standard_normal(piece.shape).astype(piece.dtype) for _ in range(n - 1)
        ]
        rest = piece - np.sum(others, axis=0) if others else piece
        others.insert(holder, rest.astype(piece.dtype))
        return others
    # max: pieces are <= piece, min: >= piece.  Which device holds the exact
    # value is drawn per element, so no device holds the whole value and a
    # reduction of the wrong kind or in the wrong order shows up.
    sign = -1 if kind == "max" else 1
    holders = rng.integers(n, size=piece.shape)
    out = []
    for i in range(n):
        if floating:
            delta = np.abs(rng.standard_normal(piece.shape))
            other = (piece + sign * delta).astype(piece.dtype)
        else:
            info = np.iinfo(piece.dtype)
            delta = rng.integers(0, 4, size=piece.shape).astype(piece.dtype)
            if kind == "max":
                other = np.where(piece >= info.min + 3, piece - delta, piece)
            else:
                other = np.where(piece <= info.max - 3, piece + delta, piece)
        out.append(np.where(holders == i, piece, other).astype(piece.dtype))
    return out


def assemble(
    pieces: Mapping[Coord, np.ndarray], nd_sbp: NdSbp, hierarchy: Sequence[int]
) -> np.ndarray:
    """The logical value that local ``pieces`` laid out as ``nd_sbp`` stand for.

    Raises ``ValueError`` if broadcast copies disagree (a wrong layout claim).
    """
    level: dict[Coord, np.ndarray] = dict(pieces)
    for dim in reversed(range(len(hierarchy))):
        sbp, n = nd_sbp[dim], hierarchy[dim]
        nxt: dict[Coord, np.ndarray] = {}
        prefixes = sorted({c[:dim] for c in level})
        for prefix in prefixes:
            parts = [level[(*prefix, i)] for i in range(n)]
            nxt[prefix] = _combine_one(parts, sbp)
        level = nxt
    return level[()]


def _combine_one(
    parts: list[np.ndarray], sbp: Split | Broadcast | Partial
) -> np.ndarray:
    if isinstance(sbp, Split):
        return np.concatenate(parts, axis=sbp.axis)
    if isinstance(sbp, Broadcast):
        first = parts[0]
        for other in parts[1:]:
            if not np.allclose(first, other, rtol=1e-5, atol=1e-5, equal_nan=True):
                raise ValueError("broadcast copies differ between devices")
        return first
    if parts[0].dtype == np.bool_:
        reduce = np.logical_and if sbp.kind == "min" else np.logical_or
        return reduce.reduce(parts)
    op = {"sum": np.add, "max": np.maximum, "min": np.minimum}[sbp.kind]
    return op.reduce(parts).astype(parts[0].dtype)


def block_of(
    shape: tuple[int, ...], nd_sbp: NdSbp, hierarchy: Sequence[int], coord: Coord
) -> list[tuple[int, int]]:
    """(index, count) of the block each tensor dimension holds at ``coord``."""
    return [block_index(nd_sbp, hierarchy, coord, d) for d in range(len(shape))]


def all_coords(hierarchy: Sequence[int]) -> list[Coord]:
    """Device coordinates in row-major order."""
    return _coords(hierarchy)
