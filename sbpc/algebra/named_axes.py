"""Layouts on named mesh axes (JAX's PartitionSpec, Shardy's shardings) as nd_sbps.

JAX and Shardy say, per tensor dimension, which mesh axes split it, major
axis first: ``P(("x", "y"), None)``, ``[{"x", "y"}, {}]``.  An nd_sbp says,
per hierarchy dimension (= mesh axis, in mesh order), what it does to the
tensor.  Under the hierarchical reading (``sbpc.algebra.layout``) hierarchy
dim 0 cuts first, so a tensor dim split by several axes must list them in
mesh order; an axis naming no dimension is ``B``, or ``P(sum)`` when the
value is unreduced over it.  ``("y", "x")`` on a mesh ``("x", "y")`` splits
minor-first, which an nd_sbp on the mesh's hierarchy cannot say: it is an
nd_sbp on the mesh's placement with its axes reordered (``axis_order``:
``("y", "x")``, the rank array transposed, ``Placement.permuted``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import Broadcast, NdSbp, Partial, Sbp, Split

DimAxes = tuple[str, ...]  # the axes splitting one tensor dim, major first


class NamedAxesError(ValueError):
    """A named-axes layout sbpc cannot express as an nd_sbp."""


def nd_sbp_of(
    dims: Sequence[Sequence[str]],
    axis_names: Sequence[str],
    unreduced: Sequence[str] = (),
) -> NdSbp:
    """The nd_sbp of a layout given as the axes splitting each tensor dim.

    ``dims[d]`` lists the mesh axes splitting tensor dim ``d``, major first;
    axes in ``unreduced`` hold partial sums; all others are ``B``.
    """
    names = list(axis_names)
    entries: list[Sbp] = [Broadcast()] * len(names)
    used: dict[str, str] = {}

    def take(axis: str, what: str) -> int:
        if axis not in names:
            raise NamedAxesError(
                f"unknown mesh axis '{axis}' (the mesh has {_listing(names)})"
            )
        if axis in used:
            raise NamedAxesError(f"mesh axis '{axis}' used twice: {used[axis]}, {what}")
        used[axis] = what
        return names.index(axis)

    for d, axes in enumerate(dims):
        positions = [take(a, f"dimension {d}") for a in axes]
        if positions != sorted(positions):
            raise NamedAxesError(
                f"dimension {d} is split by {_listing(axes)} in an order other than "
                f"the mesh's ({_listing(names)}); sbpc splits a dimension by mesh "
                "axes major-first in mesh order"
            )
        for k in positions:
            entries[k] = Split(d)
    for a in unreduced:
        entries[take(a, "unreduced")] = Partial("sum")
    return tuple(entries)


def axis_order(dims: Sequence[Sequence[str]], axis_names: Sequence[str]) -> DimAxes:
    """The mesh axes in an order that lists each dim's axes major first:
    ``axis_names`` itself where it does, else the nearest such order (each
    axis as early as the mesh puts it, after the axes a dim lists before it).

    Every axis splits at most one dim, so such an order always exists;
    unknown axes are left for ``nd_sbp_of`` to report.
    """
    names = list(axis_names)
    before: dict[str, set[str]] = {n: set() for n in names}
    for axes in dims:
        known = [a for a in axes if a in before]
        for a, b in itertools.pairwise(known):
            before[b].add(a)
    order: list[str] = []
    while len(order) < len(names):
        nxt = next(
            (n for n in names if n not in order and before[n] <= set(order)), None
        )
        if nxt is None:  # an axis used twice: nd_sbp_of says so
            return tuple(names)
        order.append(nxt)
    return tuple(order)


def sub_axis_names(name: str, factors: Sequence[int]) -> list[str]:
    """Shardy's names of an axis split into ``factors`` (major first):
    ``x:(1)2``, ``x:(2)2``; the axis's own name when it is not split."""
    if len(factors) == 1:
        return [name]
    names, pre = [], 1
    for n in factors:
        names.append(f"{name}:({pre}){n}")
        pre *= n
    return names


