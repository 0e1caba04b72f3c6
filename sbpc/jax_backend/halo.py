"""The halo exchange of ``sbpc.ops.halo`` as JAX source: ``lax.ppermute``.

Inside the ``shard_map`` every device sends the last ``low`` rows of its
piece to the next device and the first ``high`` rows to the previous one
along the split's mesh axis; ``ppermute`` gives zeros to the device that
receives nothing (the first, resp. the last), which is the convolution's
padding value; a pooling's edge device takes its init value instead.  The extended piece is ``concatenate([from previous, piece,
from next])``; the local op (``sbpc.ops.registry.local_op``) then runs
without padding along that dimension.
"""

from __future__ import annotations

from collections.abc import Sequence

from sbpc.algebra.signature import Signature
from sbpc.jax_backend.collectives import axes_expr
from sbpc.ops.halo import halos
from sbpc.ops.spec import OpSpec


def _filled(rows: str, args: list[str], fill: int | None, axis: str, edge: int) -> str:
    """``rows``, or the padding value on the edge device that got nothing
    (``ppermute`` gives it zeros, right for a convolution only)."""
    if fill is None:
        return rows
    return f"jnp.where(lax.axis_index({axis}) == {edge}, {args[fill]}, {rows})"


def halo_lines(
    op: OpSpec, sig: Signature, hierarchy: Sequence[int], args: list[str], name: str
) -> tuple[list[str], list[str]]:
    """(source lines, operand expressions after the exchange); ``name``
    prefixes the extended pieces' variables."""
    lines: list[str] = []
    args = list(args)
    for k, h in enumerate(halos(op, sig, hierarchy)):
        x, axis, d = args[h.operand], axes_expr([h.mesh_dim]), h.dim
        up = [(i, i + 1) for i in range(h.pieces - 1)]
        down = [(i + 1, i) for i in range(h.pieces - 1)]
        parts = []
        if h.low:
            lo = f"lax.slice_in_dim({x}, {h.size - h.low}, {h.size}, axis={d})"
            lo = f"lax.ppermute({lo}, {axis}, {up})"
            parts.append(_filled(lo, args, h.fill, axis, 0))
        parts.append(x)
        if h.high:
            hi = f"lax.slice_in_dim({x}, 0, {h.high}, axis={d})"
            hi = f"lax.ppermute({hi}, {axis}, {down})"
            parts.append(_filled(hi, args, h.fill, axis, h.pieces - 1))
        var = f"{name}_halo{k}"
        lines.append(
            f"    # halo: {h.low} rows from the previous and {h.high} from the "
            f"next device along {axis}"
        )
        lines.append(f"    {var} = jnp.concatenate([{', '.join(parts)}], axis={d})")
        args[h.operand] = var
    return lines, args
