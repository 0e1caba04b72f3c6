"""Where each piece of a logical tensor lives: local shapes and slices.

An nd_sbp is read hierarchically (OneFlow's 2-D SBP, seed 002): hierarchy
dimension 0 distributes the logical tensor, dimension 1 distributes each of
those pieces again, and so on.  So ``(S(0), S(0))`` on a 2x4 mesh cuts tensor
dimension 0 into 8 blocks, device ``(i, j)`` holding block ``i * 4 + j``.
Only even splits are supported: ``check_even`` names the first offender.
"""

from __future__ import annotations

from collections.abc import Sequence

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


def check_even(shape: Shape, nd_sbp: NdSbp, hierarchy: Sequence[int]) -> None:
    """Raise ``UnevenSplitError`` unless every split divides its dimension evenly."""
    rank = len(shape)
    for sbp in nd_sbp:
        if isinstance(sbp, Split) and not 0 <= sbp.axis < rank:
            raise UnevenSplitError(
                f"split axis {sbp.axis} is out of range for a rank-{rank} tensor"
            )
    for dim, f in enumerate(split_factors(nd_sbp, hierarchy, rank)):
        if shape[dim] % f:
            raise UnevenSplitError(
                f"dimension {dim} of size {shape[dim]} cannot be split evenly "
                f"into {f} pieces"
            )


def is_even(shape: Shape, nd_sbp: NdSbp, hierarchy: Sequence[int]) -> bool:
    try:
        check_even(shape, nd_sbp, hierarchy)
    except UnevenSplitError:
        return False
    return True


def local_shape(shape: Shape, nd_sbp: NdSbp, hierarchy: Sequence[int]) -> Shape:
    """The shape every device holds (the same everywhere: splits are even)."""
    check_even(shape, nd_sbp, hierarchy)
    factors = split_factors(nd_sbp, hierarchy, len(shape))
    return tuple(d // f for d, f in zip(shape, factors, strict=True))


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
    local = local_shape(shape, nd_sbp, hierarchy)
    slices = []
    for dim, size in enumerate(local):
        index, _ = block_index(nd_sbp, hierarchy, coord, dim)
        slices.append(slice(index * size, (index + 1) * size))
    return tuple(slices)
