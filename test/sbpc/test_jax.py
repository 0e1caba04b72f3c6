"""``sbpc.jax``: distribute JAX functions, with pytrees, layouts and errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import sbpc.jax as sj
from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import Broadcast, Split

STRATEGIES = ("greedy", "bfs", "optimal")


def mlp(params, x, *, scale=1.0):
    for layer in params["layers"]:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    return {"y": x * scale, "total": jnp.sum(x)}


def _params(rng):
    return {
        "layers": [
            {
                "w": rng.standard_normal((16, 32)).astype(np.float32),
                "b": np.zeros(32, np.float32),
            },
            {
                "w": rng.standard_normal((32, 8)).astype(np.float32),
                "b": np.ones(8, np.float32),
            },
        ]
    }


def _close(got, want, tol=1e-4):
    jax.tree.map(
        lambda g, w: np.testing.assert_allclose(
            np.asarray(g),
            np.asarray(w),
            rtol=tol,
            atol=tol * max(1.0, float(np.abs(w).max())),
        ),
        got,
        want,
    )


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_pytree_function_matches_jit(strategy):
    rng = np.random.default_rng(0)
    params, x = _params(rng), rng.standard_normal((8, 16)).astype(np.float32)
    layer = {"w": "[B, S(1)]", "b": "[B, S(0)]"}
    dist = sj.distribute(
        mlp,
        params,
        x,
        mesh=(2, 4),
        in_layouts=({"layers": [layer, None]}, "[S(0), B]"),
        strategy=strategy,
    )
    got = dist(params, x)
    assert jax.tree.structure(got) == jax.tree.structure(mlp(params, x))
    _close(got, mlp(params, x))
    # given layouts are kept; leaves are in jax's flattening order (b before w)
    assert dist.in_layouts[0] == (Broadcast(), Split(0))
    assert dist.in_layouts[1] == (Broadcast(), Split(1))
    assert dist.in_layouts[-1] == (Split(0), Broadcast())
    assert dist.in_paths[1] == "args[0]['layers'][0]['w']"
    # placed arguments carry the sharding the program takes
    placed = dist.place(params, x)
    assert placed[-1].sharding.spec == jax.sharding.PartitionSpec("d0", None)
    # a second call with other values reuses the program
    params2 = _params(np.random.default_rng(1))
    _close(dist(params2, x), mlp(params2, x))


def test_keyword_arguments_and_string_mesh():
    rng = np.random.default_rng(2)
    params, x = _params(rng), rng.standard_normal((8, 16)).astype(np.float32)
    dist = sj.distribute(mlp, params, x, mesh="8", in_layouts=(None, "S(0)"), scale=2.0)
    assert dist.placement == Placement.of_size(8)
    _close(dist(params, x, scale=2.0), mlp(params, x, scale=2.0))
    with pytest.raises(TypeError, match="structure"):
        dist(params, x)  # the keyword is part of the structure, as in jax.jit


def test_result_layouts_are_honoured_and_shardings_match_them():
    rng = np.random.default_rng(3)
    params, x = _params(rng), rng.standard_normal((8, 16)).astype(np.float32)
    dist = sj.distribute(
        mlp,
        params,
        x,
        mesh=(2, 4),
        in_layouts=(None, "[S(0), B]"),
        out_layouts={"y": "[B, S(1)]", "total": "[B, B]"},
        strategy="optimal",
    )
    out = dist(params, x)
    assert out["y"].sharding.spec == jax.sharding.PartitionSpec(None, "d1")
    _close(out, mlp(params, x))
    _, outs = dist.shardings()
    assert [s.spec for s in outs] == [
        jax.sharding.PartitionSpec(),
        jax.sharding.PartitionSpec(None, "d1"),
    ]
    assert "sbp.nd_sbp" in dist.mlir and "shard_map" in dist.source
    assert "strategy=optimal" in dist.report
    assert '"totals"' in dist.plan_json


def test_free_results_are_never_partial():
    a = np.arange(64, dtype=np.float32).reshape(8, 8)

    def matmul(a, b):
        return a @ b

    dist = sj.distribute(matmul, a, a, mesh=8, in_layouts=("S(1)", "S(0)"))
    assert all(
        not any(type(s).__name__ == "Partial" for s in nd) for nd in dist.out_layouts
    )
    _close(dist(a, a), a @ a)


def test_shape_dtype_structs_as_examples():
    spec = jax.ShapeDtypeStruct((8, 4), jnp.float32)
    dist = sj.distribute(lambda x: jnp.tanh(x) * 2, spec, mesh=4, in_layouts="S(0)")
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4)
    _close(dist(x), np.tanh(x) * 2)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mesh": "2y4"}, "bad mesh"),
        ({"mesh": (2, 0)}, "bad mesh"),
        (
            {"mesh": 8, "in_layouts": ("S(0)", "X(1)")},
            r"argument\[1\]: expected an SBP",
        ),
        (
            {"mesh": (2, 4), "in_layouts": ("S(0)", None)},
            r"argument\[0\]: layout \[S\(0\)\] has 1",
        ),
        ({"mesh": 8, "in_layouts": ("S(0)", None, None)}, "pytree prefix"),
        ({"mesh": 8, "out_layouts": ("S(0)", "B")}, "pytree prefix"),
        ({"mesh": 8, "combine_bytes": -1}, "combine_bytes must be >= 0"),
    ],
)
def test_bad_options_are_reported(kwargs, message):
    a = np.ones((8, 8), np.float32)
    with pytest.raises(sj.SbpcError, match=message):
        sj.distribute(lambda x, y: x + y, a, a, **kwargs)


def _grads(params, x):
    def loss(p):
        h = jnp.tanh(x @ p["w1"])
        return jnp.sum((h @ p["w2"]) ** 2) + jnp.sum(p["b"] * h)

    return jax.grad(loss)(params)


def _grad_args() -> tuple[dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(0)
    params = {
        "w1": rng.standard_normal((16, 32)).astype(np.float32),
        "w2": rng.standard_normal((32, 8)).astype(np.float32),
        "b": rng.standard_normal((32,)).astype(np.float32),
    }
    return params, rng.standard_normal((2048, 16)).astype(np.float32)


def _distributed_grads(params, x, **options) -> sj.Distributed:
    """Data-parallel gradients of ``_grads`` (batch split, weights whole),
    checked against ``jax.grad``'s numbers."""
    step = sj.distribute(
        _grads, params, x, mesh=8, in_layouts=("B", "S(0)"), out_layouts="B", **options
    )
    want = jax.jit(_grads)(params, x)
    got = step(params, x)
    for k in params:
        scale = float(np.max(np.abs(want[k])))
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-5 * scale)
    return step


