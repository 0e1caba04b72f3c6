"""Executable proof of the op SBP rules: every signature a rule yields, run on
virtual devices (random partial pieces), gives the op's result.

For each op kind below: every 1-D signature on 2 and 4 devices, every 2-D
signature on a 2x2 mesh (the direct products, partial kinds mixed across
hierarchy dims), and a fixed sample on 4x2 and 2x2x2 meshes.  Wrong rules
registered here are caught by the same checker, so the proof can fail.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest

from sbpc.algebra.layout import UnevenSplitError
from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.algebra.signature import Signature, parse_signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.ops.check import SignatureCheckError, check_signature, random_inputs
from sbpc.ops.derive import sig1d
from sbpc.ops.evaluate import evaluate, has_evaluator
from sbpc.ops.registry import (
    fits,
    has_rule,
    local_op,
    localize_type,
    nd_signatures,
    signatures_1d,
)
from sbpc.ops.spec import OpSpec

Inputs = Callable[[np.random.Generator], list[np.ndarray]]


def T(*shape: int, e: str = "f32") -> TensorType:
    return TensorType(tuple(shape), e)


def positive(*shape: int) -> Inputs:
    return lambda rng: [np.abs(rng.standard_normal(shape)).astype(np.float32) + 0.5]


def nonzero_pair(shape: tuple[int, ...], dtype: str = "float32") -> Inputs:
    def make(rng: np.random.Generator) -> list[np.ndarray]:
        a = rng.standard_normal(shape) * 4
        b = (np.abs(rng.standard_normal(shape)) + 0.5) * rng.choice([-1, 1], shape)
        if dtype.startswith("int"):
            a, b = np.round(a), np.round(b * 3) + np.sign(b)
        return [a.astype(dtype), b.astype(dtype)]

    return make


def _dot(lb=(), rb=(), lc=(1,), rc=(0,)) -> dict:
    return {
        "lhs_batching_dimensions": lb,
        "rhs_batching_dimensions": rb,
        "lhs_contracting_dimensions": lc,
        "rhs_contracting_dimensions": rc,
    }


def _gather_indices(shape: tuple[int, ...], high: int, low: int = 0) -> Inputs:
    def make(rng: np.random.Generator) -> list[np.ndarray]:
        return [rng.integers(low, high, shape).astype(np.int32)]

    return make


def with_operand(first: Inputs | None, rest: Inputs) -> Callable[[OpSpec], Inputs]:
    """Inputs made of the op's plain random first operand(s) and ``rest``."""

    def build(op: OpSpec) -> Inputs:
        def make(rng: np.random.Generator) -> list[np.ndarray]:
            head = first(rng) if first else random_inputs(op, rng)[:1]
            return head + rest(rng)

        return make

    return build


# (id, OpSpec, inputs maker or None for plain random)
CASES: list[tuple[str, OpSpec, Inputs | None]] = []


def case(
    cid: str,
    name: str,
    operands: list[TensorType],
    results: list[TensorType],
    attrs: dict | None = None,
    inputs: Inputs | Callable[[OpSpec], Inputs] | None = None,
    *,
    built: bool = False,
) -> None:
    op = OpSpec(name, operands, results, attrs or {})
    if built:
        inputs = inputs(op)  # type: ignore[misc, operator]
    CASES.append((cid, op, inputs))  # type: ignore[arg-type]


X = T(8, 16)
XI = T(8, 16, e="i32")
XB = T(8, 16, e="i1")
HLO = "stablehlo."

# --- stablehlo elementwise -------------------------------------------------
for k in ("add", "subtract", "multiply", "maximum", "minimum"):
    case(k, HLO + k, [X, X], [X])
    case(k + "_i32", HLO + k, [XI, XI], [XI])
case("divide", HLO + "divide", [X, X], [X], inputs=nonzero_pair((8, 16)))
case(
    "divide_i32", HLO + "divide", [XI, XI], [XI], inputs=nonzero_pair((8, 16), "int32")
)
case("remainder", HLO + "remainder", [X, X], [X], inputs=nonzero_pair((8, 16)))
case("atan2", HLO + "atan2", [X, X], [X])
case(
    "power",
    HLO + "power",
    [X, X],
    [X],
    None,
    lambda r: [*positive(8, 16)(r), *positive(8, 16)(r)],
)
for k in ("and", "or", "xor"):
    case(k + "_i1", HLO + k, [XB, XB], [XB])
    case(k + "_i32", HLO + k, [XI, XI], [XI])
XU = T(8, 16, e="ui32")
for k in ("shift_left", "shift_right_logical", "shift_right_arithmetic"):
    case(k, HLO + k, [XU, XU], [XU])
