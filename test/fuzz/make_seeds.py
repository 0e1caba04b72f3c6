"""Seeds for the fuzzer: small JAX programs with Shardy annotations.

Each program is ``jax.jit`` with ``NamedSharding``s (or ``shard_map``,
``with_sharding_constraint``) on a 2x4 or 8-device mesh, lowered and written
as ``test/fuzz/inputs/<name>.mlir``: the StableHLO JAX emits, ``sdy.mesh``
and ``sdy.sharding`` included, what ``sbpc-opt -p sbp-import-sdy,...``
reads.  They cover what the lit inputs have little of: training steps,
control flow (``scan``, ``fori_loop``, ``cond``, ``while_loop``),
convolutions, uneven shapes (dims no mesh axis divides), collectives in
``shard_map``, sorting, gathers and scatters.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \\
        .venv/bin/python test/fuzz/make_seeds.py      # rewrites the inputs

The seeds are committed, so the fuzzer does not need JAX to find them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

OUT = Path(__file__).resolve().parent / "inputs"
S = jax.ShapeDtypeStruct
F32, I32 = jnp.float32, jnp.int32


def _mesh(shape: tuple[int, ...] = (2, 4)) -> jax.sharding.Mesh:
    names = ("x", "y")[: len(shape)]
    return jax.make_mesh(shape, names, axis_types=(AxisType.Auto,) * len(shape))


def _jit(fn: Callable, specs: Any, args: Any, mesh: jax.sharding.Mesh, out=None) -> str:
    """``fn`` lowered with ``specs`` (a PartitionSpec per argument) as text."""
    shard = partial(NamedSharding, mesh)
    in_shardings = jax.tree.map(shard, specs, is_leaf=lambda x: isinstance(x, P))
    kwargs = {} if out is None else {"out_shardings": shard(out)}
    return jax.jit(fn, in_shardings=in_shardings, **kwargs).lower(*args).as_text()


def mlp_train() -> str:
    """A two-layer MLP's SGD step: batch on x, the hidden layer on y."""

    def loss(params, x, y):
        h = jax.nn.relu(x @ params["w1"] + params["b1"])
        out = h @ params["w2"]
        return jnp.mean((out - y) ** 2)

    def step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return value, jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)

    params = {"w1": S((8, 16), F32), "b1": S((16,), F32), "w2": S((16, 4), F32)}
    specs = ({"w1": P(None, "y"), "b1": P("y"), "w2": P("y", None)}, P("x"), P("x"))
    return _jit(step, specs, (params, S((8, 8), F32), S((8, 4), F32)), _mesh())


def attention() -> str:
    """Softmax attention with a sharding constraint on the scores."""
    mesh = _mesh()

    def attend(q, k, v):
        s = jnp.einsum("bqd,bkd->bqk", q, k) / 4.0
        s = lax.with_sharding_constraint(s, NamedSharding(mesh, P("x", None, "y")))
        return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(s, axis=-1), v)

    x = S((2, 8, 4), F32)
    return _jit(attend, (P("x"), P("x"), P("x")), (x, x, x), mesh)


def conv_train() -> str:
    """A convolution, ReLU and pooling, and the gradient of its loss."""

    def loss(w, x):
        y = lax.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        y = lax.reduce_window(
            jax.nn.relu(y), -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"
        )
        return jnp.sum(y * y)

    args = (S((3, 3, 2, 4), F32), S((4, 6, 6, 2), F32))
    return _jit(jax.value_and_grad(loss), (P(), P("x")), args, _mesh())


def scan_rnn() -> str:
    """An RNN over time with ``lax.scan``, and a ``fori_loop`` after it."""

    def run(w, xs):
        def cell(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h

        h, hs = lax.scan(cell, jnp.zeros((4, 8), F32), xs)
        h = lax.fori_loop(0, 3, lambda i, h: h * 0.5 + 1.0, h)
        return h, hs.sum(0)

    return _jit(run, (P(), P(None, "x")), (S((8, 8), F32), S((5, 4, 8), F32)), _mesh())


def branches() -> str:
    """``lax.cond`` on a reduction and a ``while_loop`` with a data bound."""

    def run(x, n):
        y = lax.cond(jnp.sum(x) > 0, lambda a: a * 2.0, lambda a: -a, x)

        def body(c):
            i, acc = c
            return i + 1, acc + y

        _, acc = lax.while_loop(lambda c: c[0] < n, body, (0, jnp.zeros_like(y)))
        return acc

    return _jit(run, (P("x", "y"), P()), (S((8, 8), F32), S((), I32)), _mesh())


def uneven() -> str:
    """Dims no mesh axis divides (6, 10, 5, 7), free for sbpc to split."""

    def run(a, b, c):
        return jnp.tanh(a @ b).sum(axis=1), c @ b[:7].T

    args = (S((6, 10), F32), S((10, 5), F32), S((8, 5), F32))
    return _jit(run, (P(), P(), P("x")), args, _mesh())


def collectives() -> str:
    """``shard_map`` with psum, all_gather, psum_scatter, all_to_all, ppermute."""
    mesh = _mesh()

    @partial(jax.shard_map, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))
    def inner(a):
        g = lax.all_gather(a, "y", axis=1, tiled=True)
        s = lax.psum_scatter(g, "y", scatter_dimension=1, tiled=True)
        t = lax.all_to_all(a, "y", 0, 0, tiled=True)
        p = lax.ppermute(a, "y", [(i, (i + 1) % 4) for i in range(4)])
        return s + t + p + lax.psum(a, "x")

    return _jit(inner, P("x", "y"), (S((8, 16), F32),), mesh)


def sort_and_index() -> str:
    """Sort, argmax, cumulative sum, an embedding lookup and a segment sum."""

    def run(x, table, ids):
        s = jnp.sort(x, axis=1)
        m = jnp.argmax(x, axis=1)
        c = jnp.cumsum(x, axis=0)
        e = jnp.take(table, ids, axis=0)
        seg = jax.ops.segment_sum(e, ids % 4, num_segments=4)
        return s + c, m, seg

    args = (S((8, 6), F32), S((16, 4), F32), S((8,), I32))
    return _jit(run, (P("x"), P(None, "y"), P()), args, _mesh())


def shapes() -> str:
    """Reshape, transpose, concatenate, pad, slice, dynamic slice, broadcast."""

    def run(x, i):
        y = jnp.concatenate([x, x.T], axis=0).reshape(4, 4, 8)
        y = jnp.pad(y, ((0, 0), (1, 1), (0, 0)))[:, 1:5, :]
        z = lax.dynamic_slice(x, (i, 0), (4, 8))
        return y.sum(0) + z, jnp.broadcast_to(x[:, :1], (8, 8))

    return _jit(run, (P("x"), P()), (S((8, 8), F32), S((), I32)), _mesh((8,)))


SEEDS: dict[str, Callable[[], str]] = {
    f.__name__: f
    for f in (
        mlp_train,
        attention,
        conv_train,
        scan_rnn,
        branches,
        uneven,
        collectives,
        sort_and_index,
        shapes,
    )
}


def main() -> int:
    if jax.device_count() < 8:
        print("set XLA_FLAGS=--xla_force_host_platform_device_count=8", file=sys.stderr)
        return 1
    OUT.mkdir(exist_ok=True)
    for name, make in SEEDS.items():
        text = make()
        head = f"// test/fuzz/make_seeds.py: {make.__doc__.splitlines()[0]}\n"
        (OUT / f"{name}.mlir").write_text(head + text)
        print(f"{name}: {len(text.splitlines())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