def test_gradient_reductions_run_combined():
    """Data parallel gradients: one reduction per weight, independent, so the
    program runs them as one collective (whose buffer the plan's memory
    counts); the numbers are jax.grad's."""
    params, x = _grad_args()
    for combine_bytes, combined in ((1 << 20, True), (0, False)):
        # Latency priced near zero: one collective per gradient (what
        # combining fixes) rather than gathering the batch once.
        step = _distributed_grads(
            params, x, cost_model="lat=1e-9", combine_bytes=combine_bytes
        )
        assert ("_many(" in step.source) == combined
        # The plan's memory counts the combined buffer exactly when there is one.
        plan = step.plans[0].plan
        assert plan.peak_memory > 0
        assert bool(plan.collectives and plan.collectives.buffers) == combined


def test_combining_aware_plan_reduces_gradients_and_matches_jax():
    """``combine=1``: with a real per-collective latency the plain search
    avoids one reduction per gradient; seeing that they run as one, it keeps
    them (and the plan still computes jax's numbers)."""
    params, x = _grad_args()
    sources = {
        combine: _distributed_grads(
            params,
            x,
            cost_model=f"bw=1e9,lat=1e-4,flops=2.5e10,hbm=2e9,combine={combine}",
        ).source
        for combine in (0, 1)
    }
    assert "_many(" in sources[1]
    assert sources[0] != sources[1]


def test_compile_errors_point_at_the_stablehlo_line():
    a = np.ones((6, 8), np.float32)  # a rank-2 tensor has no dimension 2
    with pytest.raises(sj.SbpcError) as info:
        sj.distribute(lambda x: jnp.exp(x), a, mesh=4, in_layouts="S(2)")
    text = str(info.value)
    assert "cannot distribute" in text and "<lambda>.mlir:" in text
    assert "tensor<6x8xf32>" in text  # the offending line is quoted


def test_a_long_line_at_fault_is_quoted_around_its_column():
    """A large model's function signature is one line of many kilobytes:
    the error quotes a window of it at the column at fault."""
    args = [np.ones((6, 8), np.float32)] * 200
    with pytest.raises(sj.SbpcError) as info:
        sj.distribute(lambda *xs: sum(xs), *args, mesh=4, in_layouts="S(2)")
    quoted = str(info.value).splitlines()[-1]
    assert 200 <= len(quoted) <= 210 and quoted.endswith(" ...")
    assert "tensor<6x8xf32>" in quoted


def test_unsupported_ops_are_reported_not_raised_as_tracebacks():
    a = np.eye(4, dtype=np.float32) * 2
    # a Cholesky factorisation has no SBP rules (JAX emits an opaque kernel call)
    with pytest.raises(sj.SbpcError, match="custom_call"):
        sj.distribute(jnp.linalg.cholesky, a, mesh=2)


def test_jax_errors_are_wrapped():
    with pytest.raises(sj.SbpcError, match="JAX could not lower"):
        sj.distribute(lambda x: x @ x, np.ones((2, 3), np.float32), mesh=2)


def test_arguments_of_another_shape_are_refused():
    a = np.ones((8, 8), np.float32)
    dist = sj.distribute(lambda x: x * 2, a, mesh=2)
    with pytest.raises(TypeError, match=r"args\[0\] has shape \(4, 8\)"):
        dist(np.ones((4, 8), np.float32))


