"""Layouts given to ``sbpc.jax`` (nd_sbp strings and tuples, PartitionSpecs,
NamedShardings) as one layout per flat argument or result.

A PartitionSpec that splits a dimension by mesh axes in another order than
the mesh's (``P(("y", "x"))`` on ``("x", "y")``) is a ``Reordered``
layout: an nd_sbp on the mesh's axes in another order, which
``place_reordered`` writes as the argument's (result's) own placement
(``sbpc.passes.bridge.reordered``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
from xdsl.dialects import func

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp, SbpSyntaxError, format_nd_sbp, parse_nd_sbp
from sbpc.dialects import sbp as sbp_dialect
from sbpc.jax_plan import SbpcError
from sbpc.jax_sharding import Reordered, is_sharding_leaf
from sbpc.passes.bridge.reordered import on_default, place_argument, place_result

Layout = str | NdSbp | Reordered | None
LayoutTree = Any  # a pytree prefix whose leaves are Layouts


def _is_layout_leaf(x: Any) -> bool:
    return (
        x is None
        or isinstance(x, str | Reordered)
        or _is_nd_sbp(x)
        or is_sharding_leaf(x)
    )


def _is_nd_sbp(x: Any) -> bool:
    return (
        isinstance(x, tuple)
        and bool(x)
        and all(type(s).__module__ == "sbpc.algebra.sbp" for s in x)
    )


def _parse_layout(
    layout: Layout, placement: Placement, where: str, param: str = "layouts"
) -> NdSbp | Reordered | None:
    if layout is None or isinstance(layout, Reordered):
        return layout
    if isinstance(layout, str):
        try:
            nd = parse_nd_sbp(layout)
        except SbpSyntaxError as e:
            raise SbpcError(f"{where}: {e}") from e
    elif _is_nd_sbp(layout):
        nd = tuple(layout)
    else:
        raise SbpcError(
            f"{param}: {where}: a layout is an nd_sbp string ('[S(0), B]'), a tuple of "
            f"sbpc.algebra.sbp values or None, not {layout!r} "
            f"({type(layout).__name__})"
        )
    if len(nd) != placement.ndim:
        raise SbpcError(
            f"{where}: layout {format_nd_sbp(nd)} has {len(nd)} entries but the "
            f"mesh {mesh_text(placement)} has {placement.ndim} dimension(s)"
        )
    return nd


def mesh_text(placement: Placement) -> str:
    return "x".join(str(n) for n in placement.hierarchy)


@dataclass(frozen=True)
class _Repeat:
    """A prefix layout standing for ``times`` leaves (opaque to tree_util)."""

    layout: Layout
    times: int


def flat_layouts(
    layouts: LayoutTree, tree: Any, placement: Placement, what: str
) -> list[NdSbp | Reordered | None]:
    """One layout per leaf of ``tree``, from a pytree prefix of layouts."""
    param = {"argument": "in_layouts", "result": "out_layouts"}.get(what, what)
    paths = [
        f"{what}{jax.tree_util.keystr(p)}"
        for p, _ in jax.tree_util.tree_leaves_with_path(tree)
    ]
    if _is_layout_leaf(layouts):
        return [_parse_layout(layouts, placement, p, param) for p in paths]
    try:
        per_leaf = jax.tree_util.tree_map(
            lambda layout, sub: _Repeat(layout, len(jax.tree_util.tree_leaves(sub))),
            layouts,
            tree,
            is_leaf=_is_layout_leaf,
        )
    except (ValueError, TypeError) as e:
        raise SbpcError(
            f"{param}: {what} layouts do not match the structure of the {what}s "
            f"(they must be a pytree prefix of them): {e}"
        ) from e
    repeats = jax.tree_util.tree_leaves(
        per_leaf, is_leaf=lambda x: isinstance(x, _Repeat)
    )
    flat: list[Layout] = [r.layout for r in repeats for _ in range(r.times)]
    return [
        _parse_layout(layout, placement, p, param)
        for layout, p in zip(flat, paths, strict=True)
    ]


def place_reordered(
    f: func.FuncOp, layouts: list[Any], placement: Placement, what: str
) -> None:
    """Write each ``Reordered`` layout of ``f``'s arguments (results) as its
    own placement and take it out of ``layouts`` (made None)."""
    place = place_argument if what == "argument" else place_result
    get = sbp_dialect.get_arg_attr if what == "argument" else sbp_dialect.get_res_attr
    for i, layout in enumerate(layouts):
        if not isinstance(layout, Reordered):
            continue
        layouts[i] = None
        have = get(f, i, sbp_dialect.ND_SBP)
        if have is None:
            there = placement.permuted(layout.order)
            back = on_default(layout.nd, there, placement)
            place(f, i, layout.nd, there, placement, back)
        elif have != sbp_dialect.NdSbpAttr(layout.nd) or (
            what == "argument"
            and get(f, i, sbp_dialect.PLACEMENT)
            != sbp_dialect.PlacementAttr(placement.permuted(layout.order))
        ):
            raise SbpcError(
                f"{f.sym_name.data}: {what} #{i} is laid out otherwise by the "
                "function's own sharding than by the layouts given"
            )
