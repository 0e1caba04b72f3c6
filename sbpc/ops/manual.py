"""Manual computations (``sdy.manual_computation``, JAX's ``shard_map``): code the
user wrote per device, with fixed layouts at its boundary.

sbpc does not lay out the body: the user did.  The op kind therefore has one
signature, the layouts its ``in_layouts``/``out_layouts`` attributes give,
and its "local op" is the body itself, a small program over the device's
pieces (``body``: ``BodyOp``s over numbered values, the block arguments
first; ``returns``: the values it yields).  Collectives in the body are
``OpSpec``s named as StableHLO's, on hierarchy dims (``dims``):

- ``stablehlo.all_reduce``: ``kind`` sum/max/min;
- ``stablehlo.all_gather``: ``dim`` (concatenated, group order);
- ``stablehlo.reduce_scatter``: ``dim`` (summed, then scattered);
- ``stablehlo.all_to_all``: ``split``, ``concat``;
- ``stablehlo.collective_permute``: ``perm``, (source, target) pairs of
  linear indices within the group of ``dims``.

Rules are 1-D and N-D signatures their direct product (``registry``), so the
rule yields the layouts' entries on each hierarchy dim; the product holds
the one N-D signature that ``sbp-import-sdy`` pins with ``sbp.sig``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sbpc.algebra.placement import Coord
from sbpc.algebra.sbp import NdSbp
from sbpc.algebra.signature import Signature
from sbpc.ops.kind import OpKinds
from sbpc.ops.spec import OpSpec

NAME = "sdy.manual_computation"

BUILTINS = OpKinds()

COLLECTIVES = (
    "stablehlo.all_reduce",
    "stablehlo.all_gather",
    "stablehlo.reduce_scatter",
    "stablehlo.all_to_all",
    "stablehlo.collective_permute",
)


@dataclass(frozen=True)
class BodyOp:
    """One op of a manual body: local types, operand and result value ids."""

    op: OpSpec
    operands: tuple[int, ...]
    results: tuple[int, ...]

    def __hash__(self) -> int:  # OpSpec is unhashable (numpy attributes)
        return hash((self.op.name, self.op.operands, self.op.results, self.results))


def layouts(op: OpSpec) -> tuple[tuple[NdSbp, ...], tuple[NdSbp, ...]]:
    """The fixed operand and result layouts of a manual computation."""
    return tuple(op.attr("in_layouts", ())), tuple(op.attr("out_layouts", ()))


def signature(op: OpSpec) -> Signature:
    ins, outs = layouts(op)
    return Signature(ins, outs)


@BUILTINS.rule(NAME)
def _rule(op: OpSpec) -> Iterable[Signature]:
    ins, outs = layouts(op)
    if len(ins) != len(op.operands) or len(outs) != len(op.results):
        return []
    ndim = len((ins + outs)[0]) if ins + outs else 0
    return [
        Signature(tuple((nd[k],) for nd in ins), tuple((nd[k],) for nd in outs))
        for k in range(ndim)
    ]


@BUILTINS.local(NAME)
def _local(
    op: OpSpec, local: OpSpec, sig: Signature, hierarchy: Sequence[int], coord: Coord
) -> OpSpec:
    """Marks the op as the per-device form: the body runs as it is."""
    return local.replace(local=True)
