"""JAX forms of the bit-level ops (``sbpc.ops.bits``) and the barrier.

``lax.shift_*`` and ``lax.bitcast_convert_type`` have StableHLO's meaning
(a shift by the bit width or more gives 0, or the sign), so the emitted
program draws the very bits ``jax.jit`` draws.
"""

from __future__ import annotations

from sbpc.jax_backend.ops import (
    PlainEmitter,
    Unpack,
    UnsupportedOpError,
    emits,
    jnp_dtype,
    py_tuple,
    unbroadcast_call,
)
from sbpc.ops.spec import OpSpec

_SHIFTS = {
    "stablehlo.shift_left": "lax.shift_left",
    "stablehlo.shift_right_logical": "lax.shift_right_logical",
    "stablehlo.shift_right_arithmetic": "lax.shift_right_arithmetic",
}


def _shift(fn: str) -> PlainEmitter:
    def emit(op: OpSpec, args: list[str]) -> str:
        return unbroadcast_call(fn, op, *args)

    return emit


for _name, _fn in _SHIFTS.items():
    emits(_name)(_shift(_fn))


@emits("stablehlo.bitcast_convert")
def _bitcast_convert(op: OpSpec, args: list[str]) -> str:
    return f"lax.bitcast_convert_type({args[0]}, {jnp_dtype(op.results[0].element)})"


@emits("stablehlo.optimization_barrier")
def _optimization_barrier(op: OpSpec, args: list[str]) -> Unpack:
    return Unpack(f"lax.optimization_barrier(({', '.join(args)},))")


_RNG_ALGORITHMS = {
    "DEFAULT": "lax.RandomAlgorithm.RNG_DEFAULT",
    "THREE_FRY": "lax.RandomAlgorithm.RNG_THREE_FRY",
    "PHILOX": "lax.RandomAlgorithm.RNG_PHILOX",
}


@emits("stablehlo.rng_bit_generator")
def _rng_bit_generator(op: OpSpec, args: list[str]) -> Unpack:
    """The backend's generator (``jax.random``'s ``rbg`` keys).  It has no
    split rule, so it runs whole on every device: the same bits as
    ``jax.jit`` on the same backend."""
    bits = op.results[1]
    algorithm = str(op.attr("rng_algorithm"))
    if algorithm not in _RNG_ALGORITHMS:
        raise UnsupportedOpError(f"'{op.name}': unknown algorithm {algorithm}")
    return Unpack(
        f"lax.rng_bit_generator({args[0]}, {py_tuple(bits.shape)}, "
        f"dtype={jnp_dtype(bits.element)}, algorithm={_RNG_ALGORITHMS[algorithm]})"
    )
