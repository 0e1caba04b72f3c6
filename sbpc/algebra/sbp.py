"""The SBP algebra: how one logical tensor maps onto the devices of a mesh.

Plain data, no IR: ``Split(axis)``, ``Broadcast()`` and ``Partial(kind)``
describe one hierarchy dimension; an nd_sbp is a tuple of them, one per
dimension of the placement's hierarchy (OneFlow's ``NdSbp``).  The textual
form (``S(0)``, ``B``, ``P(sum)``) is the one the sbp dialect prints.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal, TypeAlias

PartialKind: TypeAlias = Literal["sum", "max", "min"]
PARTIAL_KINDS: tuple[PartialKind, ...] = ("sum", "max", "min")


@dataclass(frozen=True, order=True)
class Split:
    """Each device holds one even block of the tensor along ``axis``."""

    axis: int

    def __str__(self) -> str:
        return f"S({self.axis})"


@dataclass(frozen=True, order=True)
class Broadcast:
    """Each device holds the whole tensor."""

    def __str__(self) -> str:
        return "B"


@dataclass(frozen=True, order=True)
class Partial:
    """Each device holds a full-shape piece; ``kind`` over devices gives the value."""

    kind: PartialKind = "sum"

    def __post_init__(self) -> None:
        if self.kind not in PARTIAL_KINDS:
            raise SbpSyntaxError(
                f"unknown partial kind '{self.kind}', expected one of "
                + ", ".join(PARTIAL_KINDS)
            )

    def __str__(self) -> str:
        return f"P({self.kind})"


Sbp: TypeAlias = Split | Broadcast | Partial
NdSbp: TypeAlias = tuple[Sbp, ...]

B = Broadcast()
P = Partial("sum")


def S(axis: int) -> Split:
    """Shorthand for ``Split(axis)``."""
    return Split(axis)


class SbpSyntaxError(ValueError):
    """Raised for text that is not an SBP, with a message fit for a diagnostic."""


_SBP_RE = re.compile(r"\s*(?:S\(\s*(-?\d+)\s*\)|B|P(?:\(\s*(\w+)\s*\))?)\s*$")


@functools.lru_cache(maxsize=4096)
def parse_sbp(text: str) -> Sbp:
    """Parse ``S(k)``, ``B``, ``P``, ``P(sum)``, ``P(max)`` or ``P(min)``.

    Memoised: every ``sbp.nd`` attribute is read through this, often the same
    few spellings (``B``, ``S(0)``) hundreds of thousands of times, and the
    values are immutable."""
    match = _SBP_RE.match(text)
    if match is None:
        raise SbpSyntaxError(
            f"expected an SBP (S(<axis>), B, P or P(sum|max|min)), got '{text.strip()}'"
        )
    axis, kind = match.groups()
    if axis is not None:
        if int(axis) < 0:
            raise SbpSyntaxError(f"split axis must be non-negative, got {axis}")
        return Split(int(axis))
    if text.strip().startswith("B"):
        return B
    return Partial(kind or "sum")  # type: ignore[arg-type]


def parse_nd_sbp(text: str) -> NdSbp:
    """Parse ``[S(0), B]`` (brackets optional) into an nd_sbp tuple."""
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    if not body.strip():
        raise SbpSyntaxError("an nd_sbp needs at least one entry")
    return tuple(parse_sbp(part) for part in body.split(","))


def format_nd_sbp(nd_sbp: NdSbp) -> str:
    """``(S(0), B)`` -> ``[S(0), B]``."""
    return "[" + ", ".join(str(s) for s in nd_sbp) + "]"


def is_split(sbp: Sbp, axis: int | None = None) -> bool:
    return isinstance(sbp, Split) and (axis is None or sbp.axis == axis)


def is_partial(sbp: Sbp) -> bool:
    return isinstance(sbp, Partial)


def max_split_axis(nd_sbp: NdSbp) -> int:
    """The largest split axis in ``nd_sbp``, or -1 when nothing is split."""
    return max((s.axis for s in nd_sbp if isinstance(s, Split)), default=-1)
