"""Attributes that differ between devices, as expressions of ``lax.axis_index``.

``sbpc.ops.registry.local_op`` gives each device its own local op; most are
alike, but a few attributes hold the device's position: an iota's first
index, a gather's or scatter's block offsets along the dims it indexes
(``sbpc.ops.indexed_blocks``), a split constant's block (the emitter's own).
The emitter writes one stage body for all devices, so each such attribute
becomes one expression of the device's mesh coordinates, checked here
against every device's local op; any other difference is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sbpc.algebra.layout import block_index
from sbpc.algebra.sbp import NdSbp, Split
from sbpc.algebra.signature import Signature
from sbpc.jax_backend.collectives import axes_expr
from sbpc.ops.spec import OpSpec

# Attributes ``local_op`` may make device-dependent, by op; the emitter
# computes them from lax.axis_index and refuses any other difference.
DYNAMIC_ATTRS: dict[str, frozenset[str]] = {
    "stablehlo.iota": frozenset({"iota_offset"}),
    "stablehlo.constant": frozenset({"value"}),
    "arith.constant": frozenset({"value"}),
    "stablehlo.gather": frozenset({"index_offsets"}),
    "stablehlo.scatter": frozenset({"index_offsets"}),
}


class DeviceAttrError(ValueError):
    """A device's attribute is not what its block's expression gives."""


@dataclass(frozen=True)
class DeviceLocals:
    """An op under an nd signature and the local op of every device of its
    placement: what the attributes that differ between devices come from."""

    op: OpSpec
    sig: Signature
    hierarchy: Sequence[int]
    locals: list[OpSpec]

    def coords(self) -> list[tuple[int, ...]]:
        """Each device's mesh coordinates, in the order of ``locals``."""
        return mesh_coords(self.hierarchy)


def mesh_coords(hierarchy: Sequence[int]) -> list[tuple[int, ...]]:
    return [tuple(int(c) for c in idx) for idx in np.ndindex(*hierarchy)]


def block_start(nd: NdSbp, dim: int, size: int) -> str:
    """The first index of the device's block of tensor dim ``dim`` (blocks
    of ``size``), as the hierarchy's block index (``block_index``) says."""
    axes = [k for k, s in enumerate(nd) if s == Split(dim)]
    return f"lax.axis_index({axes_expr(axes)}) * {size}"


def iota_offset(devices: DeviceLocals) -> str:
    """``base + block index * local size``; checked against every device."""
    op, nd, hierarchy = devices.op, devices.sig.outputs[0], devices.hierarchy
    dim = int(op.attr("iota_dimension"))
    size = devices.locals[0].results[0].shape[dim]
    base = int(op.attr("iota_offset", 0))
    for coord, loc in zip(devices.coords(), devices.locals, strict=True):
        index, _ = block_index(nd, hierarchy, coord, dim)
        if base + index * size != int(loc.attr("iota_offset", 0)):
            raise DeviceAttrError(
                f"iota offset at {coord} is not the block's first index"
            )
    index = block_start(nd, dim, size)
    return f"{base} + {index}" if base else index


def index_offsets(devices: DeviceLocals) -> str:
    """A gather's or scatter's block offsets, one per index vector entry:
    the block's first index where the operand is split, else 0."""
    op, nd, hierarchy = devices.op, devices.sig.inputs[0], devices.hierarchy
    key = (
        "start_index_map"
        if op.name == "stablehlo.gather"
        else "scatter_dims_to_operand_dims"
    )
    local = devices.locals[0].operands[0].shape
    exprs = []
    for k, d in enumerate(int(d) for d in op.attr(key)):
        got = [int(loc.attr("index_offsets")[k]) for loc in devices.locals]
        if not any(got):
            exprs.append("0")
            continue
        for coord, offset in zip(devices.coords(), got, strict=True):
            index, _ = block_index(nd, hierarchy, coord, d)
            if index * local[d] != offset:
                raise DeviceAttrError(
                    f"index offset at {coord} is not the block's first index"
                )
        exprs.append(block_start(nd, d, local[d]))
    return f"({', '.join(exprs)},)"


DYNAMIC_EXPRESSIONS = {"iota_offset": iota_offset, "index_offsets": index_offsets}
