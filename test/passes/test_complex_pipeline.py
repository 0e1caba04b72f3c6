"""Complex numbers through ``sbp-inline,sbp-propagate,sbp-lower-boxing``
under every strategy: the emitted JAX program and the numpy simulator both
give ``jax.jit``'s numbers (FFTs split along their other dimensions, a
split transformed dimension gathered first)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest


def spectral(x, y):
    z = jax.lax.complex(x, y)
    w = jnp.fft.fft(z, axis=-1) * jnp.conj(z) + jnp.exp(z)
    v = jnp.fft.ifft2(w)
    r = jnp.fft.irfft(jnp.fft.rfft(x, axis=-1) * 2.0, n=x.shape[-1], axis=-1)
    return jnp.real(v) + jnp.imag(v) * jnp.abs(v) + r


@pytest.mark.parametrize("layout", ["[S(0), B]", "[S(1), S(0)]"])
def test_spectral_program_matches_jax(layout, strategy, run_sharded, tmp_path) -> None:
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 8, 16)).astype(np.float32)
    run = run_sharded(
        spectral, [x, y], (2, 2), {0: layout, 1: layout}, strategy, tmp_path / "p.py"
    )
    run.assert_matches(tol=1e-3)