case("bitcast_convert", HLO + "bitcast_convert", [XU], [X])
case("not_i1", HLO + "not", [XB], [XB])
case("not_i32", HLO + "not", [XI], [XI])
UNARY_ANY_INPUT = """negate abs sign floor ceil exponential exponential_minus_one
    tanh logistic cbrt sine cosine round_nearest_afz"""
for k in UNARY_ANY_INPUT.split():
    case(k, HLO + k, [X], [X])
case("negate_i32", HLO + "negate", [XI], [XI])
for k in ("log", "log_plus_one", "sqrt", "rsqrt"):
    case(k, HLO + k, [X], [X], inputs=positive(8, 16))
case(
    "is_finite",
    HLO + "is_finite",
    [X],
    [XB],
    inputs=lambda r: [
        np.where(r.random((8, 16)) < 0.2, np.inf, 1.0).astype(np.float32)
    ],
)
case("clamp", HLO + "clamp", [X, X, X], [X])
case("clamp_scalar", HLO + "clamp", [T(), X, T()], [X])
for d in ("GT", "LE", "EQ"):
    case(f"compare_{d}", HLO + "compare", [X, X], [XB], {"comparison_direction": d})
case("compare_i32", HLO + "compare", [XI, XI], [XB], {"comparison_direction": "GE"})
case("select", HLO + "select", [XB, X, X], [X])
case("select_scalar", HLO + "select", [T(e="i1"), X, X], [X])
case("select_i1", HLO + "select", [XB, XB, XB], [XB])
for src, dst in (("f32", "f64"), ("f32", "f16"), ("f32", "i32"), ("i32", "f32")):
    case(f"convert_{src}_{dst}", HLO + "convert", [T(8, 16, e=src)], [T(8, 16, e=dst)])
case("convert_i1_f32", HLO + "convert", [XB], [X])
case("convert_i32_i64", HLO + "convert", [XI], [T(8, 16, e="i64")])
case("convert_same", HLO + "convert", [X], [X])

# --- chlo elementwise (what JAX emits through CHLO) ------------------------------
CH = "chlo."


def unit_interval(*shape: int) -> Inputs:
    """Inside (-1, 1): the domain of erf_inv, asin, acos, atanh."""
    return lambda rng: [rng.uniform(-0.99, 0.99, shape).astype(np.float32)]


for k in ("square", "erf", "erfc", "sinh", "cosh", "atan", "asinh", "lgamma"):
    case(f"chlo_{k}", CH + k, [X], [X])
for k in ("erf_inv", "asin", "acos", "atanh"):
    case(f"chlo_{k}", CH + k, [X], [X], inputs=unit_interval(8, 16))
case("chlo_acosh", CH + "acosh", [X], [X], inputs=lambda r: [positive(8, 16)(r)[0] + 1])
case("chlo_erf_f16", CH + "erf", [T(8, 16, e="f16")], [T(8, 16, e="f16")])
case("chlo_next_after", CH + "next_after", [X, X], [X])

# --- stablehlo structure ---------------------------------------------------------
case(
    "constant",
    HLO + "constant",
    [],
    [X],
    {"value": np.arange(128, dtype=np.float32).reshape(8, 16)},
)
case("constant_i1", HLO + "constant", [], [XB], {"value": np.eye(8, 16, dtype=bool)})
case("iota_1", HLO + "iota", [], [T(8, 16, e="i32")], {"iota_dimension": 1})
case("iota_0", HLO + "iota", [], [T(16, 8)], {"iota_dimension": 0})
case(
    "broadcast_in_dim",
    HLO + "broadcast_in_dim",
    [T(16)],
    [X],
    {"broadcast_dimensions": (1,)},
)
case(
    "broadcast_in_dim_expand",
    HLO + "broadcast_in_dim",
    [T(8, 1)],
    [X],
    {"broadcast_dimensions": (0, 1)},
)
case(
    "broadcast_in_dim_permute",
    HLO + "broadcast_in_dim",
    [T(16, 8)],
    [T(8, 24, 16)],
    {"broadcast_dimensions": (2, 0)},
)
case("reshape", HLO + "reshape", [T(8, 16, 24)], [T(128, 24)])
case("reshape_split", HLO + "reshape", [T(128)], [T(8, 16)])
case("reshape_regroup", HLO + "reshape", [T(16, 24)], [T(8, 48)])
case("reshape_unit", HLO + "reshape", [T(1, 8, 16)], [T(8, 16, 1)])
case(
    "transpose",
    HLO + "transpose",
    [T(8, 16, 24)],
    [T(24, 8, 16)],
    {"permutation": (2, 0, 1)},
)
case("dot_general", HLO + "dot_general", [T(8, 16), T(16, 24)], [T(8, 24)], _dot())
case(
    "dot_general_batch",
    HLO + "dot_general",
    [T(8, 16, 24), T(8, 24, 16)],
    [T(8, 16, 16)],
    _dot((0,), (0,), (2,), (1,)),
)
case(
    "dot_general_odd",
    HLO + "dot_general",
    [T(16, 8), T(24, 16)],
    [T(8, 24)],
    _dot((), (), (0,), (1,)),
)
case(
    "dot_general_i32",
    HLO + "dot_general",
    [T(8, 16, e="i32"), T(16, 8, e="i32")],
    [T(8, 8, e="i32")],
    _dot(),
)
for kind, dims in (("add", (1,)), ("max", (0, 2)), ("min", (2,)), ("mul", (1,))):
    case(
        f"reduce_{kind}",
        HLO + "reduce",
        [T(8, 16, 24), T()],
        [T(*[s for i, s in enumerate((8, 16, 24)) if i not in dims])],
        {"dimensions": dims, "kind": kind},
        (lambda r: [r.uniform(0.9, 1.1, (8, 16, 24)).astype(np.float32), np.float32(1)])
        if kind == "mul"
        else None,
    )