def _sgd(params, x):
    """An in-place-style update: the new parameters have the old ones' shapes."""
    y = mlp(params, x)["total"]
    return jax.tree.map(lambda p: p - 0.01 * y * p, params), y


def test_donated_arguments_are_reused_for_the_results():
    """``donate_argnums`` as in ``jax.jit``: the donated parameters' buffers
    alias the updated parameters (same layout pinned), so they are gone after
    the call; the numbers are ``jax.jit``'s."""
    rng = np.random.default_rng(1)
    params, x = _params(rng), rng.standard_normal((8, 16)).astype(np.float32)
    want = jax.jit(_sgd)(params, x)
    dist = sj.distribute(
        _sgd,
        params,
        x,
        mesh=4,
        in_layouts=("B", "S(0)"),
        out_layouts=("B", "B"),
        donate_argnums=0,
        strategy="greedy",
    )
    assert dist.donated == (0, 1, 2, 3)  # the four leaves of params
    placed = dist.place(params, x)
    text = dist.step.lower(*placed).as_text()
    assert text.count("tf.aliasing_output") == 4, text[:2000]
    got = dist.step(*placed)
    assert all(a.is_deleted() for a in placed[:4]) and not placed[4].is_deleted()
    _close(jax.tree_util.tree_unflatten(dist.out_tree, list(got)), want)
    kept = sj.distribute(_sgd, params, x, mesh=4, in_layouts=("B", "S(0)"))
    assert kept.donated == ()
    placed = kept.place(params, x)
    kept.step(*placed)
    assert not any(a.is_deleted() for a in placed)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (2, "is not a positional"),
        (-1, "is not a positional"),
        ((0, 7), "is not a positional"),
        # a string is not a sequence of indices (jax.jit refuses it too)
        ("0", "expected an argument index or a sequence of them"),
    ],
)
def test_bad_donate_argnums_are_reported(bad, message):
    x = np.ones((8, 4), np.float32)
    with pytest.raises(sj.SbpcError, match=f"donate_argnums: .*{message}"):
        sj.distribute(lambda a, b: a + b, x, x, mesh=4, donate_argnums=bad)


def test_emitted_build_checks_donated_positions():
    x = np.ones((8, 4), np.float32)
    dist = sj.distribute(lambda a: a * 2, x, mesh=4, strategy="greedy")
    with pytest.raises(ValueError, match="argument 3 does not exist"):
        dist.program.build(donate=(3,))


def test_calls_with_placed_arrays_take_one_jit_and_keep_every_check():
    """``jax.Array`` arguments go through one ``jax.jit`` of the whole call
    (jax's own dispatch, donation by positional argument); arguments of
    another shape or dtype still get the checked path's error."""
    rng = np.random.default_rng(2)
    params, x = _params(rng), rng.standard_normal((8, 16)).astype(np.float32)
    want = jax.jit(_sgd)(params, x)
    dist = sj.distribute(
        _sgd, params, x, mesh=4, in_layouts=("B", "S(0)"), out_layouts=("B", "B"),
        donate_argnums=0, strategy="greedy",
    )  # fmt: skip
    assert dist.call_path == "jit"
    p, xs = jax.tree.map(jnp.asarray, params), jnp.asarray(x)
    _close(dist(p, xs), want)
    assert jax.tree.leaves(p)[0].is_deleted() and not xs.is_deleted()
    with pytest.raises(TypeError, match="has shape"):
        dist(jax.tree.map(jnp.asarray, params), jnp.ones((4, 16), jnp.float32))
    kept = sj.distribute(_sgd, params, x, mesh=4, in_layouts=("B", "S(0)"))
    p = jax.tree.map(jnp.asarray, params)
    _close(kept(p, xs), jax.jit(_sgd)(params, x))
    assert not any(a.is_deleted() for a in jax.tree.leaves(p))


def test_distribute_times_its_phases_and_reports_them() -> None:
    rng = np.random.default_rng(0)
    params, x = _params(rng), rng.standard_normal((8, 16)).astype(np.float32)
    step = sj.distribute(
        mlp, params, x, mesh=(2, 2), in_layouts=(None, "[S(0), B]"), strategy="optimal"
    )
    timing = step.timing
    assert timing is not None
    top = [name for depth, name, _ in timing.rows() if depth == 0]
    assert top == [
        "lower (jax)",
        "parse",
        "sbp-inline",
        "sbp-propagate",
        "sbp-lower-boxing",
        "verify",
        "emit (jax)",
        "load",
    ]
    inner = [name for depth, name, _ in timing.rows() if depth == 1]
    assert "strategy optimal" in inner and "build graph" in inner
    assert timing.seconds("sbp-propagate") >= timing.seconds(
        "sbp-propagate", "strategy optimal"
    )
    assert timing.total >= sum(timing.seconds(n) for n in top)
    assert "... sbpc.jax.distribute mlp ..." in step.report
    assert "sbp-propagate" in step.report.split("sbpc.jax.distribute mlp")[1]
