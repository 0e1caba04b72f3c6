"""Where each piece of a logical tensor lives: local shapes and slices.

An nd_sbp is read hierarchically (OneFlow's 2-D SBP, seed 002): hierarchy
dimension 0 distributes the logical tensor, dimension 1 distributes each of
those pieces again, and so on.  So ``(S(0), S(0))`` on a 2x4 mesh cuts tensor
dimension 0 into 8 blocks, device ``(i, j)`` holding block ``i * 4 + j``.
A split need not be even: each cut is OneFlow's balanced split (``n`` over
``p`` gives the first ``n mod p`` pieces one more element; pieces may be
empty), applied per hierarchy dim as above.  ``piece_bounds`` gives a
device's (offset, size); ``local_shape`` is the *padded* shape (the largest
piece), which every device holds in the JAX lowering (docs/uneven-splits.md).
``check_even`` names the first uneven dimension for callers that need one.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from sbpc.algebra.placement import Coord
from sbpc.algebra.sbp import NdSbp, Split

Shape = tuple[int, ...]


class UnevenSplitError(ValueError):
    """A layout that would need an uneven split of some tensor dimension."""


def split_factors(nd_sbp: NdSbp, hierarchy: Sequence[int], rank: int) -> list[int]:
    """How many pieces each tensor dimension is cut into."""
    factors = [1] * rank
    for sbp, n in zip(nd_sbp, hierarchy, strict=True):
        if isinstance(sbp, Split):
            factors[sbp.axis] *= n
    return factors


def check_axes(shape: Shape, nd_sbp: NdSbp) -> None:
    """Raise ``UnevenSplitError`` if a split names a dimension the tensor lacks."""
    rank = len(shape)
    for sbp in nd_sbp:
        if isinstance(sbp, Split) and not 0 <= sbp.axis < rank:
            raise UnevenSplitError(
                f"split axis {sbp.axis} is out of range for a rank-{rank} tensor"
            )


def check_even(shape: Shape, nd_sbp: NdSbp, hierarchy: Sequence[int]) -> None:
    """Raise ``UnevenSplitError`` unless every split divides its dimension evenly."""
    check_axes(shape, nd_sbp)
    for dim, f in enumerate(split_factors(nd_sbp, hierarchy, len(shape))):
        if shape[dim] % f:
            raise UnevenSplitError(
                f"dimension {dim} of size {shape[dim]} cannot be split evenly "
                f"into {f} pieces"
            )


def is_even(shape: Shape, nd_sbp: NdSbp, hierarchy: Sequence[int]) -> bool:
    """Whether every split divides its dimension evenly (and names one the
    tensor has)."""
    return _is_even(tuple(shape), tuple(nd_sbp), tuple(hierarchy))


@lru_cache(maxsize=65536)
def _is_even(shape: Shape, nd_sbp: NdSbp, hierarchy: tuple[int, ...]) -> bool:
    """``is_even``, once per (shape, layout, mesh): every candidate signature
    of every op asks it of each operand (a scanned decoder's bodies, whose
    ops repeat no other op: 44,000 questions)."""
    try:
        check_even(shape, nd_sbp, hierarchy)
    except UnevenSplitError:
        return False
    return True


def balanced(n: int, p: int, c: int) -> tuple[int, int]:
    """(offset, size) of piece ``c`` of ``n`` cut into ``p`` (OneFlow's balanced
    split: the first ``n mod p`` pieces hold one more element)."""
    q, r = divmod(n, p)
    return c * q + min(c, r), q + (c < r)


def piece_bounds(
    size: int, nd_sbp: NdSbp, hierarchy: Sequence[int], coord: Coord, dim: int
) -> tuple[int, int]:
    """(offset, size) along ``dim`` of the piece ``coord`` holds."""
    offset = 0
    for sbp, n, c in zip(nd_sbp, hierarchy, coord, strict=True):
        if isinstance(sbp, Split) and sbp.axis == dim:
            start, size = balanced(size, n, c)
            offset += start
    return offset, size


def padded_size(size: int, nd_sbp: NdSbp, hierarchy: Sequence[int], dim: int) -> int:
    """The largest piece along ``dim`` (ceil at every hierarchy level)."""
    for sbp, n in zip(nd_sbp, hierarchy, strict=True):
        if isinstance(sbp, Split) and sbp.axis == dim:
            size = -(-size // n)
    return size


def local_shape(shape: Shape, nd_sbp: NdSbp, hierarchy: Sequence[int]) -> Shape:
    """The padded local shape: the largest piece, which every device holds
    (the exact piece where splits are even)."""
    check_axes(shape, nd_sbp)
    return tuple(padded_size(d, nd_sbp, hierarchy, k) for k, d in enumerate(shape))


def piece_shape(
    shape: Shape, nd_sbp: NdSbp, hierarchy: Sequence[int], coord: Coord
) -> Shape:
    """The exact (unpadded) shape of the piece ``coord`` holds."""
    check_axes(shape, nd_sbp)
    return tuple(
        piece_bounds(d, nd_sbp, hierarchy, coord, k)[1] for k, d in enumerate(shape)
    )


def block_index(
    nd_sbp: NdSbp, hierarchy: Sequence[int], coord: Coord, dim: int
) -> tuple[int, int]:
    """(index, count) of the block of tensor dimension ``dim`` held at ``coord``."""
    index, count = 0, 1
    for sbp, n, c in zip(nd_sbp, hierarchy, coord, strict=True):
        if isinstance(sbp, Split) and sbp.axis == dim:
            index, count = index * n + c, count * n
    return index, count


def local_slices(
    shape: Shape, nd_sbp: NdSbp, hierarchy: Sequence[int], coord: Coord
) -> tuple[slice, ...]:
    """The slice of the logical tensor that ``coord`` holds (whole for B and P)."""
    check_axes(shape, nd_sbp)
    slices = []
    for dim, n in enumerate(shape):
        offset, size = piece_bounds(n, nd_sbp, hierarchy, coord, dim)
        slices.append(slice(offset, offset + size))
    return tuple(slices)


def padding_index(
    size: int, nd_sbp: NdSbp, hierarchy: Sequence[int], dim: int
) -> list[int] | None:
    """Logical index of every row of the padded global dim ``dim`` (block ``i``
    is rows ``[i*L, (i+1)*L)``, its tail repeating a valid row), or ``None``
    when the dim needs no padding."""
    rows = _padding_rows(size, tuple(nd_sbp), tuple(hierarchy), dim)
    return None if rows is None else list(rows)


@lru_cache(maxsize=1024)
def _padding_rows(
    size: int, nd_sbp: NdSbp, hierarchy: tuple[int, ...], dim: int
) -> tuple[int, ...] | None:
    """``padding_index``, once per layout: the emitter asks for the same
    dims of the same layouts many times, each a list as long as the dim."""
    local = padded_size(size, nd_sbp, hierarchy, dim)
    blocks = block_bounds(size, nd_sbp, hierarchy, dim)
    if local * len(blocks) == size:
        return None
    out: list[int] = []
    for offset, n in blocks:
        out.extend(range(offset, offset + n))
        out.extend([max(offset + n - 1, 0)] * (local - n))
    return tuple(out)


def unpadding_index(
    size: int, nd_sbp: NdSbp, hierarchy: Sequence[int], dim: int
) -> list[int] | None:
    """Row of the padded global dim ``dim`` that holds each logical index."""
    local = padded_size(size, nd_sbp, hierarchy, dim)
    blocks = block_bounds(size, nd_sbp, hierarchy, dim)
    if local * len(blocks) == size:
        return None
    out: list[int] = []
    for block, (_, n) in enumerate(blocks):
        out.extend(range(block * local, block * local + n))
    return out


def block_sizes(
    size: int, nd_sbp: NdSbp, hierarchy: Sequence[int], dim: int
) -> list[int]:
    """The size along ``dim`` of every block, in block order."""
    return [n for _, n in block_bounds(size, nd_sbp, hierarchy, dim)]


def block_bounds(
    size: int, nd_sbp: NdSbp, hierarchy: Sequence[int], dim: int
) -> list[tuple[int, int]]:
    """(offset, size) along ``dim`` of every block, in block order (the
    pieces ``piece_bounds`` gives, each level of splits cutting the pieces
    of the levels before it; linear in the blocks, as a placement of
    thousands of devices needs)."""
    blocks = [(0, size)]
    for sbp, n in zip(nd_sbp, hierarchy, strict=True):
        if isinstance(sbp, Split) and sbp.axis == dim:
            blocks = [
                (offset + start, piece)
                for offset, whole in blocks
                for start, piece in (balanced(whole, n, c) for c in range(n))
            ]
    return blocks