case(
    "reduce_add_i32",
    HLO + "reduce",
    [T(8, 16, e="i32"), T(e="i32")],
    [T(8, e="i32")],
    {"dimensions": (1,), "kind": "add"},
)
for kind in ("and", "or"):
    case(
        f"reduce_{kind}_i1",
        HLO + "reduce",
        [XB, T(e="i1")],
        [T(16, e="i1")],
        {"dimensions": (0,), "kind": kind},
        lambda r, k=kind: [r.random((8, 16)) < 0.8, np.bool_(k == "and")],
    )
case(
    "reduce_variadic",
    HLO + "reduce",
    [X, X, T(), T()],
    [T(16), T(16)],
    {"dimensions": (0,), "kind": "add"},
)
case(
    "concatenate",
    HLO + "concatenate",
    [T(8, 16), T(8, 8)],
    [T(8, 24)],
    {"dimension": 1},
)
# Slices of a 16x24 operand to its end: (name, start, strides, result).
for cid, start, strides, out in (
    ("slice", (0, 8), (1, 1), T(16, 16)),
    ("slice_strided", (0, 0), (2, 1), T(8, 24)),
    ("slice_strided_offset", (0, 8), (4, 1), T(4, 16)),
):
    case(
        cid,
        HLO + "slice",
        [T(16, 24)],
        [out],
        {"start_indices": start, "limit_indices": (16, 24), "strides": strides},
    )


def _starts(*highs: int) -> Inputs:
    return lambda r: [np.int32(r.integers(0, h + 1)) for h in highs]


case(
    "dynamic_slice",
    HLO + "dynamic_slice",
    [T(16, 24), T(e="i32"), T(e="i32")],
    [T(16, 8)],
    {"slice_sizes": (16, 8)},
    with_operand(None, _starts(3, 20)),
    built=True,
)
case(
    "dynamic_update_slice",
    HLO + "dynamic_update_slice",
    [T(16, 24), T(16, 8), T(e="i32"), T(e="i32")],
    [T(16, 24)],
    None,
    lambda r: [
        r.standard_normal((16, 24)).astype(np.float32),
        r.standard_normal((16, 8)).astype(np.float32),
        *_starts(2, 30)(r),
    ],
)
_embed = {
    "offset_dims": (1,),
    "collapsed_slice_dims": (0,),
    "operand_batching_dims": (),
    "start_indices_batching_dims": (),
    "start_index_map": (0,),
    "index_vector_dim": 1,
    "slice_sizes": (1, 16),
}
# Rows out of range (``gather_clamped``) clamp into the table, also when it
# is split by rows.
for cid, low, high in (("gather", 0, 32), ("gather_clamped", -8, 40)):
    case(
        cid,
        HLO + "gather",
        [T(32, 16), T(8, 1, e="i32")],
        [T(8, 16)],
        _embed,
        with_operand(None, _gather_indices((8, 1), high, low=low)),
        built=True,
    )
case(
    "gather_implicit_vector",
    HLO + "gather",
    [T(32, 16), T(8, 8, e="i32")],
    [T(8, 8, 16)],
    {**_embed, "offset_dims": (2,), "index_vector_dim": 2},
    with_operand(None, _gather_indices((8, 8), 32)),
    built=True,
)
case(
    "gather_batching",
    HLO + "gather",
    [T(8, 32, 16), T(8, 8, 1, e="i32")],
    [T(8, 8, 16)],
    {
        "offset_dims": (2,),
        "collapsed_slice_dims": (1,),
        "operand_batching_dims": (0,),
        "start_indices_batching_dims": (0,),
        "start_index_map": (1,),
        "index_vector_dim": 2,
        "slice_sizes": (1, 1, 16),
    },
    with_operand(None, _gather_indices((8, 8, 1), 32)),
    built=True,
)
case(
    "gather_window",
    HLO + "gather",
    [T(32, 16), T(8, 2, e="i32")],
    [T(8, 8, 8)],
    {
        "offset_dims": (1, 2),
        "collapsed_slice_dims": (),
        "operand_batching_dims": (),
        "start_indices_batching_dims": (),
        "start_index_map": (0, 1),
        "index_vector_dim": 1,
        "slice_sizes": (8, 8),
    },
    with_operand(None, _gather_indices((8, 2), 40)),  # some out of range: clamped
    built=True,
)


