"""The fuzzer's Python API cases: ``sbpc.jax.distribute`` with mutated arguments.

Each case takes a small JAX function (elementwise, a training step,
a convolution, ``scan``, ``cond``, sorting, a gather, uneven shapes) with
example arguments, mutates its arguments (shapes, dtypes) and every keyword
``distribute`` takes (``mesh``, ``in_layouts``, ``out_layouts``,
``strategy``, ``cost_model``, ``memory_budget``, ``time_limit``,
``combine_bytes``, ``donate_argnums``, ``quiet``), one in five of them to a
value that must be refused, and calls it.  ``run_case`` ends in one outcome:

- ``success``: the distributed function's results equal ``jax.jit`` of the
  function on one device (the unsharded reference);
- ``diagnostic``: ``SbpcError`` with a message;
- ``wrong``: a result that differs from the reference, or a distributed
  function that fails when called;
- ``traceback``: any other exception.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class ApiCase:
    """One call of ``distribute``: what it was, for the failure list."""

    name: str
    kwargs: dict[str, Any]
    shapes: list[tuple[int, ...]]

    def describe(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"distribute({self.name}, shapes={self.shapes}, {shown})"


def _functions() -> dict[
    str, tuple[Callable[..., Any], list[tuple[tuple[int, ...], str]]]
]:
    """name: (function, [(shape, dtype) per argument])."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def mlp_step(w1, w2, x, y):
        def loss(w1, w2):
            return jnp.mean((jax.nn.relu(x @ w1) @ w2 - y) ** 2)

        value, (g1, g2) = jax.value_and_grad(loss, argnums=(0, 1))(w1, w2)
        return value, w1 - 0.1 * g1, w2 - 0.1 * g2

    def conv(x, w):
        return jax.nn.relu(
            lax.conv_general_dilated(
                x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
            )
        )

    def scan(w, xs):
        def cell(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h.sum()

        return lax.scan(cell, jnp.zeros_like(xs[0]), xs)

    def cond(x):
        return lax.cond(jnp.sum(x) > 0, lambda a: a * 2.0, lambda a: -a, x)

    def sort(x):
        return jnp.sort(x, axis=0), jnp.argmax(x, axis=1)

    def gather(table, ids):
        return jnp.take(table, ids % table.shape[0], axis=0).sum(0)

    def attention(q, k):
        s = jax.nn.softmax(q @ k.T / 4.0, axis=-1)
        return s @ k

    f32, i32 = "float32", "int32"
    return {
        "elementwise": (lambda x: jnp.tanh(x) * 2.0 + 1.0, [((8, 8), f32)]),
        "matmul": (
            lambda x, w: jax.nn.relu(x @ w) @ w.T,
            [((8, 16), f32), ((16, 8), f32)],
        ),
        "mlp_step": (
            mlp_step,
            [((8, 16), f32), ((16, 4), f32), ((8, 8), f32), ((8, 4), f32)],
        ),
        "conv": (conv, [((4, 6, 6, 2), f32), ((3, 3, 2, 4), f32)]),
        "scan": (scan, [((8, 8), f32), ((5, 4, 8), f32)]),
        "cond": (cond, [((8, 8), f32)]),
        "sort": (sort, [((8, 6), f32)]),
        "gather": (gather, [((16, 4), f32), ((8,), i32)]),
        "attention": (attention, [((8, 4), f32), ((8, 4), f32)]),
        "uneven": (lambda a, b: jnp.tanh(a @ b), [((6, 10), f32), ((10, 5), f32)]),
    }


# Per keyword: values that work, then values that must be refused.
MESHES = (
    [2, 4, 8, (2, 4), "2x4", (4, 2), (1, 8), "8", None],
    [2.5, True, 0, 16, "2x", (2, 2.5), b"8", 10**12, []],
)
LAYOUTS_1D = ["[S(0)]", "[B]", "[S(1)]", "[P]", None]
LAYOUTS_2D = ["[S(0), B]", "[B, S(1)]", "[S(0), S(0)]", "[B, B]", "[S(1), S(0)]", None]
BAD_LAYOUTS = [123, (1.5,), "[S(9)]", "[S(0)", "[S(0), S(0), S(0)]", b"[B]", object()]
KEYWORDS: dict[str, tuple[list[Any], list[Any]]] = {
    "strategy": (["greedy", "bfs", "optimal"], ["nope", 3, None, b"greedy"]),
    "cost_model": (
        [
            "default",
            "bw=1e11",
            "combine=1",
            "overhead=3e-5|overhead=7e-5",
            "flops_half=8",
        ],
        ["bw=0", "lat=1e308", "bw=1e-308", "zzz", 5, None],
    ),
    "memory_budget": ([None, 1e9, 1e5, 1], ["abc", -5, float("nan"), [1]]),
    "time_limit": ([None, 1, 0.5], [-1, "soon", True, 0]),
    "combine_bytes": ([0, 1 << 20, np.int64(64)], [-1, True, 1.5, None]),
    "donate_argnums": ([(), 0, (0,), None], [1.5, (9,), "0", object(), iter([0])]),
    "quiet": ([True], ["yes", None, 2]),
}


def random_case(rng: random.Random) -> tuple[ApiCase, Callable[..., Any], list[Any]]:
    """A function, its (maybe mutated) example arguments and keywords."""
    functions = _functions()
    name = rng.choice(sorted(functions))
    fn, types = functions[name]
    args_rng = np.random.default_rng(rng.randrange(1 << 30))
    shapes = []
    args = []
    for shape, dtype in types:
        if rng.random() < 0.15:  # uneven, empty or one-row shapes
            shape = (rng.choice([0, 1, 3, 5, 7, 13]), *shape[1:])
        if rng.random() < 0.05:
            dtype = rng.choice(["float16", "int32", "bool", "float64"])
        shapes.append(shape)
        if np.issubdtype(np.dtype(dtype), np.integer):
            args.append(args_rng.integers(0, 8, shape).astype(dtype))
        elif dtype == "bool":
            args.append(args_rng.random(shape) < 0.5)
        else:
            args.append(args_rng.standard_normal(shape).astype(dtype))
    kwargs: dict[str, Any] = {"quiet": True}
    good, bad = MESHES
    kwargs["mesh"] = rng.choice(bad if rng.random() < 0.1 else good)
    ndim = 2 if kwargs["mesh"] in ((2, 4), "2x4", (4, 2), (1, 8)) else 1
    for key in ("in_layouts", "out_layouts"):
        if rng.random() < 0.5:
            choices = LAYOUTS_2D if ndim == 2 else LAYOUTS_1D
            if key == "out_layouts":  # a partial result comes back as pieces
                choices = [c for c in choices if c != "[P]"]
            value = rng.choice(BAD_LAYOUTS if rng.random() < 0.15 else choices)
            if key == "in_layouts" and rng.random() < 0.5:
                value = tuple(
                    rng.choice(choices) if rng.random() < 0.7 else None for _ in args
                )
            kwargs[key] = value
    for key in rng.sample(sorted(KEYWORDS), rng.randrange(0, 4)):
        good, bad = KEYWORDS[key]
        kwargs[key] = rng.choice(bad if rng.random() < 0.2 else good)
    if kwargs.get("strategy") == "optimal" and "time_limit" not in kwargs:
        kwargs["time_limit"] = 2
    return ApiCase(name, kwargs, shapes), fn, args


def run_case(case: ApiCase, fn: Callable[..., Any], args: list[Any]) -> tuple[str, str]:
    """(outcome, what was seen) of one case (see the module docstring)."""
    import jax

    import sbpc.jax as sj

    try:
        step = sj.distribute(fn, *args, **case.kwargs)
    except sj.SbpcError as e:
        message = str(e).strip()
        if not message or "internal error" in message:
            return "unclassified", f"SbpcError without a message: {e!r}"
        return "diagnostic", message.splitlines()[0]
    except Exception as e:
        return "traceback", f"{type(e).__name__}: {e}"
    try:
        want = jax.jit(fn)(*args)
    except Exception as e:  # JAX cannot run it unsharded: nothing to compare
        return "success", f"no reference ({type(e).__name__})"
    try:
        got = step(*[np.array(a, copy=True) for a in args])
    except Exception as e:
        return "wrong", f"the distributed function fails: {type(e).__name__}: {e}"
    why = _differs(got, want)
    return ("wrong", why) if why else ("success", "")


def _differs(got: Any, want: Any) -> str | None:
    """Why two result pytrees differ (None: they agree to the dtype's tolerance)."""
    import jax

    got_leaves, got_tree = jax.tree.flatten(got)
    want_leaves, want_tree = jax.tree.flatten(want)
    if got_tree != want_tree:
        return f"result structure {got_tree} != {want_tree}"
    for i, (g, w) in enumerate(zip(got_leaves, want_leaves, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"result {i}: {g.dtype}{list(g.shape)} != {w.dtype}{list(w.shape)}"
        if np.issubdtype(w.dtype, np.inexact):
            w64, g64 = w.astype(np.float64), g.astype(np.float64)
            finite = np.abs(w64[np.isfinite(w64)])
            scale = max(1.0, float(finite.max())) if finite.size else 1.0
            tolerance = (1e-2 if w.dtype.itemsize <= 2 else 1e-4) * scale
            same_nan = np.array_equal(np.isnan(g64), np.isnan(w64))
            with np.errstate(invalid="ignore"):  # equal infinities: no error
                diff = np.where((g64 == w64) | np.isnan(w64), 0.0, np.abs(g64 - w64))
            error = diff.max(initial=0.0)
            if not same_nan or error > tolerance:
                return f"result {i}: max error {error:.3g} > {tolerance:.3g}"
        elif not np.array_equal(g, w):
            return f"result {i}: {np.count_nonzero(g != w)} elements differ"
    return None
