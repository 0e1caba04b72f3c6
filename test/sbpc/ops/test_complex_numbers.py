"""Complex numbers: ``fft``, ``real``, ``imag``, ``complex`` and the
elementwise ops on complex tensors.  The numpy references equal JAX, every
signature the rules give is proven numerically, an FFT is split only along
the dimensions it does not transform, and whole programs distributed by
``sbpc.jax`` give ``jax.jit``'s numbers."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import sbpc.jax as sj
from sbpc.algebra.sbp import B, P, S
from sbpc.jax import _parse
from sbpc.ops.check import check_signature
from sbpc.ops.registry import nd_signatures, signatures_1d
from sbpc.ops.spec import OpSpec
from sbpc.passes.bridge.ops import op_spec_of
from sbpc.passes.inline import SbpInlinePass
from sbpc.passes.pipeline import default_context

NAMES = ("stablehlo.fft", "stablehlo.real", "stablehlo.imag", "stablehlo.complex")


def _xy(*shape: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, *shape)).astype(np.float32)
    return x, y


def program(x, y):
    z = jax.lax.complex(x, y)
    w = jnp.fft.fft(z, axis=-1) * z + jnp.exp(z)
    v = jnp.fft.ifft(w, axis=-1)
    r = jnp.fft.rfft(x, axis=-1)
    return (
        jnp.real(v) + jnp.imag(v) * jnp.abs(v),
        jnp.fft.irfft(r, n=x.shape[-1], axis=-1),
        jnp.conj(z),
        jnp.fft.fft2(z),
    )


PROGRAMS: list[tuple[str, Callable[..., object], tuple[np.ndarray, ...]]] = [
    ("mixed", program, _xy(4, 8)),
    ("fft2-f64", lambda x, y: jnp.fft.ifft2(jax.lax.complex(x, y)), _xy(2, 4, 8)),
]


def ops_of(fn: Callable[..., object], *args: np.ndarray) -> list[OpSpec]:
    text = jax.jit(fn).lower(*args).as_text()
    module = _parse(text, "t")
    SbpInlinePass().apply(default_context(), module)
    return [op_spec_of(op) for op in module.walk() if op.name in NAMES]


@pytest.mark.parametrize(("pid", "fn", "args"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_references_equal_jax(pid, fn, args, references) -> None:
    got = references(fn, args, pid)
    want = jax.tree.leaves(jax.jit(fn)(*args))
    for g, w in zip(got, want, strict=True):
        assert g.dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-4, atol=1e-4)


CASES = [
    (f"{pid}-{i}-{op.name}", op)
    for pid, fn, args in PROGRAMS
    for i, op in enumerate(ops_of(fn, *args))
]


@pytest.mark.parametrize(("cid", "op"), CASES, ids=[c[0] for c in CASES])
def test_every_signature_is_legal(cid: str, op: OpSpec) -> None:
    rng = np.random.default_rng(3)
    inputs = []
    for t in op.operands:
        x = rng.standard_normal(t.shape)
        if t.element.startswith("complex"):
            x = x + 1j * rng.standard_normal(t.shape)
        inputs.append(
            x.astype(np.dtype({"f32": "float32"}.get(t.element, "complex64")))
        )
    for hierarchy in ((2,), (2, 2)):
        for sig in nd_signatures(op, hierarchy):
            check_signature(op, sig, hierarchy, inputs, rng)


def test_an_fft_splits_only_the_dimensions_it_does_not_transform() -> None:
    x, y = _xy(2, 4, 8)
    ffts = [o for o in ops_of(lambda a, b: jnp.fft.fft(jax.lax.complex(a, b)), x, y)]
    (fft,) = [o for o in ffts if o.name == "stablehlo.fft"]
    sigs = set(signatures_1d(fft))
    ins = {s.inputs[0][0] for s in sigs}
    assert S(0) in ins and S(1) in ins and S(2) not in ins
    assert P in ins
    (fft2,) = [
        o
        for o in ops_of(lambda a, b: jnp.fft.fft2(jax.lax.complex(a, b)), x, y)
        if o.name == "stablehlo.fft"
    ]
    assert {s.inputs[0][0] for s in signatures_1d(fft2)} - {P, B} == {S(0)}


@pytest.mark.parametrize("layout", ["[S(0)]", "[S(1)]"])
def test_programs_distribute_with_jax_numbers(layout) -> None:
    x, y = _xy(8, 16)
    step = sj.distribute(program, x, y, mesh=4, in_layouts=(layout, layout))
    for got, want in zip(step(x, y), jax.jit(program)(x, y), strict=True):
        np.testing.assert_allclose(
            np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4
        )