def _scatter_inputs(
    kind: str,
    shapes: tuple[tuple[int, ...], ...],
    low: int,
    high: int,
    e: str,
    batch: int,
) -> Inputs:
    """Operand, indices in [low, high) (repeats, some out of range: dropped),
    updates.  ``replace`` gets distinct indices (which duplicate wins is up to
    the implementation)."""
    operand, indices, updates = shapes

    def make(rng: np.random.Generator) -> list[np.ndarray]:
        if kind == "replace":  # distinct within each batch (leading dims)
            rows = int(np.prod(indices[:batch]))
            n = int(np.prod(indices[batch:]))
            pool = np.tile(np.arange(low, low + max(n, high - low)), (rows, 1))
            idx = rng.permuted(pool, axis=1)[:, :n].reshape(indices)
        else:
            idx = rng.integers(low, high, indices)
        if e == "i1":
            x, u = rng.random(operand) < 0.5, rng.random(updates) < 0.5
        elif e == "i32":
            x = rng.integers(-8, 8, operand).astype(np.int32)
            u = rng.integers(-8, 8, updates).astype(np.int32)
        else:
            x = rng.standard_normal(operand).astype(np.float32)
            u = rng.standard_normal(updates).astype(np.float32)
        return [x, idx.astype(np.int32), u]

    return make


def _scatter_case(
    cid: str, kind: str, shapes, dims: dict, low: int, high: int, e="f32"
):
    operand, indices, updates = shapes
    attrs = {
        "update_window_dims": (),
        "inserted_window_dims": (),
        "input_batching_dims": (),
        "scatter_indices_batching_dims": (),
        "index_vector_dim": len(indices) - 1,
        **dims,
        "kind": kind,
    }
    operands = [T(*operand, e=e), T(*indices, e="i32"), T(*updates, e=e)]
    batch = len(dims.get("input_batching_dims", ()))
    inputs = _scatter_inputs(kind, shapes, low, high, e, batch)
    case(cid, HLO + "scatter", operands, [T(*operand, e=e)], attrs, inputs)


# jax.grad of an embedding lookup: rows of a (32, 16) table, tokens (8, 8).
_EMBED_GRAD = {
    "update_window_dims": (2,),
    "inserted_window_dims": (0,),
    "scatter_dims_to_operand_dims": (0,),
}
for kind in ("add", "mul", "max", "min", "replace"):
    _scatter_case(
        f"scatter_{kind}",
        kind,
        ((32, 16), (8, 8, 1), (8, 8, 16)),
        _EMBED_GRAD,
        -4,
        40,
    )
for kind in ("add", "max"):
    _scatter_case(
        f"scatter_{kind}_i32",
        kind,
        ((32, 16), (8, 8, 1), (8, 8, 16)),
        _EMBED_GRAD,
        -4,
        40,
        "i32",
    )
for kind in ("or", "and", "replace"):
    _scatter_case(
        f"scatter_{kind}_i1",
        kind,
        ((32, 16), (8, 8, 1), (8, 8, 16)),
        _EMBED_GRAD,
        -4,
        40,
        "i1",
    )
# jax.grad of take_along_axis: batching dims 0, 1; two updates per row.
for kind in ("add", "min", "replace"):
    _scatter_case(
        f"scatter_batching_{kind}",
        kind,
        ((8, 8, 16), (8, 8, 2, 1), (8, 8, 2)),
        {
            "inserted_window_dims": (2,),
            "input_batching_dims": (0, 1),
            "scatter_indices_batching_dims": (0, 1),
            "scatter_dims_to_operand_dims": (2,),
        },
        -2,
        18,
    )
# 4 x 16 windows at (i, j): dim 1 is covered whole (j must be 0, else dropped).
_scatter_case(
    "scatter_window",
    "add",
    ((16, 16), (8, 2), (8, 4, 16)),
    {"update_window_dims": (1, 2), "scatter_dims_to_operand_dims": (0, 1)},
    -2,
    3,
)

