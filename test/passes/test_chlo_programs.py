"""Real JAX programs with CHLO ops, end to end on 8 simulated devices.

A layer norm using ``jnp.var`` (``chlo.square``) followed by a dense layer and
``jax.nn.gelu(approximate=False)`` (``chlo.erfc``), and a program touching
every CHLO op sbpc has a rule for, are exported with ``jax.jit(f).lower``,
compiled by sbp-inline, sbp-propagate (each strategy) and sbp-lower-boxing
under batch-split and hidden-split layouts, emitted with ``-t jax`` and run
as ``shard_map`` programs; the numbers must equal ``jax.jit`` of the original
function, and so must the numpy simulator's.
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
import pytest
from jax import lax

from sbpc.passes.bridge.program import main_function, program_of
from sbpc.passes.jax_target import jax_source
from sbpc.passes.pipeline import parse_module
from sbpc.program import OpInstr
from sbpc.simulator.execute import simulate

F32 = jnp.float32
BATCH, HIDDEN, OUT = 16, 64, 32


def layernorm_gelu(x, gamma, beta, w):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    h = (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta
    return jax.nn.gelu(h @ w, approximate=False)


def special(x):
    t = jnp.tanh(x)
    top = jnp.max(x, axis=-1)  # hidden-split: a P(max) value erf may keep
    return (
        jss.erf(top) + jss.erfc(top),
        jnp.square(x) + x**2,
        jnp.sinh(x) * jnp.cosh(x) + jnp.arctan(x) + jnp.arcsinh(x),
        jnp.arcsin(t) + jnp.arccos(t) + jnp.arctanh(0.9 * t) + lax.erf_inv(0.9 * t),
        jnp.arccosh(jnp.abs(x) + 1) + lax.lgamma(jnp.abs(x) + 0.5),
        jnp.nextafter(x, jnp.zeros_like(x)),
    )


PROGRAMS = {
    "layernorm_gelu": (
        layernorm_gelu,
        [(BATCH, HIDDEN), (HIDDEN,), (HIDDEN,), (HIDDEN, OUT)],
        ("square", "erfc"),
    ),
    "special": (
        special,
        [(BATCH, HIDDEN)],
        (
            *("erf", "erfc", "square", "sinh", "cosh", "atan", "asinh", "asin"),
            *("acos", "atanh", "erf_inv", "acosh", "lgamma", "next_after"),
        ),
    ),
}

# mesh -> layout name -> argument layouts
LAYOUTS = {
    "layernorm_gelu": {
        (8,): {
            "batch": {0: "[S(0)]"},
            "hidden": {0: "[S(1)]", 1: "[S(0)]", 2: "[S(0)]", 3: "[S(0)]"},
        },
        (2, 4): {"2d": {0: "[S(0), S(1)]", 3: "[B, S(1)]"}},
    },
    "special": {
        (8,): {"batch": {0: "[S(0)]"}, "hidden": {0: "[S(1)]"}},
        (2, 4): {"2d": {0: "[S(0), S(1)]"}},
    },
}
CASES = [
    (name, mesh, layout, strategy)
    for name, meshes in LAYOUTS.items()
    for mesh, layouts in meshes.items()
    for layout in layouts
    for strategy in ("greedy", "bfs", "optimal")
]


def exported(name: str) -> str:
    fn, shapes, _ = PROGRAMS[name]
    args = [jax.ShapeDtypeStruct(s, F32) for s in shapes]
    return jax.jit(fn).lower(*args).as_text()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_really_contain_chlo(name: str) -> None:
    text = exported(name)
    for op in PROGRAMS[name][2]:
        assert f"chlo.{op} " in text, op


@pytest.mark.parametrize("name, mesh, layout, strategy", CASES)
def test_sharded_chlo_program_matches_jax_jit(
    name: str,
    mesh: tuple[int, ...],
    layout: str,
    strategy: str,
    tmp_path: Path,
    load_module,
    distribute,
) -> None:
    module = distribute(
        parse_module(exported(name)), mesh, LAYOUTS[name][mesh][layout], strategy
    )
    program = program_of(module, main_function(module))
    ops = {i.op.name for i in program.body if isinstance(i, OpInstr)}
    assert {f"chlo.{op}" for op in PROGRAMS[name][2]} <= ops

    fn, shapes, _ = PROGRAMS[name]
    rng = np.random.default_rng(3)
    args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    want = jax.jit(fn)(*args)
    want = [np.asarray(w) for w in (want if isinstance(want, tuple) else (want,))]
    emitted = load_module(
        jax_source(module), tmp_path / f"{name}_{layout}_{strategy}.py"
    )
    got = emitted.logical(emitted.build()(*emitted.put_args(*args)))
    simulated = simulate(program, args, rng)
    assert len(got) == len(want) == len(simulated)
    for g, w, s in zip(got, want, simulated, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(s, w, rtol=1e-4, atol=1e-4)
