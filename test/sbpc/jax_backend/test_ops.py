"""Op emitters: every op with rules has one, and the subtle semantics hold.

The expressions are evaluated eagerly here on whole arrays and compared with
``op_eval``; ``test_jax_emit`` runs every op of the rule catalogue sharded.
"""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.algebra.tensor_type import TensorType
from sbpc.jax_backend.ops import UnsupportedOpError, emitted_ops, op_expressions
from sbpc.ops.evaluate import evaluate
from sbpc.ops.registry import registered_ops
from sbpc.ops.spec import OpSpec

jax = pytest.importorskip("jax")
jnp, lax = jax.numpy, jax.lax


def T(*shape: int, e: str = "f32") -> TensorType:
    return TensorType(tuple(shape), e)


class _Consts:
    def __init__(self) -> None:
        self.names: dict[str, np.ndarray] = {}

    def const(self, value: np.ndarray, element: str) -> str:
        name = f"_C{len(self.names)}"
        self.names[name] = value
        return name


def run(op: OpSpec, xs: list[np.ndarray], dynamic=None) -> list[np.ndarray]:
    ctx = _Consts()
    names = [f"x{i}" for i in range(len(xs))]
    exprs = op_expressions(op, names, ctx, dynamic)
    scope = {
        "jnp": jnp,
        "lax": lax,
        "np": np,
        **dict(zip(names, xs, strict=True)),
        **ctx.names,
    }
    return [np.asarray(eval(e, scope)) for e in exprs]


