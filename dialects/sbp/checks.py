"""The layout rules both sbp verifiers apply: op verifiers and the module's.

A layout (an nd_sbp) fits a value on a placement when it has one entry per
hierarchy dimension, splits only dimensions the value has, and splits them
evenly.  A failed check raises ``InvalidLayout``; each verifier turns it into
its own exception type (``VerifyException`` or a located error).
"""

from __future__ import annotations

from functools import cache

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, SSAValue

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import NdSbp, Split, format_nd_sbp

from .attrs import PlacementAttr, entries_text


class InvalidLayout(Exception):
    """A failed check; the caller turns it into the right exception type."""


def placement_text(placement: Placement | None) -> str:
    """A placement as its attribute prints, for messages."""
    return str(PlacementAttr(placement)) if placement is not None else "no placement"


def _hierarchy_text(placement: Placement) -> str:
    dims = "x".join(str(n) for n in placement.hierarchy)
    return (
        f"the placement ({placement.device}, {dims}) has "
        f"{placement.ndim} hierarchy dimension{'s' if placement.ndim != 1 else ''}"
    )


def _check_nd_len(nd: NdSbp, placement: Placement, what: str) -> None:
    if len(nd) != placement.ndim:
        raise InvalidLayout(
            f"{what} {format_nd_sbp(nd)} has {entries_text(len(nd))}, but "
            + _hierarchy_text(placement)
        )


def _static_shape(ty: Attribute) -> tuple[int, ...] | None:
    """Shape of a ranked tensor type (-1 for dynamic dims), None otherwise."""
    if isinstance(ty, TensorType):
        return tuple(ty.get_shape())
    return None


def _check_axes(nd: NdSbp, ty: Attribute, what: str) -> None:
    shape = _static_shape(ty)
    if shape is None:
        if any(isinstance(s, Split) for s in nd) and not is_unranked(ty):
            raise InvalidLayout(
                f"{what} {format_nd_sbp(nd)} splits a value of type {ty}"
            )
        return
    for s in nd:
        if isinstance(s, Split) and s.axis >= len(shape):
            raise InvalidLayout(
                f"{what} {format_nd_sbp(nd)} splits dimension {s.axis}, but {ty} "
                f"has rank {len(shape)}"
            )


def is_unranked(ty: Attribute) -> bool:
    """An unranked tensor type (sbp accepts it; it cannot check its splits)."""
    return ty.name == "unranked_tensor"


def check_layout(
    nd: NdSbp, ty: Attribute, placement: Placement | None, what: str
) -> None:
    """``nd`` fits a value of type ``ty`` (on ``placement``, when known)."""
    _check_axes(nd, ty, what)
    if placement is not None:
        _check_nd_len(nd, placement, what)


def is_tensor(value: SSAValue) -> bool:
    """A value sbp gives a layout and placement: a (ranked or unranked) tensor."""
    return _is_tensor_type(type(value.type))


@cache
def _is_tensor_type(cls: type[Attribute]) -> bool:
    """Per type class (``is_tensor`` runs on every operand of a module, and
    isinstance against xDSL's abstract classes is slow)."""
    return (
        issubclass(cls, TensorType) or getattr(cls, "name", None) == "unranked_tensor"
    )