case(
    "pad",
    HLO + "pad",
    [T(8, 16), T()],
    [T(8, 36)],
    {
        "edge_padding_low": (0, 2),
        "edge_padding_high": (0, 3),
        "interior_padding": (0, 1),
    },
)
case(
    "pad_negative",
    HLO + "pad",
    [T(8, 16), T()],
    [T(16, 12)],
    {
        "edge_padding_low": (4, -2),
        "edge_padding_high": (4, -2),
        "interior_padding": (0, 0),
    },
)
case("reverse", HLO + "reverse", [T(8, 16, 24)], [T(8, 16, 24)], {"dimensions": (1,)})

# --- linalg (ins then outs) -------------------------------------------------------
LA = "linalg."
case("linalg_matmul", LA + "matmul", [T(8, 16), T(16, 24), T(8, 24)], [T(8, 24)])
case(
    "linalg_batch_matmul",
    LA + "batch_matmul",
    [T(8, 8, 16), T(8, 16, 24), T(8, 8, 24)],
    [T(8, 8, 24)],
)
for k in ("add", "sub", "mul", "max", "min"):
    case(f"linalg_{k}", LA + k, [X, X, X], [X])
case("linalg_div", LA + "div", [X, X, X], [X], None, nonzero_pair((8, 16)))
for k in ("exp", "abs", "ceil", "floor", "negf", "tanh", "round", "square"):
    case(f"linalg_{k}", LA + k, [X, X], [X])
for k in ("log", "sqrt", "rsqrt", "reciprocal"):
    case(
        f"linalg_{k}",
        LA + k,
        [X, X],
        [X],
        None,
        positive(8, 16),  # the init is filled in at random
    )
case(
    "linalg_powf",
    LA + "powf",
    [X, X, X],
    [X],
    None,
    lambda r: [*positive(8, 16)(r), *positive(8, 16)(r)],
)
case("linalg_select", LA + "select", [XB, X, X, X], [X])
case("linalg_copy", LA + "copy", [X, X], [X])
case("linalg_fill", LA + "fill", [T(), X], [X])
case(
    "linalg_transpose",
    LA + "transpose",
    [T(8, 16, 24), T(24, 8, 16)],
    [T(24, 8, 16)],
    {"permutation": (2, 0, 1)},
)
case(
    "linalg_broadcast",
    LA + "broadcast",
    [T(16), T(8, 16)],
    [T(8, 16)],
    {"dimensions": (0,)},
)
for kind in ("add", "max"):
    case(
        f"linalg_reduce_{kind}",
        LA + "reduce",
        [T(8, 16, 24), T(8, 24)],
        [T(8, 24)],
        {"dimensions": (1,), "kind": kind},
    )

# --- arith on tensors -------------------------------------------------------------
AR = "arith."
for k in ("addf", "subf", "mulf", "maximumf", "minimumf", "maxnumf", "minnumf"):
    case(f"arith_{k}", AR + k, [X, X], [X])
for k in ("addi", "subi", "muli", "maxsi", "minsi", "andi", "ori", "xori"):
    case(f"arith_{k}", AR + k, [XI, XI], [XI])
case("arith_maxui", AR + "maxui", [XI, XI], [XI])
case("arith_divf", AR + "divf", [X, X], [X], None, nonzero_pair((8, 16)))
case("arith_remf", AR + "remf", [X, X], [X], None, nonzero_pair((8, 16)))
for k in ("divsi", "remsi", "divui", "remui"):
    case(f"arith_{k}", AR + k, [XI, XI], [XI], None, nonzero_pair((8, 16), "int32"))
case("arith_negf", AR + "negf", [X], [X])
case("arith_select", AR + "select", [XB, X, X], [X])
case("arith_select_scalar", AR + "select", [T(e="i1"), X, X], [X])
for p in ("ogt", "ole", "oeq", "une", "uno"):
    case(f"arith_cmpf_{p}", AR + "cmpf", [X, X], [XB], {"predicate": p})
case("arith_cmpf_enum", AR + "cmpf", [X, X], [XB], {"predicate": 2})
for p in ("slt", "sge", "ne", "ugt"):
    case(f"arith_cmpi_{p}", AR + "cmpi", [XI, XI], [XB], {"predicate": p})
for k, src, dst in (
    ("extf", "f32", "f64"),  # f16 pieces of a P(sum) round: see test_f16_partials
    ("truncf", "f32", "f16"),
    ("sitofp", "i32", "f32"),
    ("fptosi", "f32", "i32"),
    ("extsi", "i32", "i64"),
    ("trunci", "i32", "i8"),
    ("extui", "i32", "i64"),
    ("uitofp", "i32", "f32"),
    ("fptoui", "f32", "i32"),
):
    case(f"arith_{k}", AR + k, [T(8, 16, e=src)], [T(8, 16, e=dst)])