def check(op: OpSpec, xs: list[np.ndarray]) -> None:
    for got, want in zip(run(op, xs), evaluate(op, xs), strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_every_op_with_rules_has_an_emitter() -> None:
    assert set(registered_ops()) <= set(emitted_ops())


def test_unknown_op_is_refused() -> None:
    with pytest.raises(UnsupportedOpError, match="no lowering"):
        run(OpSpec("stablehlo.while", [T(4)], [T(4)]), [np.zeros(4, np.float32)])


def test_wrong_operand_count_is_refused() -> None:
    with pytest.raises(UnsupportedOpError, match="takes 2 operands, got 1"):
        run(OpSpec("stablehlo.add", [T(4), T(4)], [T(4)]), [np.zeros(4, np.float32)])


RNG = np.random.default_rng(0)
X = RNG.standard_normal((8, 16)).astype(np.float32)


def test_dynamic_slices_clamp_starts() -> None:
    op = OpSpec(
        "stablehlo.dynamic_slice",
        [T(8, 16), T(e="i32"), T(e="i32")],
        [T(4, 4)],
        {"slice_sizes": (4, 4)},
    )
    check(op, [X, np.int32(-3), np.int32(20)])  # jax alone would wrap -3
    upd = np.ones((4, 4), np.float32)
    op = OpSpec(
        "stablehlo.dynamic_update_slice",
        [T(8, 16), T(4, 4), T(e="i32"), T(e="i32")],
        [T(8, 16)],
    )
    check(op, [X, upd, np.int32(-1), np.int32(14)])


def test_integer_division_and_unsigned_ops() -> None:
    a = np.array([[-7, 7, -8, 5]], np.int32)
    b = np.array([[2, -2, 3, -3]], np.int32)
    for name in (
        "stablehlo.divide",
        "stablehlo.remainder",
        "arith.divui",
        "arith.maxui",
    ):
        check(OpSpec(name, [T(1, 4, e="i32")] * 2, [T(1, 4, e="i32")]), [a, b])
    cmp = OpSpec(
        "arith.cmpi", [T(1, 4, e="i32")] * 2, [T(1, 4, e="i1")], {"predicate": "ugt"}
    )
    check(cmp, [a, b])


def test_float_compare_predicates_with_nan() -> None:
    a = np.array([1.0, np.nan, 2.0, 3.0], np.float32)
    b = np.array([1.0, 1.0, np.nan, 2.0], np.float32)
    for p in ("oeq", "one", "ueq", "une", "ord", "uno", "ogt", "ule", "true"):
        check(
            OpSpec("arith.cmpf", [T(4)] * 2, [T(4, e="i1")], {"predicate": p}), [a, b]
        )


def test_layout_ops_with_unusual_attributes(row_gather) -> None:
    bcast = OpSpec(
        "stablehlo.broadcast_in_dim",
        [T(16, 8)],
        [T(8, 3, 16)],
        {"broadcast_dimensions": (2, 0)},
    )
    check(bcast, [X.T.copy()])
    gather = OpSpec(
        "stablehlo.gather",
        [T(8, 16), T(1, 3, e="i32")],
        [T(3, 16)],
        row_gather(0, (1, 16)),
    )
    check(gather, [X, np.array([[3, 40, -2]], np.int32)])
    reduce = OpSpec(
        "stablehlo.reduce",
        [T(4, 4, e="i32"), T(e="i32")],
        [T(4, e="i32")],
        {"dimensions": (1,), "kind": "and"},
    )
    check(reduce, [RNG.integers(0, 16, (4, 4)).astype(np.int32), np.int32(-1)])


def _scatter(operands, kind, ivd, **dims) -> OpSpec:
    attrs = {
        "update_window_dims": (),
        "inserted_window_dims": (),
        "input_batching_dims": (),
        "scatter_indices_batching_dims": (),
        **dims,
        "index_vector_dim": ivd,
        "kind": kind,
        "indices_are_sorted": False,
        "unique_indices": False,
    }
    return OpSpec("stablehlo.scatter", operands, [operands[0]], attrs)


@pytest.mark.parametrize("kind", ["add", "mul", "max", "min", "replace"])
def test_scatter_emitters(kind: str) -> None:
    # Index vector first (moved last), duplicate and out-of-range rows dropped.
    rows = [3, 5, 3, -1, 16] if kind != "replace" else [3, 5, 0, -1, 16]
    embed = _scatter(
        [T(16, 8), T(1, 5, e="i32"), T(5, 8)],
        kind,
        0,
        update_window_dims=(1,),
        inserted_window_dims=(0,),
        scatter_dims_to_operand_dims=(0,),
    )
    x = RNG.standard_normal((16, 8)).astype(np.float32)
    u = RNG.standard_normal((5, 8)).astype(np.float32)
    check(embed, [x, np.array([rows], np.int32), u])
    # Index vector between batching dims: scatter_indices_batching_dims shift.
    batched = _scatter(
        [T(4, 3, 10), T(4, 1, 3, 2, e="i32"), T(4, 3, 2)],
        kind,
        1,
        inserted_window_dims=(2,),
        input_batching_dims=(0, 1),
        scatter_indices_batching_dims=(0, 2),
        scatter_dims_to_operand_dims=(2,),
    )
    idx = np.stack([RNG.permutation(12)[:2] - 1 for _ in range(12)]).astype(np.int32)
    idx = idx.reshape(4, 1, 3, 2)
    x = RNG.standard_normal((4, 3, 10)).astype(np.float32)
    u = RNG.standard_normal((4, 3, 2)).astype(np.float32)
    check(batched, [x, idx, u])


def test_boolean_scatter_emitters() -> None:
    for kind in ("or", "and", "max", "min"):
        op = _scatter(
            [T(10, e="i1"), T(6, e="i32"), T(6, e="i1")],
            kind,
            1,
            inserted_window_dims=(0,),
            scatter_dims_to_operand_dims=(0,),
        )
        x, u = RNG.random(10) < 0.5, RNG.random(6) < 0.5
        check(op, [x, np.array([1, 4, 4, 9, -3, 10], np.int32), u])


def test_device_dependent_attributes_arrive_as_expressions() -> None:
    iota = OpSpec("stablehlo.iota", [], [T(2, 4, e="i32")], {"iota_dimension": 1})
    (got,) = run(iota, [], {"iota_offset": "12"})
    np.testing.assert_array_equal(got, np.tile(np.arange(12, 16), (2, 1)))
    const = OpSpec("stablehlo.constant", [], [T(2)], {"value": np.ones(2, np.float32)})
    (got,) = run(const, [], {"value": "jnp.zeros((2,), jnp.float32)"})
    np.testing.assert_array_equal(got, np.zeros(2))


CHLO_INPUTS = {
    "square": X,
    "erf": X,
    "erfc": X * 3,
    "erf_inv": np.tanh(X),
    "sinh": X * 3,
    "cosh": X * 3,
    "asin": np.tanh(X),
    "acos": np.tanh(X),
    "atan": X * 3,
    "asinh": X * 3,
    "acosh": np.abs(X) + 1,
    "atanh": np.tanh(X),
    "lgamma": X * 4,
    "next_after": X,
}


@pytest.mark.parametrize("name", sorted(CHLO_INPUTS))
def test_chlo_ops_match_the_reference_and_lower_to_themselves(name: str) -> None:
    """The emitted JAX computes the evaluator's numbers (to XLA's f32
    approximations of the special functions) and lowers back to the same
    ``chlo`` op, so the sharded program runs what the original ran."""
    x = CHLO_INPUTS[name]
    t = T(8, 16)
    binary = name == "next_after"
    xs = [x, x[::-1].copy()] if binary else [x]
    op = OpSpec("chlo." + name, [t] * len(xs), [t])
    (got,), (want,) = run(op, xs), evaluate(op, xs)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-5)
    (expr,) = op_expressions(op, [f"x{i}" for i in range(len(xs))], _Consts())
    f = eval(
        f"lambda {', '.join(f'x{i}' for i in range(len(xs)))}: {expr}",
        {"lax": lax, "jnp": jnp},
    )
    assert f"chlo.{name} " in jax.jit(f).lower(*xs).as_text()


def test_shifts_and_bitcast_match_stablehlo() -> None:
    """Shifts by the bit width or more give 0 (or the sign), as StableHLO says;
    bitcast reads the same bits."""
    x = np.array([[1, 0x80000000, 0xFFFFFFFF, 12345]], np.uint32)
    s = np.array([[0, 31, 32, 40]], np.uint32)
    u = T(1, 4, e="ui32")
    for name in (
        "stablehlo.shift_left",
        "stablehlo.shift_right_logical",
        "stablehlo.shift_right_arithmetic",
    ):
        op = OpSpec(name, [u, u], [u])
        (got,) = run(op, [x, s])
        (want,) = evaluate(op, [x, s])
        np.testing.assert_array_equal(got, want)
    assert evaluate(OpSpec("stablehlo.shift_left", [u, u], [u]), [x, s])[0][0, 2] == 0
    (got,) = run(OpSpec("stablehlo.bitcast_convert", [u], [T(1, 4)]), [x])
    np.testing.assert_array_equal(got.view(np.uint32), x)
