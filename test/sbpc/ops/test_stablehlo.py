"""The numpy reference semantics of StableHLO ops agree with XLA's (jax.lax).

``sbpc.ops.evaluate.evaluate`` is the oracle of the rule proofs and of the
simulator; here it is checked against jax.lax on the CPU, with the cases
where the spec is subtle: gather's dimension numbers and clamping, scatter's
dropped windows and duplicate indices, pad with interior and negative edges,
integer division and remainder, rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

from sbpc.algebra.tensor_type import TensorType
from sbpc.ops.evaluate import evaluate
from sbpc.ops.spec import OpSpec
from sbpc.ops.stablehlo import reshape_pairs

jax = pytest.importorskip("jax")
lax = jax.lax


def T(*shape: int, e: str = "f32") -> TensorType:
    return TensorType(tuple(shape), e)


RNG = np.random.default_rng(0)
A = RNG.standard_normal((8, 16)).astype(np.float32)
Bv = RNG.standard_normal((8, 16)).astype(np.float32)
POS = np.abs(A) + 0.5
IA = RNG.integers(-20, 20, (8, 16)).astype(np.int32)
JA = (RNG.integers(1, 6, (8, 16)) * RNG.choice([-1, 1], (8, 16))).astype(np.int32)

UNARY = {
    "negate": (lax.neg, A),
    "abs": (lax.abs, A),
    "sign": (lax.sign, A),
    "floor": (lax.floor, A),
    "ceil": (lax.ceil, A),
    "exponential": (lax.exp, A),
    "exponential_minus_one": (lax.expm1, A),
    "log": (lax.log, POS),
    "log_plus_one": (lax.log1p, POS),
    "tanh": (lax.tanh, A),
    "logistic": (lax.logistic, A),
    "sqrt": (lax.sqrt, POS),
    "rsqrt": (lax.rsqrt, POS),
    "cbrt": (lax.cbrt, A),
    "sine": (lax.sin, A),
    "cosine": (lax.cos, A),
    "not": (lax.bitwise_not, IA),
    "round_nearest_afz": (
        lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
        np.array([[0.5, 1.5, -0.5, -2.5, 2.4]], np.float32),
    ),
}
BINARY = {
    "add": (lax.add, A, Bv),
    "subtract": (lax.sub, A, Bv),
    "multiply": (lax.mul, A, Bv),
    "divide": (lax.div, A, POS),
    "remainder": (lax.rem, A, POS),
    "maximum": (lax.max, A, Bv),
    "minimum": (lax.min, A, Bv),
    "power": (lax.pow, POS, A),
    "and": (lax.bitwise_and, IA, JA),
    "or": (lax.bitwise_or, IA, JA),
    "xor": (lax.bitwise_xor, IA, JA),
}
INT_BINARY = {"divide": lax.div, "remainder": lax.rem}


def _check(op: OpSpec, inputs: list[np.ndarray], expected: object) -> None:
    got = evaluate(op, inputs)[0]
    want = np.asarray(expected)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name: str) -> None:
    fn, x = UNARY[name]
    t = T(*x.shape, e="i32" if x.dtype == np.int32 else "f32")
    _check(OpSpec(f"stablehlo.{name}", [t], [t]), [x], fn(x))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name: str) -> None:
    fn, a, b = BINARY[name]
    t = T(*a.shape, e="i32" if a.dtype == np.int32 else "f32")
    _check(OpSpec(f"stablehlo.{name}", [t, t], [t]), [a, b], fn(a, b))


@pytest.mark.parametrize("name", sorted(INT_BINARY))
def test_integer_division_truncates(name: str) -> None:
    t = T(8, 16, e="i32")
    _check(OpSpec(f"stablehlo.{name}", [t, t], [t]), [IA, JA], INT_BINARY[name](IA, JA))


def test_misc_elementwise() -> None:
    t, tb = T(8, 16), T(8, 16, e="i1")
    _check(
        OpSpec("stablehlo.clamp", [T(), t, T()], [t]),
        [np.float32(-0.5), A, np.float32(0.7)],
        lax.clamp(np.float32(-0.5), A, np.float32(0.7)),
    )
    x = np.where(A > 1, np.inf, A).astype(np.float32)
    _check(OpSpec("stablehlo.is_finite", [t], [tb]), [x], lax.is_finite(x))
    pred = A > 0
    _check(
        OpSpec("stablehlo.select", [tb, t, t], [t]),
        [pred, A, Bv],
        lax.select(pred, A, Bv),
    )
    _check(
        OpSpec("stablehlo.convert", [t], [T(8, 16, e="i32")]),
        [A * 10],
        lax.convert_element_type(A * 10, np.int32),
    )
    for d, fn in (("GT", lax.gt), ("LE", lax.le), ("NE", lax.ne)):
        op = OpSpec("stablehlo.compare", [t, t], [tb], {"comparison_direction": d})
        _check(op, [A, Bv], fn(A, Bv))


def test_dot_general_and_reduce() -> None:
    x = RNG.standard_normal((4, 8, 16)).astype(np.float32)
    y = RNG.standard_normal((4, 16, 8)).astype(np.float32)
    dims = {
        "lhs_batching_dimensions": (0,),
        "rhs_batching_dimensions": (0,),
        "lhs_contracting_dimensions": (2,),
        "rhs_contracting_dimensions": (1,),
    }
    op = OpSpec("stablehlo.dot_general", [T(4, 8, 16), T(4, 16, 8)], [T(4, 8, 8)], dims)
    want = lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,))))
    np.testing.assert_allclose(evaluate(op, [x, y])[0], want, rtol=1e-5, atol=1e-5)
    for kind, fn in (("add", lax.reduce_sum), ("max", lax.reduce_max)):
        red = OpSpec(
            "stablehlo.reduce",
            [T(4, 8, 16), T()],
            [T(8)],
            {"dimensions": (0, 2), "kind": kind},
        )
        np.testing.assert_allclose(
            evaluate(red, [x, np.float32(0 if kind == "add" else -np.inf)])[0],
            fn(x, (0, 2)),
            rtol=1e-5,
            atol=1e-5,
        )


def test_layout_ops() -> None:
    x = RNG.standard_normal((16, 8)).astype(np.float32)
    op = OpSpec(
        "stablehlo.broadcast_in_dim",
        [T(16, 8)],
        [T(8, 4, 16)],
        {"broadcast_dimensions": (2, 0)},
    )
    _check(op, [x], lax.broadcast_in_dim(x, (8, 4, 16), (2, 0)))
    pad = {
        "edge_padding_low": (2, -1),
        "edge_padding_high": (-3, 2),
        "interior_padding": (1, 2),
    }
    op = OpSpec("stablehlo.pad", [T(16, 8), T()], [T(30, 23)], pad)
    _check(op, [x, np.float32(7)], lax.pad(x, np.float32(7), [(2, -3, 1), (-1, 2, 2)]))
    op = OpSpec(
        "stablehlo.dynamic_slice",
        [T(16, 8), T(e="i32"), T(e="i32")],
        [T(4, 4)],
        {"slice_sizes": (4, 4)},
    )
    starts = [np.int32(14), np.int32(7)]  # both clamped
    _check(op, [x, *starts], lax.dynamic_slice(x, starts, (4, 4)))
    # jax wraps negative starts like Python; StableHLO clamps them to 0.
    _check(op, [x, np.int32(-3), np.int32(-1)], x[:4, :4])
    upd = np.ones((4, 4), np.float32)
    op = OpSpec(
        "stablehlo.dynamic_update_slice",
        [T(16, 8), T(4, 4), T(e="i32"), T(e="i32")],
        [T(16, 8)],
    )
    _check(op, [x, upd, *starts], lax.dynamic_update_slice(x, upd, starts))
    op = OpSpec("stablehlo.iota", [], [T(4, 8, e="i32")], {"iota_dimension": 1})
    _check(op, [], lax.broadcasted_iota(np.int32, (4, 8), 1))


GATHERS = [
    # (operand shape, indices, dimension numbers, slice sizes, result shape)
    (
        (32, 16),
        np.array([[3], [40], [0], [31]], np.int32),
        dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)),
        (1, 16),
        (4, 16),
    ),
    (
        (32, 16),
        np.array([[3, 9], [-4, 12], [30, 0]], np.int32),
        dict(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1)),
        (4, 8),
        (3, 4, 8),
    ),
    (
        (4, 32, 16),
        np.array([[[1], [5]], [[2], [9]], [[31], [0]], [[7], [7]]], np.int32),
        dict(
            offset_dims=(2,),
            collapsed_slice_dims=(1,),
            start_index_map=(1,),
            operand_batching_dims=(0,),
            start_indices_batching_dims=(0,),
        ),
        (1, 1, 16),
        (4, 2, 16),
    ),
]


@pytest.mark.parametrize("index", range(len(GATHERS)))
def test_gather_matches_xla(index: int) -> None:
    shape, indices, dims, sizes, out = GATHERS[index]
    x = RNG.standard_normal(shape).astype(np.float32)
    attrs = {
        "operand_batching_dims": (),
        "start_indices_batching_dims": (),
        **dims,
        "index_vector_dim": indices.ndim - 1,
        "slice_sizes": sizes,
    }
    op = OpSpec(
        "stablehlo.gather", [T(*shape), T(*indices.shape, e="i32")], [T(*out)], attrs
    )
    dnums = lax.GatherDimensionNumbers(**dims)
    want = lax.gather(x, indices, dnums, sizes, mode=lax.GatherScatterMode.CLIP)
    _check(op, [x, indices], want)


def test_gather_index_vector_dim_first(row_gather) -> None:
    x = RNG.standard_normal((32, 16)).astype(np.float32)
    indices = np.array([[3, 40, 0]], np.int32)  # index vector along dim 0
    attrs = row_gather(0, (1, 16))
    op = OpSpec("stablehlo.gather", [T(32, 16), T(1, 3, e="i32")], [T(3, 16)], attrs)
    _check(op, [x, indices], x[np.clip(indices[0], 0, 31)])


# (operand shape, indices, dimension numbers, updates shape).  Indices repeat and
# fall out of range; the window of the third case sticks out at (8, 0) and (3, 7).
_EMBED_GRAD = dict(
    update_window_dims=(1,),
    inserted_window_dims=(0,),
    scatter_dims_to_operand_dims=(0,),
)
SCATTERS = [
    ((16, 8), np.array([[3], [5], [3], [-1], [16], [20], [0], [3]], np.int32),
     _EMBED_GRAD, (8, 8)),
    ((4, 3, 10), RNG.integers(-2, 12, (4, 3, 2, 1)).astype(np.int32),
     dict(update_window_dims=(), inserted_window_dims=(2,),
          scatter_dims_to_operand_dims=(2,), operand_batching_dims=(0, 1),
          scatter_indices_batching_dims=(0, 1)), (4, 3, 2)),
    ((10, 8), np.array([[1, 2], [8, 0], [3, 7], [6, 5], [1, 2], [-1, 0]], np.int32),
     dict(update_window_dims=(1, 2), inserted_window_dims=(),
          scatter_dims_to_operand_dims=(0, 1)), (6, 4, 3)),
]  # fmt: skip

_LAX_SCATTER = {
    "add": lax.scatter_add,
    "mul": lax.scatter_mul,
    "max": lax.scatter_max,
    "min": lax.scatter_min,
    "replace": lax.scatter,
}


def _scatter_op(shape, indices, dims, updates, kind, e="f32", ivd=None) -> OpSpec:
    attrs = {
        "update_window_dims": dims["update_window_dims"],
        "inserted_window_dims": dims["inserted_window_dims"],
        "input_batching_dims": dims.get("operand_batching_dims", ()),
        "scatter_indices_batching_dims": dims.get("scatter_indices_batching_dims", ()),
        "scatter_dims_to_operand_dims": dims["scatter_dims_to_operand_dims"],
        "index_vector_dim": indices.ndim - 1 if ivd is None else ivd,
        "kind": kind,
    }
    operands = [T(*shape, e=e), T(*indices.shape, e="i32"), T(*updates, e=e)]
    return OpSpec("stablehlo.scatter", operands, [T(*shape, e=e)], attrs)


@pytest.mark.parametrize("kind", sorted(_LAX_SCATTER))
@pytest.mark.parametrize("index", range(len(SCATTERS)))
@pytest.mark.parametrize("e", ["f32", "i32"])
def test_scatter_matches_xla(index: int, kind: str, e: str) -> None:
    shape, indices, dims, updates = SCATTERS[index]
    if kind == "replace":  # which duplicate wins is up to the implementation
        flat = indices.reshape(-1, indices.shape[-1])
        _, first = np.unique(flat, axis=0, return_index=True)
        keep = np.zeros(len(flat), bool)
        keep[first] = True
        indices = np.where(keep.reshape(indices.shape[:-1])[..., None], indices, 99)
    dtype = np.float32 if e == "f32" else np.int32
    x = (RNG.standard_normal(shape) * 4).astype(dtype)
    u = (RNG.standard_normal(updates) * 4).astype(dtype)
    op = _scatter_op(shape, indices, dims, updates, kind, e)
    dnums = lax.ScatterDimensionNumbers(**dims)
    want = _LAX_SCATTER[kind](
        x, indices, u, dnums, mode=lax.GatherScatterMode.FILL_OR_DROP
    )
    _check(op, [x, indices, u], want)


@pytest.mark.parametrize("kind", ["or", "and", "max", "min", "replace"])
def test_boolean_scatter_matches_xla(kind: str) -> None:
    shape, indices, dims, updates = SCATTERS[0]
    if kind == "replace":
        indices = np.array([[3], [5], [1], [-1], [16], [20], [0], [7]], np.int32)
    x = RNG.random(shape) < 0.5
    u = RNG.random(updates) < 0.5
    op = _scatter_op(shape, indices, dims, updates, kind, "i1")
    fn = {"or": "max", "and": "min"}.get(kind, kind)
    dnums = lax.ScatterDimensionNumbers(**dims)
    want = _LAX_SCATTER[fn](
        x, indices, u, dnums, mode=lax.GatherScatterMode.FILL_OR_DROP
    )
    _check(op, [x, indices, u], want)


def test_scatter_index_vector_dim_first() -> None:
    x = RNG.standard_normal((16, 8)).astype(np.float32)
    indices = np.array([[3, 5, 3, -1, 16]], np.int32)  # index vector along dim 0
    u = RNG.standard_normal((5, 8)).astype(np.float32)
    op = _scatter_op((16, 8), indices, _EMBED_GRAD, (5, 8), "add", ivd=0)
    want = x.copy()
    for row, i in zip(u, indices[0], strict=True):
        if 0 <= i < 16:
            want[i] += row
    _check(op, [x, indices, u], want)


def test_scatter_refuses_unknown_bodies() -> None:
    shape, indices, dims, updates = SCATTERS[0]
    x, u = np.zeros(shape, np.int32), np.zeros(updates, np.int32)
    for kind in ("or", "xor", None):
        op = _scatter_op(shape, indices, dims, updates, kind, "i32")
        with pytest.raises(ValueError, match="body kind"):
            evaluate(op, [x, indices, u])


def test_reshape_pairs() -> None:
    assert reshape_pairs((8, 16, 24), (128, 24)) == [(0, 0), (2, 1)]
    assert reshape_pairs((6, 4), (2, 12)) == [(0, 0)]
    assert reshape_pairs((1, 8), (8, 1)) == [(1, 0)]
    assert reshape_pairs((4, 6), (6, 4)) == [(0, 0)]
