"""The local work a boxing step makes each device do, besides sending bytes.

Bytes and ring rounds price what a step sends; two steps also rewrite a
whole buffer on every device, and pricing that at zero made the search pick
them on ties it should have broken the other way:

* ``local_to_partial`` (``B -> P``, ``S(i) -> P``) writes the full partial
  piece: a select against the device index, or the shard placed in zeros.
  Priced 0, "add the bias to the partial sum, then all-reduce" tied with
  "all-reduce, then add the bias", though the first runs the conversion and
  the add on the full-size tensor on every device (the MLP's row-split
  layer, ``bench/vs_xla.py`` mlp tp).
* A ``reduce_scatter`` along a tensor dim that is not the outermost one of
  the device's piece needs the pieces contiguous: XLA gives its operand a
  transposed layout, and the operand of a reduction is a partial sum, made
  by a contraction that cannot write that layout, so a transposing copy runs
  first (the MLP's logits: a copy before a ``S(1)`` reduce-scatter that a
  ``S(0)`` one does not need).  Only ``P(sum)`` scatters: the emitter
  runs a ``P(max|min)`` one as a reduction and a slice.  An
  ``all_gather``'s operand and result are usually elementwise fusions that
  take the transposed layout for free, so gathers pay nothing.

Both are priced as an elementwise op is (``sbpc.ops.cost``): one flop per
element of the buffer written, on the cost model's device.  On the default
GPU model that is picoseconds per element: it breaks ties and moves nothing
else.  Every other step does no local work.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

from sbpc.algebra.layout import Shape, local_shape
from sbpc.algebra.sbp import NdSbp, Partial, Split
from sbpc.algebra.tensor_type import TensorType
from sbpc.boxing.collective_kind import CollectiveKind
from sbpc.boxing.cost_model import CostModel


def local_elements(
    kind: CollectiveKind,
    dims: Sequence[int],
    src: NdSbp,
    dst: NdSbp,
    tensor: TensorType,
    hierarchy: Sequence[int],
) -> int:
    """Elements each device writes locally for one step (0: none)."""
    return elements_written(
        kind, dims, src, dst, lambda nd: local_shape(tensor.shape, nd, hierarchy)
    )


def elements_written(
    kind: CollectiveKind,
    dims: Sequence[int],
    src: NdSbp,
    dst: NdSbp,
    piece: Callable[[NdSbp], Shape],
) -> int:
    """``local_elements``, with each layout's local shape from ``piece``
    (asked only for the steps that write: the boxing step graph keeps each
    layout's shape rather than one per step)."""
    if kind == CollectiveKind.LOCAL_TO_PARTIAL:
        return math.prod(piece(dst))
    if kind != CollectiveKind.REDUCE_SCATTER or not dims:
        return 0
    entry, reduced = dst[dims[0]], src[dims[0]]
    if not isinstance(entry, Split) or reduced != Partial("sum"):
        return 0  # max/min: the emitter reduces, then slices (no scatter)
    shape = piece(src)  # the full partial piece
    if all(n == 1 for n in shape[: entry.axis]):
        return 0  # the pieces are contiguous already
    return math.prod(shape)


def local_time(elements: int, cost_model: CostModel) -> Fraction:
    """Modeled seconds of writing ``elements`` locally (``local_elements``):
    one flop per element written."""
    return Fraction(cost_model.compute_time(elements, 0.0)) if elements else Fraction(0)