case(
    "arith_constant",
    AR + "constant",
    [],
    [T(8, 16, e="i32")],
    {"value": np.arange(128, dtype=np.int32).reshape(8, 16)},
)

CASE_IDS = [c[0] for c in CASES]


def _inputs(op: OpSpec, make: Inputs | None, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    if make is None:
        return random_inputs(op, rng)
    arrays = make(rng)
    # Fill in operands the maker left out (a linalg init) with random values.
    extra = random_inputs(op, rng)[len(arrays) :]
    return [np.asarray(a) for a in arrays] + extra


@pytest.mark.parametrize(("cid", "op", "make"), CASES, ids=CASE_IDS)
def test_every_1d_signature_is_legal(cid: str, op: OpSpec, make: Inputs | None) -> None:
    assert has_rule(op) and has_evaluator(op.name)
    ones = signatures_1d(op)
    inputs = _inputs(op, make, seed=len(cid))
    rng = np.random.default_rng(7)
    for n in (2, 4):
        sigs = nd_signatures(op, (n,))
        assert set(sigs) == {s for s in ones if fits(op, s, (n,))}
        for sig in sigs:
            check_signature(op, sig, (n,), inputs, rng)
    # Shapes divisible by 8: only splits of a dim of odd size or sliced-small dims
    # may be uneven, so nearly every 1-D signature was run above.
    assert len(nd_signatures(op, (2,))) == len(ones)


@pytest.mark.parametrize(("cid", "op", "make"), CASES, ids=CASE_IDS)
def test_every_2d_signature_is_legal(cid: str, op: OpSpec, make: Inputs | None) -> None:
    inputs = _inputs(op, make, seed=len(cid))
    rng = np.random.default_rng(11)
    for sig in nd_signatures(op, (2, 2)):
        check_signature(op, sig, (2, 2), inputs, rng)


@pytest.mark.parametrize(("cid", "op", "make"), CASES, ids=CASE_IDS)
def test_sampled_uneven_and_3d_signatures_are_legal(
    cid: str, op: OpSpec, make: Inputs | None
) -> None:
    # (4, 2) catches hierarchy dims read in the wrong order; (2, 2, 2) longer products.
    inputs = _inputs(op, make, seed=len(cid))
    rng = np.random.default_rng(13)
    for hierarchy in ((4, 2), (2, 2, 2)):
        sigs = nd_signatures(op, hierarchy)
        for sig in random.Random(cid).sample(sigs, min(8, len(sigs))):
            check_signature(op, sig, hierarchy, inputs, rng)


def test_f16_partials() -> None:
    # Random f16 partial pieces round, so their sums match to f16 precision only.
    op = OpSpec(AR + "extf", [T(8, 16, e="f16")], [X])
    inputs = random_inputs(op, np.random.default_rng(0))
    for sig in nd_signatures(op, (4,)):
        check_signature(op, sig, (4,), inputs)


# --- seed facts ----------------------------------------------------------------


def _sig(text: str) -> Signature:
    return parse_signature(text)


MATMUL = OpSpec("stablehlo.dot_general", [T(8, 16), T(16, 24)], [T(8, 24)], _dot())


def test_matmul_has_oneflows_five_signatures() -> None:
    sigs = set(signatures_1d(MATMUL))
    for text in (
        "([S(0)], [B]) -> ([S(0)])",
        "([B], [S(1)]) -> ([S(1)])",
        "([S(1)], [S(0)]) -> ([P(sum)])",
        "([P(sum)], [B]) -> ([P(sum)])",
        "([B], [P(sum)]) -> ([P(sum)])",
        "([B], [B]) -> ([B])",
    ):
        assert _sig(text) in sigs, text
    # A and B both S(0) is illegal (seed 000).
    assert _sig("([S(0)], [S(0)]) -> ([S(0)])") not in sigs
    assert len(sigs) == 6


def test_add_signatures() -> None:
    add = OpSpec("stablehlo.add", [T(8, 16, 24)] * 2, [T(8, 16, 24)])
    sigs = set(signatures_1d(add))
    for k in range(3):
        assert sig1d([S(k), S(k)], [S(k)]) in sigs
    assert sig1d([P, P], [P]) in sigs
    assert sig1d([P, B], [P]) not in sigs  # x + y != sum_d (x_d + y)


def test_2d_matmul_seed_signature() -> None:
    # x (B, S(0)) times w (S(1), B) gives y (S(1), S(0)) on a 2x2 mesh (seed 002).
    sig = _sig("([B, S(0)], [S(1), B]) -> ([S(1), S(0)])")
    assert sig in nd_signatures(MATMUL, (2, 2))
    rng = np.random.default_rng(0)
    check_signature(MATMUL, sig, (2, 2), random_inputs(MATMUL, rng), rng)


def test_nd_signatures_keep_uneven_splits_only_where_exact() -> None:
    op = OpSpec("stablehlo.add", [T(6, 4)] * 2, [T(6, 4)])
    sigs = nd_signatures(op, (4,))
    assert sig1d([S(0), S(0)], [S(0)]) in sigs  # 6 over 4: pieces 2, 2, 1, 1
    two = nd_signatures(op, (2, 2))
    assert _sig("([S(0), S(0)], [S(0), S(0)]) -> ([S(0), S(0)])") in two
    reshape = OpSpec("stablehlo.reshape", [T(6, 4)], [T(24)])
    assert all(s.inputs[0] != (S(0),) for s in nd_signatures(reshape, (4,)))


def test_bool_tensors_never_get_partial_sum() -> None:
    op = OpSpec(
        "stablehlo.transpose", [XB], [T(16, 8, e="i1")], {"permutation": (1, 0)}
    )
    kinds = {s for sig in signatures_1d(op) for nd in sig.outputs for s in nd}
    assert Partial("max") in kinds and Partial("sum") not in kinds


def test_nonlinear_ops_get_no_partial_sum() -> None:
    for name in ("exponential", "log", "abs", "sqrt"):
        op = OpSpec(HLO + name, [X], [X])
        assert sig1d([P], [P]) not in signatures_1d(op), name
    conv = OpSpec(HLO + "convert", [X], [T(8, 16, e="i32")])
    assert sig1d([P], [P]) not in signatures_1d(conv)


def test_monotone_and_antitone_partials() -> None:
    exp = signatures_1d(OpSpec(HLO + "exponential", [X], [X]))
    assert sig1d([Partial("max")], [Partial("max")]) in exp
    neg = signatures_1d(OpSpec(HLO + "negate", [X], [X]))
    assert sig1d([Partial("max")], [Partial("min")]) in neg
    maximum = signatures_1d(OpSpec(HLO + "maximum", [X, X], [X]))
    assert sig1d([Partial("max")] * 2, [Partial("max")]) in maximum
    assert sig1d([Partial("min")] * 2, [Partial("min")]) not in maximum


def _partial_kinds(op: OpSpec) -> set[tuple[str, str]]:
    """(input, output) partial kinds of the op's 1-D signatures."""
    out = set()
    for sig in signatures_1d(op):
        (i,), (o,) = sig.inputs[0], sig.outputs[0]
        if isinstance(i, Partial) and isinstance(o, Partial):
            out.add((i.kind, o.kind))
    return out


def test_chlo_partial_facts() -> None:
    """Exactly the facts that hold on all of [-inf, inf]: increasing erf, sinh,
    atan, asinh pass max/min, decreasing erfc swaps them, the rest get none."""
    increasing = {("max", "max"), ("min", "min")}
    for k in ("erf", "sinh", "atan", "asinh"):
        assert _partial_kinds(OpSpec(CH + k, [X], [X])) == increasing, k
    erfc = _partial_kinds(OpSpec(CH + "erfc", [X], [X]))
    assert erfc == {("max", "min"), ("min", "max")}
    none = ("square", "erf_inv", "cosh", "asin", "acos", "acosh", "atanh", "lgamma")
    for k in none:
        assert _partial_kinds(OpSpec(CH + k, [X], [X])) == set(), k
    sigs = signatures_1d(OpSpec(CH + "next_after", [X, X], [X]))
    assert all(
        not isinstance(s, Partial) for sig in sigs for nd in sig.outputs for s in nd
    )
    # No numpy reference (digamma ...) or no JAX lowering under shard_map (mulhi):
    # parsed, but left to the no-rule fallback.
    for k in ("digamma", "bessel_i1e", "polygamma", "zeta", "mulhi"):
        assert not has_rule(CH + k) and not has_evaluator(CH + k), k


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["erf_inv", "atanh", "square", "cosh"])
def test_chlo_facts_left_out_would_be_wrong(name: str) -> None:
    """The checker refutes the facts left out: erf_inv and atanh are increasing
    only on [-1, 1] and a P(max) value's other pieces fall outside it (NaN);
    square and cosh are not monotone; square is not linear."""
    op = OpSpec(CH + name, [X], [X])
    inputs = unit_interval(8, 16)(np.random.default_rng(0))
    claims = [sig1d([Partial("max")], [Partial("max")])]
    if name == "square":
        claims.append(sig1d([P], [P]))
    for claim in claims:
        with pytest.raises(SignatureCheckError):
            check_signature(op, claim, (4,), inputs, np.random.default_rng(1))


