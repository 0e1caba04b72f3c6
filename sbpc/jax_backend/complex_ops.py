"""JAX forms of the complex-number ops (``sbpc.ops.complex_numbers``):
``jnp.real``/``imag``, ``lax.complex`` and ``lax.fft`` with the op's type and
lengths (the elementwise ops on complex tensors are ``elementwise``'s)."""

from __future__ import annotations

from sbpc.jax_backend.ops import emits
from sbpc.ops.spec import OpSpec


@emits("stablehlo.real")
def _real(op: OpSpec, args: list[str]) -> str:
    return f"jnp.real({args[0]})"


@emits("stablehlo.imag")
def _imag(op: OpSpec, args: list[str]) -> str:
    return f"jnp.imag({args[0]})"


@emits("stablehlo.complex")
def _complex(op: OpSpec, args: list[str]) -> str:
    return f"lax.complex({args[0]}, {args[1]})"


@emits("stablehlo.fft")
def _fft(op: OpSpec, args: list[str]) -> str:
    lengths = tuple(int(n) for n in op.attr("fft_length"))
    return f"lax.fft({args[0]}, lax.FftType.{op.attr('fft_type')}, {lengths})"
