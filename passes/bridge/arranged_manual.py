"""A manual computation's operands and results laid out by sub-axes or by
mesh axes out of mesh order, rewritten onto the mesh's own axes.

``shard_map(..., in_specs=P(("y", "x")))`` on a mesh ``("x", "y")`` (Shardy's
``[{"y", "x"}]``) gives the device at ``(x, y)`` block ``y * nx + x``; a
sub-axis ``"x":(1)2`` gives it block ``x // 2``.  The body is per-device code
and must see exactly those pieces, but sbpc runs a manual computation on the
module's placement, where no layout on the mesh's axes in mesh order gives
them.  So the global value is rearranged around the manual computation
instead: reshaped so that each splitting (sub-)axis is a dimension of its
own, transposed to put them in mesh order (the factors an axis has but the
layout does not split by broadcast, so each device of the group holds its
copy), and reshaped to one dimension split by those mesh axes in mesh order,
``[{"x", "y"}, {}, ...]`` (``rearranged_operand``).  Each device's piece of
the rearranged value is its piece of the original, in the same local shape,
so the body is unchanged.  A result is rearranged back
(``rearranged_result``: the copies sliced away).  Both are plain StableHLO
in the global view: propagation lays them out and boxing moves the data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from sbpc.algebra.named_axes import NamedAxesError
from sbpc.algebra.sbp import NdSbp, Partial, Split
from sbpc.dialects import sdy
from sbpc.dialects import stablehlo as shlo
from sbpc.dialects.stablehlo.attrs import i64_array

# A dimension of the split-out value: ("f", k) the hierarchy dim k of the
# layout's placement (a (sub-)axis), ("l", d) a device's extent of tensor dim d.
Label = tuple[str, int]


@dataclass(frozen=True)
class Arrangement:
    """One value's layout (on the mesh refined by ``factors``, then
    reordered by ``order``) and its rearrangement onto the mesh's axes."""

    shape: tuple[int, ...]  # the global value's
    split_shape: tuple[int, ...]  # each dim cut into its (sub-)axes and the piece
    split_labels: tuple[Label, ...]
    target_shape: tuple[int, ...]  # split axes in mesh order, then the piece
    target_labels: tuple[Label, ...]
    axes: tuple[str, ...]  # the mesh axes splitting the rearranged dim 0
    unreduced: tuple[str, ...]
    kind: str  # the unreduced axes' reduction

    @property
    def new_shape(self) -> tuple[int, ...]:
        """The rearranged value: the split axes and dim 0's piece as dim 0."""
        if not self.shape:
            return ()
        pieces = self.target_shape[-len(self.shape) :]
        copies = math.prod(self.target_shape[: -len(self.shape)])
        return (copies * pieces[0], *pieces[1:])

    def sharding(self, like: sdy.TensorShardingAttr) -> sdy.TensorShardingAttr:
        """The rearranged value's sharding, on ``like``'s mesh."""
        dims = [sdy.DimShardingAttr([sdy.AxisRefAttr(a) for a in self.axes])]
        dims += [sdy.DimShardingAttr([]) for _ in self.shape[1:]]
        return sdy.TensorShardingAttr(
            like.mesh,
            dims[: len(self.shape)],
            unreduced=[sdy.AxisRefAttr(a) for a in self.unreduced],
            reduction=self.kind,
        )


