"""sbpc.jax_dispatch: a distributed call is one jax.jit wherever it can be."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import sbpc.jax as sj
from sbpc.jax_dispatch import ARRAYS_JIT, JIT, X64_JIT, direct_call


def _params(rng: np.random.Generator) -> list[dict[str, np.ndarray]]:
    return [
        {"w": rng.standard_normal((16, 32)).astype(np.float32)},
        {"w": rng.standard_normal((32, 8)).astype(np.float32)},
    ]


def _mlp(params, x):
    for layer in params:
        x = jnp.tanh(x @ layer["w"])
    return x.sum(axis=1), {"first": x[0]}


def _key_through(key, x):
    """Takes and returns a typed key; reads its raw data (no 64-bit types)."""
    return key, x + jax.random.key_data(key)[0].astype(jnp.float32)


def _noisy_step(key, x):
    key, sub = jax.random.split(key)
    return key, x * jax.random.normal(sub, x.shape)


@contextlib.contextmanager
def _no_checked_path(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts calls of the checked path (``Distributed.place``)."""
    placed: list[int] = []
    original = sj.Distributed.place

    def counting(self, *args, **kwargs):
        placed.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(sj.Distributed, "place", counting)
    yield placed


def _same(got, want) -> None:
    got_leaves, want_leaves = jax.tree.leaves(got), jax.tree.leaves(want)
    assert jax.tree.structure(got) == jax.tree.structure(want)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        if jax.dtypes.issubdtype(w.dtype, jax.dtypes.prng_key):
            g, w = jax.random.key_data(g), jax.random.key_data(w)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)


def test_plain_arrays_go_straight_to_one_jit(monkeypatch) -> None:
    """No Python places or checks arguments: the call is the jit, traced once."""
    rng = np.random.default_rng(0)
    params, x = _params(rng), rng.standard_normal((8, 16)).astype(np.float32)
    dist = sj.distribute(
        _mlp, params, x, mesh=4, in_layouts=("[B]", "[S(0)]"), strategy="greedy"
    )
    assert dist.call_path == JIT
    direct = dist._direct_call().call
    assert direct is not None and hasattr(direct, "lower")  # a jax.jit itself
    want = jax.jit(_mlp)(params, x)
    p, xs = jax.tree.map(jnp.asarray, params), jnp.asarray(x)
    with _no_checked_path(monkeypatch) as placed:
        for _ in range(3):
            _same(dist(p, xs), want)
        assert direct._cache_size() == 1  # one entry: no retrace per call
        # numpy arguments too: jit places them, as jax.jit(fn) does
        _same(dist(params, x), want)
    assert placed == []


def test_other_dtypes_fall_back_to_the_checked_path(monkeypatch) -> None:
    """An argument jit would trace with another dtype (integers for a float
    parameter) is refused by the jit and converted by the checked path."""
    rng = np.random.default_rng(1)
    params = _params(rng)
    x = rng.integers(-3, 3, (8, 16))
    dist = sj.distribute(_mlp, params, x.astype(np.float32), mesh=4, strategy="greedy")
    with _no_checked_path(monkeypatch) as placed:
        got = dist(params, x)
    assert placed == [1]
    _same(got, jax.jit(_mlp)(params, x.astype(np.float32)))
    with pytest.raises(TypeError, match="has shape"):
        dist(params, np.ones((4, 16), np.float32))


def test_typed_keys_are_unwrapped_inside_the_jit(monkeypatch) -> None:
    key, x = jax.random.key(3), jnp.ones((8, 4), jnp.float32)
    dist = sj.distribute(
        _key_through, key, x, mesh=8, in_layouts=(None, "[S(0)]"), strategy="greedy"
    )
    assert dist.call_path == JIT
    with _no_checked_path(monkeypatch) as placed:
        got = dist(key, x)
    assert placed == []
    want = jax.jit(_key_through)(key, x)
    assert jax.random.key_impl(got[0]) == jax.random.key_impl(want[0])
    _same(got, want)


def test_uneven_padding_is_inside_the_jit(monkeypatch) -> None:
    rng = np.random.default_rng(2)
    x, w = (
        rng.standard_normal((6, 5)).astype(np.float32),
        rng.standard_normal((5, 3)).astype(np.float32),
    )

    def fn(x, w):
        return jnp.tanh(x @ w)

    dist = sj.distribute(
        fn, x, w, mesh=4, in_layouts=("[S(0)]", "[B]"), strategy="greedy"
    )
    assert "ARG_PADS" in dist.source and dist.call_path == JIT
    with _no_checked_path(monkeypatch) as placed:
        got = dist(jnp.asarray(x), jnp.asarray(w))
    assert placed == []
    _same(got, jax.jit(fn)(x, w))


def test_a_64_bit_program_calls_its_jit_in_x64_mode(monkeypatch) -> None:
    """threefry's counters are 64-bit: the jit runs in x64 mode, the caller's
    mode is left as it was."""
    key, x = jax.random.key(3), jnp.ones((8, 4), jnp.float32)
    dist = sj.distribute(
        _noisy_step, key, x, mesh=8, in_layouts=(None, "[S(0)]"), strategy="greedy"
    )
    assert "_X64 = True" in dist.source and dist.call_path == X64_JIT
    with _no_checked_path(monkeypatch) as placed:
        got = dist(key, x)
    assert placed == [] and not jax.config.jax_enable_x64
    _same(got, jax.jit(_noisy_step)(key, x))


def _mode_probe() -> bool:
    return bool(jax.config.jax_enable_x64)


def test_direct_call_picks_the_path() -> None:
    x64 = lambda: jax.enable_x64(True)  # noqa: E731
    fn, path, jitted = direct_call(_mode_probe, False, x64, 1)
    assert fn is _mode_probe is jitted and path == JIT
    fn, path, jitted = direct_call(_mode_probe, True, x64, 1)
    assert path == X64_JIT and fn() is True and not jax.config.jax_enable_x64
    assert jitted is _mode_probe
    fn, path, _ = direct_call(lambda *a: len(a), False, x64, 2)
    assert path == ARRAYS_JIT and fn(jnp.ones(2), jnp.ones(3)) == 2
    with pytest.raises(TypeError, match="not global arrays"):
        fn(np.ones(2))  # a host value is not a global array on several hosts