def axis_factors(
    sizes: Sequence[tuple[str, int]], subs: Sequence[tuple[str, int, int]]
) -> list[tuple[int, ...]]:
    """Each mesh axis split where the sub-axes ``(axis, pre-size, size)``
    cut it (``"x":(2)2`` of an axis of 8 cuts it at 2 and 4: 2, 2, 2)."""
    cuts = {name: {1, n} for name, n in sizes}
    for name, pre, size in subs:
        if name not in cuts:
            raise NamedAxesError(f"unknown mesh axis '{name}'")
        n = dict(sizes)[name]
        if pre * size > n or n % (pre * size) or size < 2:
            raise NamedAxesError(f'"{name}":({pre}){size} is not a sub-axis of {n}')
        cuts[name] |= {pre, pre * size}
    factors = []
    for name, _ in sizes:
        points = sorted(cuts[name])
        if any(b % a for a, b in itertools.pairwise(points)):
            raise NamedAxesError(f"the sub-axes of '{name}' do not nest")
        factors.append(tuple(b // a for a, b in itertools.pairwise(points)) or (1,))
    return factors


def dim_axes_of(nd_sbp: NdSbp, axis_names: Sequence[str], rank: int) -> list[DimAxes]:
    """Per tensor dim, the axes that split it (mesh order = major first)."""
    _check_length(nd_sbp, axis_names)
    return [
        tuple(
            axis_names[k]
            for k, s in enumerate(nd_sbp)
            if isinstance(s, Split) and s.axis == d
        )
        for d in range(rank)
    ]


def partial_axes_of(nd_sbp: NdSbp, axis_names: Sequence[str]) -> dict[str, str]:
    """Axis name -> partial kind, for the ``P`` entries."""
    _check_length(nd_sbp, axis_names)
    return {
        axis_names[k]: s.kind for k, s in enumerate(nd_sbp) if isinstance(s, Partial)
    }


def spec_entries(
    nd_sbp: NdSbp, axis_names: Sequence[str], rank: int
) -> tuple[str | tuple[str, ...] | None, ...]:
    """A PartitionSpec's entries: None, one axis name, or a tuple of them."""
    out: list[str | tuple[str, ...] | None] = []
    for axes in dim_axes_of(nd_sbp, axis_names, rank):
        out.append(None if not axes else axes[0] if len(axes) == 1 else axes)
    return tuple(out)


def spec_dims(
    entries: Sequence[str | Sequence[str] | None], rank: int
) -> list[DimAxes]:
    """A PartitionSpec's entries (shorter than ``rank`` means trailing None)
    as the axes of each dim."""
    if len(entries) > rank:
        raise NamedAxesError(
            f"a PartitionSpec of {len(entries)} entries for a rank-{rank} value"
        )
    dims: list[DimAxes] = []
    for e in entries:
        if e is None:
            dims.append(())
        elif isinstance(e, str):
            dims.append((e,))
        else:
            dims.append(tuple(e))
    return dims + [()] * (rank - len(entries))


def _check_length(nd_sbp: NdSbp, axis_names: Sequence[str]) -> None:
    if len(nd_sbp) != len(axis_names):
        raise NamedAxesError(
            f"an nd_sbp of {len(nd_sbp)} entries on a mesh of {len(axis_names)} axes"
        )


def _listing(names: Sequence[str]) -> str:
    return ", ".join(f'"{n}"' for n in names) or "no axes"


def placement_axes(
    default: Placement,
    names: Sequence[str],
    p: Placement,
    given: Mapping[Placement, tuple[str, ...]] | None = None,
) -> tuple[str, ...]:
    """The mesh axis names of ``p``'s hierarchy dims: the default placement's
    names reordered where ``p`` is it with its axes reordered (a layout
    splitting by ``("y", "x")`` on a mesh ``("x", "y")``), Shardy's sub-axis
    names where ``p`` splits its axes into factors (then maybe reordered),
    else by position."""
    if given and p in given:  # another mesh's own names
        return given[p]
    by_position = tuple(
        names[k] if k < len(names) else f"d{k}" for k in range(max(p.ndim, len(names)))
    )
    arrangement = p.arrangement_in(default) if p != default else None
    if arrangement is None:
        return by_position
    factors, order = arrangement
    refined = [
        sub
        for name, f in zip(by_position, factors, strict=False)
        for sub in sub_axis_names(name, f)
    ]
    return tuple(refined[k] for k in order)