def arrangement(
    nd: NdSbp,
    factors: Sequence[Sequence[int]],
    order: Sequence[int],
    names: Sequence[str],
    shape: Sequence[int],
) -> Arrangement:
    """The rearrangement of a value of ``shape`` laid out ``nd`` on the
    mesh (axes ``names``) refined by ``factors``, then reordered by ``order``
    (``passes.bridge.sdy.ordered_layout``).  A mesh axis some of whose
    factors are unreduced and others not is a ``NamedAxesError``."""
    refined = [f for fs in factors for f in fs]
    sizes = [refined[r] for r in order]  # the layout's hierarchy
    owned: list[list[int]] = []  # per mesh axis, its hierarchy dims, major first
    r = 0
    for fs in factors:
        owned.append([list(order).index(r + j) for j in range(len(fs))])
        r += len(fs)
    split_shape: list[int] = []
    split_labels: list[Label] = []
    pieces = []
    for d, n in enumerate(shape):
        ks = [k for k, s in enumerate(nd) if isinstance(s, Split) and s.axis == d]
        split_shape += [sizes[k] for k in ks]
        split_labels += [("f", k) for k in ks]
        pieces.append(n // math.prod(sizes[k] for k in ks))
        split_shape.append(pieces[-1])
        split_labels.append(("l", d))
    axes, unreduced, kinds = [], [], set()
    target_shape: list[int] = []
    target_labels: list[Label] = []
    for name, ks in zip(names, owned, strict=True):
        entries = [nd[k] for k in ks]
        if any(isinstance(s, Partial) for s in entries):
            if not all(isinstance(s, Partial) for s in entries):
                raise NamedAxesError(
                    f"mesh axis '{name}' is unreduced on some of its sub-axes only"
                )
            unreduced.append(name)
            kinds |= {s.kind for s in entries if isinstance(s, Partial)}
        elif any(isinstance(s, Split) for s in entries):
            axes.append(name)
            target_shape += [sizes[k] for k in ks]
            target_labels += [("f", k) for k in ks]
    target_shape += pieces
    target_labels += [("l", d) for d in range(len(shape))]
    if len(kinds) > 1:
        raise NamedAxesError("unreduced axes of two reductions")
    return Arrangement(
        tuple(shape),
        tuple(split_shape),
        tuple(split_labels),
        tuple(target_shape),
        tuple(target_labels),
        tuple(axes),
        tuple(unreduced),
        kinds.pop() if kinds else "sum",
    )


def _tensor(element: Attribute, shape: Sequence[int]) -> TensorType:
    return TensorType(element, list(shape))


def _in_target_order(a: Arrangement) -> list[Label]:
    """The split-out value's labels in the order the target lists them."""
    return sorted(a.split_labels, key=a.target_labels.index)


class _Ops(list[Operation]):
    """Ops in a chain, each on the last one's result; those that change
    nothing are left out."""

    def __init__(self, value: SSAValue) -> None:
        super().__init__()
        self.first = value
        self.element = _element(value)

    @property
    def last(self) -> SSAValue:
        return self[-1].results[0] if self else self.first

    def reshape(self, shape: Sequence[int]) -> None:
        if self and isinstance(self[-1], shlo.ReshapeOp):  # one reshape, not two
            self.pop()
        if _shape(self.last) != tuple(shape):
            self.append(
                shlo.ReshapeOp(self.last, result_type=_tensor(self.element, shape))
            )

    def transpose(self, perm: Sequence[int]) -> None:
        if list(perm) != sorted(perm):
            self.append(shlo.TransposeOp(self.last, perm))

    def broadcast(self, dims: Sequence[int], shape: Sequence[int]) -> None:
        if _shape(self.last) != tuple(shape):
            t = _tensor(self.element, shape)
            self.append(shlo.BroadcastInDimOp(self.last, dims, t))

    def first_copy(self, kept: Sequence[int]) -> None:
        """Index 0 of every dimension not in ``kept``."""
        shape = _shape(self.last)
        limits = [n if i in kept else 1 for i, n in enumerate(shape)]
        if tuple(limits) != shape:
            props = {
                "start_indices": i64_array([0] * len(limits)),
                "limit_indices": i64_array(limits),
                "strides": i64_array([1] * len(limits)),
            }
            t = _tensor(self.element, limits)
            self.append(shlo.SliceOp(self.last, result_type=t, properties=props))


def rearranged_operand(value: SSAValue, a: Arrangement) -> list[Operation]:
    """The ops that rearrange ``value`` (the last one's result is it)."""
    ordered = _in_target_order(a)
    ops = _Ops(value)
    ops.reshape(a.split_shape)
    ops.transpose([a.split_labels.index(label) for label in ordered])
    ops.broadcast([a.target_labels.index(label) for label in ordered], a.target_shape)
    ops.reshape(a.new_shape)
    return ops


def rearranged_result(value: SSAValue, a: Arrangement) -> list[Operation]:
    """The ops that rearrange ``value`` (rearranged) back to the layout's
    global value (the last one's result is it): the broadcast copies sliced
    away, the split axes put back in their dimensions."""
    ordered = _in_target_order(a)
    ops = _Ops(value)
    ops.reshape(a.target_shape)
    kept = [a.target_labels.index(label) for label in ordered]
    ops.first_copy(kept)
    ops.reshape([a.target_shape[i] for i in kept])
    ops.transpose([ordered.index(label) for label in a.split_labels])
    ops.reshape(a.shape)
    return ops


def _shape(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def _element(value: SSAValue) -> Attribute:
    t = value.type
    assert isinstance(t, TensorType)
    return t.get_element_type()