# --- local ops -------------------------------------------------------------------


def test_iota_local_offset_is_hierarchical() -> None:
    op = OpSpec(HLO + "iota", [], [T(16, e="i32")], {"iota_dimension": 0})
    sig = _sig("() -> ([S(0), S(0)])")
    local = local_op(op, sig, (2, 2), (1, 0))
    assert local.results[0].shape == (4,)
    assert local.attrs["iota_offset"] == 8
    assert list(evaluate(local, [])[0]) == [8, 9, 10, 11]


def test_partial_sum_constant_is_held_once() -> None:
    op = CASES[CASE_IDS.index("constant")][1]
    sig = _sig("() -> ([P(sum), S(0)])")
    holders = [
        local_op(op, sig, (2, 2), c).attrs["value"] for c in ((0, 0), (0, 1), (1, 0))
    ]
    assert holders[0].shape == (4, 16) and holders[0][0, 1] == 1
    assert np.array_equal(holders[1], np.asarray(op.attrs["value"])[4:])
    assert not holders[2].any()


def test_slice_local_limits() -> None:
    op = CASES[CASE_IDS.index("slice")][1]
    local = local_op(op, _sig("([S(0)]) -> ([S(0)])"), (4,), (2,))
    assert local.attrs["limit_indices"] == (4, 24)
    assert local.results[0].shape == (4, 16)


