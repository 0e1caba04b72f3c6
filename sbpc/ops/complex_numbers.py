"""Complex numbers: ``stablehlo.fft``, ``real``, ``imag`` and ``complex``.

The elementwise ops on complex tensors (``add``, ``multiply``,
``exponential``, ``abs`` ...) are the ordinary kinds (``sbpc.ops.elementwise``:
numpy computes them on complex arrays; their max/min facts need floats and
so do not apply).  Here:

=================  ==========================================================
op                 rule
=================  ==========================================================
real, imag         elementwise; real-linear: ``P(sum)`` -> ``P(sum)``
complex            elementwise; linear in both parts together
fft                ``fft_type`` (FFT, IFFT, RFFT, IRFFT), ``fft_length``: a
                   transform along the trailing ``len(fft_length)``
                   dimensions, elementwise in the others (each device
                   transforms its own rows); linear, so ``P(sum)`` passes
                   through
=================  ==========================================================

The references are numpy's (``np.fft.fftn`` ... over the trailing axes, with
their lengths).
"""

from __future__ import annotations

import numpy as np

from sbpc.algebra.signature import Signature
from sbpc.ops.derive import Factor, factor_signatures, linear
from sbpc.ops.elementwise import Elementwise, register_elementwise
from sbpc.ops.kind import OpKinds
from sbpc.ops.spec import OpSpec, numpy_dtype

BUILTINS = OpKinds()


def _real_linear(op: OpSpec) -> list[Signature]:
    return linear(len(op.operands), len(op.results), tuple(range(len(op.operands))))


def _complex_fn(op: OpSpec, xs: list[np.ndarray]) -> np.ndarray:
    dtype = numpy_dtype(op.results[0].element)
    return (xs[0] + 1j * xs[1]).astype(dtype)


KINDS = {
    "real": Elementwise(lambda op, xs: np.real(xs[0]).copy(), _real_linear),
    "imag": Elementwise(lambda op, xs: np.imag(xs[0]).copy(), _real_linear),
    "complex": Elementwise(_complex_fn, _real_linear),
}
for _name, _kind in KINDS.items():
    register_elementwise(f"stablehlo.{_name}", _kind, BUILTINS)


def fft_dims(op: OpSpec) -> int:
    """How many trailing dimensions the transform runs along."""
    return len(tuple(op.attr("fft_length", ())))


@BUILTINS.rule("stablehlo.fft")
def fft_rule(op: OpSpec) -> list[Signature]:
    """Split a leading dimension (each device its rows); a partial sum of the
    operand is a partial sum of the transform."""
    rank = op.operands[0].rank
    batch = rank - fft_dims(op)
    split = factor_signatures(Factor((d,), (d,)) for d in range(batch))
    return split + linear(1, 1, (0,))


@BUILTINS.evaluator("stablehlo.fft")
def _fft(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    lengths = [int(n) for n in op.attr("fft_length")]
    axes = list(range(-len(lengths), 0))
    x = xs[0]
    kind = str(op.attr("fft_type"))
    if kind == "FFT":
        y = np.fft.fftn(x, s=lengths, axes=axes)
    elif kind == "IFFT":
        y = np.fft.ifftn(x, s=lengths, axes=axes)
    elif kind == "RFFT":
        y = np.fft.rfftn(x, s=lengths, axes=axes)
    else:
        y = np.fft.irfftn(x, s=lengths, axes=axes)
    return [y.astype(numpy_dtype(op.results[0].element))]
