"""Each device's local op, built once per group of devices that must run the same one.

The emitter needs every device's local op only to see which attributes
differ between devices (a constant's block, an iota's offset).  Building it
per device costs a numpy slice per constant and device: 8 per constant on a
2x4 mesh, a sixth of emitting a GPT training step.  Along a hierarchy
dimension where every operand and result of the signature is ``B``, all
devices hold the same data and so run the same local op: the coordinate on
such a dimension cannot change it.  ``device_local_ops`` builds the op once
for each distinct coordinate on the other dimensions and shares it.
"""

from __future__ import annotations

from collections.abc import Sequence

from sbpc.algebra.sbp import B
from sbpc.algebra.signature import Signature
from sbpc.ops.registry import local_op
from sbpc.ops.spec import OpSpec

Coord = tuple[int, ...]


def device_local_ops(
    op: OpSpec,
    sig: Signature,
    hierarchy: Sequence[int],
    coords: Sequence[Coord],
    padded: bool = False,
) -> list[OpSpec]:
    """``local_op`` at each of ``coords``, in order, equal ones built once."""
    replicated = [
        all(nd[d] == B for nd in (*sig.inputs, *sig.outputs))
        for d in range(len(hierarchy))
    ]
    built: dict[Coord, OpSpec] = {}
    out: list[OpSpec] = []
    for coord in coords:
        key = tuple(0 if rep else c for c, rep in zip(coord, replicated, strict=True))
        if key not in built:
            built[key] = local_op(op, sig, hierarchy, key, padded=padded)
        out.append(built[key])
    return out
