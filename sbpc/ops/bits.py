"""Bit-level StableHLO ops: shifts and ``bitcast_convert``.

``jax.random`` with ``jax_threefry_partitionable`` (on in jax 0.10) hashes
iota counters with shifts, xors and adds, then reads the bits as floats with
``bitcast_convert``: everything is elementwise on the counters, so with
these rules (a split per dimension, no partial facts: none of them is linear
or monotone) and iota's offset-aware local op, a device computes exactly
its block of the bits ``jax.jit`` computes.

Shifts follow StableHLO: a shift by at least the bit width gives 0
(``shift_right_arithmetic``: the sign).  ``bitcast_convert`` between types
of one width is elementwise; between widths it adds or drops a last
dimension and has no rule here (it runs replicated).
"""

from __future__ import annotations

import numpy as np

from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import ELEMENT_BYTES
from sbpc.ops.elementwise import Elementwise, elementwise_rule, register_elementwise
from sbpc.ops.kind import OpKinds
from sbpc.ops.spec import OpSpec, numpy_dtype

BUILTINS = OpKinds()


def _no_partials(op: OpSpec) -> list[Signature]:
    return []


def _shift(kind: str):
    def fn(op: OpSpec, xs: list[np.ndarray]) -> np.ndarray:
        x, s = np.broadcast_arrays(*xs)
        bits = x.dtype.itemsize * 8
        s = s.astype(np.uint64)
        big = s >= bits
        safe = np.where(big, 0, s).astype(x.dtype)
        if kind == "left":
            out = np.left_shift(x, safe)
            return np.where(big, np.zeros_like(x), out).astype(x.dtype)
        if kind == "right_logical":
            unsigned = x.view(np.dtype(f"u{x.dtype.itemsize}"))
            out = np.right_shift(unsigned, safe.view(unsigned.dtype))
            out = np.where(big, np.zeros_like(unsigned), out).astype(unsigned.dtype)
            return out.view(x.dtype)
        signed = x.view(np.dtype(f"i{x.dtype.itemsize}"))
        out = np.right_shift(signed, np.minimum(s, bits - 1).astype(signed.dtype))
        return out.astype(signed.dtype).view(x.dtype)

    return fn


def _bitcast(op: OpSpec, xs: list[np.ndarray]) -> np.ndarray:
    return np.ascontiguousarray(xs[0]).view(numpy_dtype(op.results[0].element))


def same_width(op: OpSpec) -> bool:
    """Whether a bitcast_convert keeps the element width (then elementwise)."""
    src = ELEMENT_BYTES.get(op.operands[0].element)
    return src is not None and src == ELEMENT_BYTES.get(op.results[0].element)


SHIFTS = {
    "shift_left": "left",
    "shift_right_logical": "right_logical",
    "shift_right_arithmetic": "right_arithmetic",
}
for _name, _kind in SHIFTS.items():
    register_elementwise(
        f"stablehlo.{_name}", Elementwise(_shift(_kind), _no_partials), BUILTINS
    )


@BUILTINS.rule("stablehlo.bitcast_convert")
def _bitcast_rule(op: OpSpec) -> list[Signature]:
    if not same_width(op):
        return []
    return elementwise_rule(Elementwise(_bitcast, _no_partials))(op)


@BUILTINS.evaluator("stablehlo.bitcast_convert")
def _bitcast_eval(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    if not same_width(op):
        raise ValueError("stablehlo.bitcast_convert: only same-width is evaluated")
    return [_bitcast(op, xs)]
