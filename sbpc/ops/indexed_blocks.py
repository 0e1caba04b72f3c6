"""Gather and scatter on an operand split along a dimension they index.

A language model's loss gathers each token's target logit from logits split
over the vocabulary, and its gradient scatters into them; an embedding
table may be split over its rows.  Each device then holds a block of the
indexed dimension: it gathers the rows that fall in its block and zeros for
the others (the result is ``P(sum)``: exactly one device holds each row),
and a scatter writes only the updates whose rows fall in its block (the
result stays split, whatever the scatter's body: each update reaches one
device, in its order).  Without this, the operand is gathered whole first:
the vocabulary-sized gradient of a Llama step, replicated on every device.

Only dimensions an index selects one row of (a gather's collapsed slice
dims, a scatter's inserted window dims) split this way, so a row never
straddles two blocks.  The local op carries, per entry of the index vector
(``start_index_map`` / ``scatter_dims_to_operand_dims`` order):

``index_offsets``  the first index of the device's block along that operand
                   dimension (0 where it is not split);
``index_limits``   the whole operand's size along it.

Semantics, kept from the global op: a gather clamps its start into the whole
operand first, then reads it if it lies in the block; a scatter drops an
update whose window does not fit the whole operand, then one that does not
fit the block.  ``sbpc.jax_backend`` computes the offsets from
``lax.axis_index``, as an iota's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sbpc.algebra.layout import block_index, split_factors
from sbpc.algebra.placement import Coord
from sbpc.algebra.signature import Signature
from sbpc.ops.spec import OpSpec


def split_row_dims(
    op: OpSpec, sig: Signature, hierarchy: Sequence[int], rows: Sequence[int]
) -> list[int]:
    """Dims of ``rows`` (operand dims an index selects one row of) that
    ``sig`` cuts into several blocks."""
    factors = split_factors(tuple(sig.inputs[0]), hierarchy, op.operands[0].rank)
    return [d for d in rows if factors[d] > 1]


def block_attrs(
    op: OpSpec,
    local: OpSpec,
    sig: Signature,
    hierarchy: Sequence[int],
    coord: Coord,
    index_map: Sequence[int],
    rows: Sequence[int],
) -> OpSpec:
    """``local`` with ``index_offsets``/``index_limits`` where the operand is
    split along one of ``rows``, the dims of ``index_map`` (the index
    vector's operand dims) that an index selects one row of; unchanged
    otherwise (a split window dim is covered whole, its start stays 0)."""
    split = split_row_dims(op, sig, hierarchy, rows)
    if not split:
        return local
    offsets = []
    for d in index_map:
        index, _ = block_index(sig.inputs[0], hierarchy, coord, d)
        offsets.append(index * local.operands[0].shape[d] if d in split else 0)
    limits = tuple(op.operands[0].shape[d] for d in index_map)
    return local.replace(index_offsets=tuple(offsets), index_limits=limits)


def gather_block_starts(
    op: OpSpec, k: int, start: np.ndarray, local_size: int, slice_size: int
) -> tuple[np.ndarray, np.ndarray | bool]:
    """(start in the block, whether the row lies in it) of index vector entry
    ``k``: clamped into the whole operand, then moved to the block."""
    offsets = op.attr("index_offsets")
    if offsets is None:
        return np.clip(start, 0, local_size - slice_size), True
    limit = int(op.attr("index_limits")[k])
    start = np.clip(start, 0, limit - slice_size) - int(offsets[k])
    inside = (start >= 0) & (start <= local_size - slice_size)
    return np.clip(start, 0, local_size - slice_size), inside


def scatter_block_starts(
    op: OpSpec, k: int, start: np.ndarray, window: int
) -> tuple[np.ndarray, np.ndarray | bool]:
    """(start in the block, whether the window fits the whole operand) of
    index vector entry ``k``; the caller still checks it fits the block."""
    offsets = op.attr("index_offsets")
    if offsets is None:
        return start, True
    limit = int(op.attr("index_limits")[k])
    fits = (start >= 0) & (start <= limit - window)
    return start - int(offsets[k]), fits