def test_reshape_and_broadcast_local_types() -> None:
    op = CASES[CASE_IDS.index("reshape")][1]
    local = local_op(op, _sig("([S(0), B]) -> ([S(0), B])"), (2, 2), (1, 1))
    assert local.operands[0].shape == (4, 16, 24)
    assert local.results[0].shape == (64, 24)


# --- registry: wrong built-in claims, every op proven ---------------------------


def test_wrong_builtin_claim_is_caught() -> None:
    # exp is not linear, and matmul cannot take S(0) on both sides.
    exp = OpSpec(HLO + "exponential", [X], [X])
    rng = np.random.default_rng(0)
    with pytest.raises(SignatureCheckError):
        check_signature(exp, sig1d([P], [P]), (2,), random_inputs(exp, rng), rng)
    with pytest.raises(SignatureCheckError):
        check_signature(
            MATMUL,
            sig1d([S(0), S(0)], [S(0)]),
            (2,),
            random_inputs(MATMUL, rng),
            rng,
        )


STABLEHLO_OPS = [
    *("constant", "iota", "add", "subtract", "multiply", "divide", "remainder"),
    *("maximum", "minimum", "power", "and", "or", "xor", "not", "negate", "abs"),
    *("sign", "floor", "ceil", "exponential", "exponential_minus_one", "log"),
    *("log_plus_one", "tanh", "logistic", "sqrt", "rsqrt", "cbrt", "sine"),
    *("cosine", "is_finite", "clamp", "compare", "select", "convert"),
    *("broadcast_in_dim", "reshape", "transpose", "dot_general", "reduce"),
    *("concatenate", "slice", "dynamic_slice", "dynamic_update_slice", "gather"),
    *("scatter", "pad", "reverse", "atan2"),
]


CHLO_OPS = [
    *("square", "erf", "erfc", "erf_inv", "sinh", "cosh", "asin", "acos", "atan"),
    *("asinh", "acosh", "atanh", "lgamma", "next_after"),
]


def test_every_listed_op_has_rule_evaluator_and_proof() -> None:
    proven = {op.name for _, op, _ in CASES}
    for name in [HLO + n for n in STABLEHLO_OPS] + [CH + n for n in CHLO_OPS]:
        assert has_rule(name) and has_evaluator(name), name
        assert name in proven, name
    for name in ("linalg.matmul", "linalg.batch_matmul", "linalg.add", "arith.addf"):
        assert name in proven


def test_localize_type_pieces_and_faults() -> None:
    """The padded piece (remembered per type, layout and mesh) and the exact
    one per coordinate; a split of a dimension the tensor lacks is refused
    every time it is asked, not remembered as an answer."""
    t = TensorType((10, 6), "bf16")
    assert localize_type(t, (S(0), S(1)), [4, 3]) == TensorType((3, 2), "bf16")
    assert localize_type(t, (S(0), S(1)), (4, 3)) == TensorType((3, 2), "bf16")
    assert localize_type(t, (S(0), B), [4, 3], (3, 0)) == TensorType((2, 6), "bf16")
    assert localize_type(t, (S(0), S(0)), [2, 3]) == TensorType((2, 6), "bf16")
    for _ in range(2):
        with pytest.raises(UnevenSplitError, match="out of range"):
            localize_type(t, (S(2), B), [2, 3])
    # a type built with a list shape, a layout given as a list: not
    # remembered (unhashable), still answered
    listed = TensorType([10, 6], "bf16")  # type: ignore[arg-type]
    assert localize_type(listed, [S(0), S(1)], [4, 3]).shape == (3, 2)
