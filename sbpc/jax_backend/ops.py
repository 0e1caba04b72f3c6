"""Tensor ops as JAX source text: one emitter per op kind, for local and global use.

``op_expressions(op, args, ctx)`` returns one Python expression per result
of ``op`` applied to the arrays named ``args`` (or one ``Unpack``: a call
whose tuple holds every result, written once and unpacked), written with ``jax.lax`` and
``jax.numpy`` (imported as ``lax`` and ``jnp``; ``np`` is numpy).  The same
emitter serves the sharded body, where ``op`` is the device's op
(``sbpc.ops.registry.local_op``: local shapes) and device-dependent attributes
arrive as expressions in ``ctx.dynamic``, and ``reference``, where ``op`` is
the global op.  Semantics are those of ``sbpc.ops.evaluate`` (StableHLO's): integer
division truncates, ``dynamic_slice`` and ``gather`` clamp their starts,
``scatter`` drops update windows that do not fit, the results have the
result types' dtypes.

An op without an emitter, or with attributes the emitter cannot express,
raises ``UnsupportedOpError``; the caller turns it into a located error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import numpy as np

from sbpc.ops.arith import _CMPF, _CMPI, ARITH_ELEMENTWISE, predicate
from sbpc.ops.chlo import CHLO_ELEMENTWISE
from sbpc.ops.kind import OP_KINDS
from sbpc.ops.linalg import LINALG_ELEMENTWISE
from sbpc.ops.spec import OpSpec, is_bool, numpy_dtype
from sbpc.ops.stablehlo import ELEMENTWISE as STABLEHLO_ELEMENTWISE


class UnsupportedOpError(ValueError):
    """An op (or one of its attribute values) the JAX emitter cannot express."""


class Context(Protocol):
    """What an emitter may ask of the module being written."""

    def const(self, value: np.ndarray, element: str) -> str:
        """The module-level name of a numpy constant of MLIR element type ``element``."""
        ...


@dataclass(frozen=True)
class Unpack:
    """One call returning all of a multi-result op's results as a tuple.

    It is written once and unpacked, so the op runs once: an
    ``optimization_barrier`` fences its operands together, as the input asks,
    and a multi-operand sort or reduce is not repeated per result.
    """

    call: str


Emitted = list[str] | Unpack
Emitter = Callable[[OpSpec, list[str], Context, Mapping[str, str]], Emitted]

JNP_DTYPE = {
    "i1": "jnp.bool_",
    "i8": "jnp.int8",
    "ui8": "jnp.uint8",
    "i16": "jnp.int16",
    "ui16": "jnp.uint16",
    "i32": "jnp.int32",
    "ui32": "jnp.uint32",
    "i64": "jnp.int64",
    "ui64": "jnp.uint64",
    "index": "jnp.int64",
    "f16": "jnp.float16",
    "bf16": "jnp.bfloat16",
    "f32": "jnp.float32",
    "f64": "jnp.float64",
}


def jnp_dtype(element: str) -> str:
    """``jnp.float32`` for ``f32`` and so on."""
    if element not in JNP_DTYPE:
        raise UnsupportedOpError(f"element type '{element}' has no JAX dtype")
    return JNP_DTYPE[element]


def _bits(element: str) -> int:
    digits = element.lstrip("ui")
    if not digits.isdigit() or is_bool(element):
        raise UnsupportedOpError(f"'{element}' is not a sized integer type")
    return int(digits)


def _unsigned(element: str) -> str:
    return f"jnp.uint{_bits(element)}"


def register_emitter(
    op_name: str, fn: Emitter | None = None
) -> Emitter | Callable[[Emitter], Emitter]:
    """Set how ``op_name`` is written in JAX; usable as a decorator.

    The emitter is the ``jax_emitter`` facet of the op kind's record
    (``sbpc.ops.kind``); a later registration replaces an earlier one.
    """
    return OP_KINDS.registrar(op_name, "jax_emitter", fn)


def _emitter(op_name: str) -> Emitter | None:
    kind = OP_KINDS.get(op_name)
    return None if kind is None else cast(Emitter | None, kind.jax_emitter)


def has_emitter(op_name: str) -> bool:
    """Whether the op has a JAX form."""
    return _emitter(op_name) is not None


def emitted_ops() -> list[str]:
    """Names of every op with an emitter, sorted."""
    return OP_KINDS.names("jax_emitter")


def op_expressions(
    op: OpSpec,
    args: Sequence[str],
    ctx: Context,
    dynamic: Mapping[str, str] | None = None,
) -> Emitted:
    """One JAX expression per result of ``op`` on the arrays named ``args``,
    or one ``Unpack`` of them all."""
    fn = _emitter(op.name)
    if fn is None:
        raise UnsupportedOpError(f"the JAX emitter has no lowering for '{op.name}'")
    if len(args) != len(op.operands):
        raise UnsupportedOpError(
            f"'{op.name}' takes {len(op.operands)} operands, got {len(args)}"
        )
    try:
        exprs = fn(op, list(args), ctx, dynamic or {})
    except (KeyError, TypeError, ValueError) as err:
        if isinstance(err, UnsupportedOpError):
            raise
        raise UnsupportedOpError(f"'{op.name}': cannot lower {op}: {err}") from err
    if not isinstance(exprs, Unpack) and len(exprs) != len(op.results):
        raise UnsupportedOpError(f"'{op.name}': emitter gave {len(exprs)} results")
    return exprs


def assignments(names: Sequence[str], exprs: Emitted, indent: str) -> list[str]:
    """Statements binding ``names`` to an op's results."""
    if isinstance(exprs, Unpack):
        return [f"{indent}{', '.join(names)}, = {exprs.call}"]
    return [f"{indent}{n} = {e}" for n, e in zip(names, exprs, strict=True)]


def bindings(names: Sequence[str], exprs: Emitted, scratch: str) -> list[str]:
    """Assignment expressions (``:=``) binding ``names`` to an op's results,
    for bodies written as one expression; ``scratch`` names an ``Unpack``'s
    tuple."""
    if isinstance(exprs, Unpack):
        return [f"({scratch} := {exprs.call})"] + [
            f"({n} := {scratch}[{k}])" for k, n in enumerate(names)
        ]
    return [f"({n} := {e})" for n, e in zip(names, exprs, strict=True)]


def _ints(op: OpSpec, key: str) -> tuple[int, ...]:
    value = op.attr(key)
    return () if value is None else tuple(int(v) for v in value)


def py_tuple(values: Sequence[int]) -> str:
    """A Python tuple literal (``(3,)`` for one element)."""
    values = [int(v) for v in values]
    return "(" + ", ".join(map(str, values)) + ("," if len(values) == 1 else "") + ")"


def _result(op: OpSpec, k: int = 0) -> tuple[tuple[int, ...], str]:
    t = op.results[k]
    return t.shape, jnp_dtype(t.element)


# --- elementwise ------------------------------------------------------------------

_UNARY = {
    "negate": "jnp.negative({0})",
    "abs": "jnp.abs({0})",
    "sign": "jnp.sign({0})",
    "floor": "jnp.floor({0})",
    "ceil": "jnp.ceil({0})",
    "round": "lax.round({0}, lax.RoundingMethod.AWAY_FROM_ZERO)",
    "exponential": "jnp.exp({0})",
    "exponential_minus_one": "jnp.expm1({0})",
    "log": "jnp.log({0})",
    "log_plus_one": "jnp.log1p({0})",
    "tanh": "jnp.tanh({0})",
    "logistic": "lax.logistic({0})",
    "sqrt": "jnp.sqrt({0})",
    "rsqrt": "lax.rsqrt({0})",
    "cbrt": "lax.cbrt({0})",
    "sine": "jnp.sin({0})",
    "cosine": "jnp.cos({0})",
    "square": "jnp.square({0})",
    "erf": "lax.erf({0})",
    "erfc": "lax.erfc({0})",
    "erf_inv": "lax.erf_inv({0})",
    "sinh": "lax.sinh({0})",
    "cosh": "lax.cosh({0})",
    "asin": "lax.asin({0})",
    "acos": "lax.acos({0})",
    "atan": "lax.atan({0})",
    "asinh": "lax.asinh({0})",
    "acosh": "lax.acosh({0})",
    "atanh": "lax.atanh({0})",
    "lgamma": "lax.lgamma({0})",
    "reciprocal": "jnp.reciprocal({0})",
    "is_finite": "jnp.isfinite({0})",
    "not": "jnp.invert({0})",
    "copy": "{0}",
}
_BINARY = {
    "add": "jnp.add({0}, {1})",
    "subtract": "jnp.subtract({0}, {1})",
    "multiply": "jnp.multiply({0}, {1})",
    "maximum": "jnp.maximum({0}, {1})",
    "minimum": "jnp.minimum({0}, {1})",
    "maximum_num": "jnp.fmax({0}, {1})",
    "minimum_num": "jnp.fmin({0}, {1})",
    "power": "jnp.power({0}, {1})",
    "atan2": "jnp.arctan2({0}, {1})",
    "and": "jnp.bitwise_and({0}, {1})",
    "or": "jnp.bitwise_or({0}, {1})",
    "xor": "jnp.bitwise_xor({0}, {1})",
    "next_after": "lax.nextafter({0}, {1})",
}
# lax.div / lax.rem: C semantics (truncation, sign of the dividend) as
# numpy's fmod and sbpc's integer division; they do not broadcast.
_LAX_BINARY = {"divide": "lax.div", "remainder": "lax.rem"}
_COMPARE = {
    "EQ": "jnp.equal",
    "NE": "jnp.not_equal",
    "GE": "jnp.greater_equal",
    "GT": "jnp.greater",
    "LE": "jnp.less_equal",
    "LT": "jnp.less",
}


def _elementwise_expr(kind: str, op: OpSpec, xs: list[str]) -> str:
    """The expression of elementwise ``kind`` on inputs ``xs`` (no inits)."""
    if kind in _UNARY:
        return _UNARY[kind].format(*xs)
    if kind in _BINARY:
        return _BINARY[kind].format(*xs)
    if kind in _LAX_BINARY:
        a, b = xs
        if op.operands[0].shape != op.operands[1].shape:
            return f"{_LAX_BINARY[kind]}(*jnp.broadcast_arrays({a}, {b}))"
        return f"{_LAX_BINARY[kind]}({a}, {b})"
    if kind == "clamp":
        lo, x, hi = xs
        return f"jnp.minimum(jnp.maximum({x}, {lo}), {hi})"
    if kind == "select":
        return f"jnp.where({xs[0]}, {xs[1]}, {xs[2]})"
    if kind == "convert":
        dst = op.results[0].element
        if is_bool(dst):
            return f"({xs[0]} != 0)"
        return f"{xs[0]}.astype({jnp_dtype(dst)})"
    raise UnsupportedOpError(f"no JAX form for elementwise kind '{kind}'")


def _elementwise(name: str, kind: str, n_outs: int = 0) -> None:
    """Register ``name`` as elementwise ``kind``; ``n_outs`` trailing inits ignored."""

    def emit(
        op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
    ) -> list[str]:
        ins = op.replace(operands=op.operands[: len(op.operands) - n_outs])
        return [_elementwise_expr(kind, ins, args[: len(args) - n_outs])]

    register_emitter(name)(emit)


for _kind in STABLEHLO_ELEMENTWISE:
    _elementwise(f"stablehlo.{_kind}", _kind)
_elementwise("stablehlo.round_nearest_afz", "round")

for _name, _kind in CHLO_ELEMENTWISE.items():
    _elementwise(f"chlo.{_name}", _kind)

for _name, _kind in LINALG_ELEMENTWISE.items():
    _elementwise(f"linalg.{_name}", _kind, n_outs=1)

for _name, _kind in ARITH_ELEMENTWISE.items():
    _elementwise(f"arith.{_name}", _kind)


@register_emitter("stablehlo.compare")
def _compare(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    """A comparison of the op's ``compare_type``: ``TOTALORDER`` on floats
    orders -NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN (so -0.0 != 0.0
    and NaN == NaN), by comparing the floats' bits as sign-magnitude
    integers; ``FLOAT`` (or none) is IEEE comparison."""
    direction = str(op.attr("comparison_direction"))
    if direction not in _COMPARE:
        raise UnsupportedOpError(f"comparison direction '{direction}'")
    a, b = args
    element = op.operands[0].element
    if str(op.attr("compare_type", "")) == "TOTALORDER" and element.startswith(
        ("f", "bf")
    ):
        a, b = (_total_order_key(x, element) for x in (a, b))
    return [f"{_COMPARE[direction]}({a}, {b})"]


_FLOAT_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


def _total_order_key(x: str, element: str) -> str:
    """Signed integers ordered as ``x``'s floats in IEEE total order: the bits
    of a negative float flipped (all but the sign) make larger magnitudes
    smaller."""
    bits = _FLOAT_BITS.get(element)
    if bits is None:
        raise UnsupportedOpError(f"TOTALORDER comparison of '{element}'")
    signed = f"jnp.int{bits}"
    i = f"lax.bitcast_convert_type({x}, {signed})"
    return f"({i} ^ (({i} >> {bits - 1}) & {signed}({(1 << (bits - 1)) - 1})))"


def _as_unsigned(x: str, element: str) -> str:
    return f"lax.bitcast_convert_type({x}, {_unsigned(element)})"


def _unsigned_binary(fn: str) -> Emitter:
    """An unsigned op on signless integers, the result reinterpreted back."""

    def emit(
        op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
    ) -> list[str]:
        e = op.operands[0].element
        a, b = (_as_unsigned(x, e) for x in args)
        return [f"lax.bitcast_convert_type({fn}({a}, {b}), {jnp_dtype(e)})"]

    return emit


for _name, _fn in {
    "divui": "lax.div",
    "remui": "lax.rem",
    "maxui": "jnp.maximum",
    "minui": "jnp.minimum",
}.items():
    register_emitter(f"arith.{_name}")(_unsigned_binary(_fn))


@register_emitter("arith.extui")
@register_emitter("arith.uitofp")
def _from_unsigned(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    src = _as_unsigned(args[0], op.operands[0].element)
    return [f"{src}.astype({jnp_dtype(op.results[0].element)})"]


@register_emitter("arith.fptoui")
def _fptoui(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    dst = op.results[0].element
    return [
        f"lax.bitcast_convert_type({args[0]}.astype({_unsigned(dst)}), "
        f"{jnp_dtype(dst)})"
    ]


@register_emitter("arith.cmpf")
def _cmpf(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    a, b = args
    p = predicate(op, _CMPF)
    shape, _ = _result(op)
    unordered = f"(jnp.isnan({a}) | jnp.isnan({b}))"
    if p in ("false", "true"):
        return [f"jnp.full({py_tuple(shape)}, {p == 'true'})"]
    if p == "uno":
        return [unordered]
    if p == "ord":
        return [f"~{unordered}"]
    base = {"eq": "EQ", "ne": "NE", "gt": "GT", "ge": "GE", "lt": "LT", "le": "LE"}
    value = f"{_COMPARE[base[p[1:]]]}({a}, {b})"
    if p[0] == "u":
        return [f"({value} | {unordered})"]
    return [f"({value} & ~{unordered})"]


@register_emitter("arith.cmpi")
def _cmpi(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    a, b = args
    p = predicate(op, _CMPI)
    if p[0] == "u":
        e = op.operands[0].element
        a, b = _as_unsigned(a, e), _as_unsigned(b, e)
    direction = p.upper() if p in ("eq", "ne") else p[1:].upper()
    return [f"{_COMPARE[direction]}({a}, {b})"]


# --- constants and iota -----------------------------------------------------------


@register_emitter("stablehlo.constant")
@register_emitter("arith.constant")
def _constant(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    """The whole value; a device's block arrives in ``dyn['value']``."""
    if "value" in dyn:
        return [dyn["value"]]
    shape, dtype = _result(op)
    element = op.results[0].element
    value = np.asarray(op.attr("value")).astype(numpy_dtype(element))
    name = ctx.const(value, element)
    if value.shape == shape:
        return [f"jnp.asarray({name}, {dtype})"]
    return [f"jnp.broadcast_to(jnp.asarray({name}, {dtype}), {py_tuple(shape)})"]


@register_emitter("stablehlo.iota")
def _iota(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    """Counts from ``iota_offset`` (an expression on a device holding a block)."""
    shape, dtype = _result(op)
    dim = int(op.attr("iota_dimension"))
    base = f"lax.broadcasted_iota({dtype}, {py_tuple(shape)}, {dim})"
    offset = dyn.get("iota_offset", str(int(op.attr("iota_offset", 0))))
    if offset == "0":
        return [base]
    return [f"({base} + jnp.asarray({offset}, {dtype}))"]


# --- layout ops ---------------------------------------------------------------------


def _broadcast_expr(x: str, shape: Sequence[int], dims: Sequence[int]) -> str:
    dims = [int(d) for d in dims]
    if dims != sorted(dims):
        order = [int(i) for i in np.argsort(dims)]
        x = f"lax.transpose({x}, {py_tuple(order)})"
        dims = sorted(dims)
    return f"lax.broadcast_in_dim({x}, {py_tuple(shape)}, {py_tuple(dims)})"


@register_emitter("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    shape, _ = _result(op)
    return [_broadcast_expr(args[0], shape, _ints(op, "broadcast_dimensions"))]


@register_emitter("linalg.broadcast")
def _linalg_broadcast(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    shape, _ = _result(op)
    added = set(_ints(op, "dimensions"))
    kept = [d for d in range(len(shape)) if d not in added]
    return [_broadcast_expr(args[0], shape, kept)]


@register_emitter("linalg.fill")
def _fill(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    shape, dtype = _result(op)
    return [f"jnp.broadcast_to(jnp.asarray({args[0]}, {dtype}), {py_tuple(shape)})"]


@register_emitter("stablehlo.reshape")
def _reshape(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    shape, _ = _result(op)
    return [f"jnp.reshape({args[0]}, {py_tuple(shape)})"]


@register_emitter("stablehlo.transpose")
@register_emitter("linalg.transpose")
def _transpose(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    return [f"lax.transpose({args[0]}, {py_tuple(_ints(op, 'permutation'))})"]


@register_emitter("stablehlo.reverse")
def _reverse(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    dims = _ints(op, "dimensions")
    return [f"lax.rev({args[0]}, {py_tuple(dims)})" if dims else args[0]]


@register_emitter("stablehlo.concatenate")
def _concatenate(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    return [f"lax.concatenate([{', '.join(args)}], {int(op.attr('dimension'))})"]


@register_emitter("stablehlo.slice")
def _slice(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    start = _ints(op, "start_indices")
    limit = _ints(op, "limit_indices")
    strides = _ints(op, "strides") or (1,) * len(start)
    return [
        f"lax.slice({args[0]}, {py_tuple(start)}, {py_tuple(limit)}, {py_tuple(strides)})"
    ]


def _clamped(starts: Sequence[str], shape: Sequence[int], sizes: Sequence[int]) -> str:
    """StableHLO clamps starts into range (jax would wrap negative ones)."""
    parts = [
        f"jnp.clip({s}, 0, {int(d) - int(n)})"
        for s, d, n in zip(starts, shape, sizes, strict=True)
    ]
    return "[" + ", ".join(parts) + "]"


@register_emitter("stablehlo.dynamic_slice")
def _dynamic_slice(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    sizes = _ints(op, "slice_sizes")
    starts = _clamped(args[1:], op.operands[0].shape, sizes)
    return [f"lax.dynamic_slice({args[0]}, {starts}, {py_tuple(sizes)})"]


@register_emitter("stablehlo.dynamic_update_slice")
def _dynamic_update_slice(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    starts = _clamped(args[2:], op.operands[0].shape, op.operands[1].shape)
    return [f"lax.dynamic_update_slice({args[0]}, {args[1]}, {starts})"]


@register_emitter("stablehlo.pad")
def _pad(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    lo, hi = _ints(op, "edge_padding_low"), _ints(op, "edge_padding_high")
    interior = _ints(op, "interior_padding") or (0,) * len(lo)
    config = ", ".join(
        f"({a}, {b}, {i})" for a, b, i in zip(lo, hi, interior, strict=True)
    )
    return [f"lax.pad({args[0]}, {args[1]}, [{config}])"]


def _index_vector_last(
    op: OpSpec, indices: str, batching_attr: str
) -> tuple[str, list[int]]:
    """``indices`` (operand 1) with its index vector dim moved last, as
    ``lax.gather``/``lax.scatter`` want, and the batching dims renumbered."""
    rank = op.operands[1].rank
    ivd = int(op.attr("index_vector_dim"))
    batching = list(_ints(op, batching_attr))
    if ivd == rank:
        return f"{indices}[..., None]", batching
    if ivd != rank - 1:
        indices = f"jnp.moveaxis({indices}, {ivd}, -1)"
        batching = [d - 1 if d > ivd else d for d in batching]
    return indices, batching


@register_emitter("stablehlo.gather")
def _gather(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    """``lax.gather`` wants the index vector last; starts clamp (mode CLIP)."""
    x, indices = args
    indices, batching = _index_vector_last(op, indices, "start_indices_batching_dims")
    dnums = (
        "lax.GatherDimensionNumbers("
        f"offset_dims={py_tuple(_ints(op, 'offset_dims'))}, "
        f"collapsed_slice_dims={py_tuple(_ints(op, 'collapsed_slice_dims'))}, "
        f"start_index_map={py_tuple(_ints(op, 'start_index_map'))}, "
        f"operand_batching_dims={py_tuple(_ints(op, 'operand_batching_dims'))}, "
        f"start_indices_batching_dims={py_tuple(batching)})"
    )
    sizes = py_tuple(_ints(op, "slice_sizes"))
    return [
        f"lax.gather({x}, {indices}, {dnums}, {sizes}, mode=lax.GatherScatterMode.CLIP)"
    ]


# scatter body kind -> lax function (or/and on booleans are max/min)
_SCATTER = {
    "add": "lax.scatter_add",
    "mul": "lax.scatter_mul",
    "max": "lax.scatter_max",
    "min": "lax.scatter_min",
    "or": "lax.scatter_max",
    "and": "lax.scatter_min",
    "replace": "lax.scatter",
}


@register_emitter("stablehlo.scatter")
def _scatter(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    """``lax.scatter_*`` want the index vector last; windows that do not fit
    are dropped, as StableHLO (XLA) does (mode FILL_OR_DROP)."""
    x, indices, updates = args
    kind = op.attr("kind")
    if kind not in _SCATTER:
        raise UnsupportedOpError(f"'{op.name}' with body kind {kind!r} has no JAX form")
    indices, batching = _index_vector_last(op, indices, "scatter_indices_batching_dims")
    dnums = (
        "lax.ScatterDimensionNumbers("
        f"update_window_dims={py_tuple(_ints(op, 'update_window_dims'))}, "
        f"inserted_window_dims={py_tuple(_ints(op, 'inserted_window_dims'))}, "
        "scatter_dims_to_operand_dims="
        f"{py_tuple(_ints(op, 'scatter_dims_to_operand_dims'))}, "
        f"operand_batching_dims={py_tuple(_ints(op, 'input_batching_dims'))}, "
        f"scatter_indices_batching_dims={py_tuple(batching)})"
    )
    flags = (
        f"indices_are_sorted={bool(op.attr('indices_are_sorted', False))}, "
        f"unique_indices={bool(op.attr('unique_indices', False))}"
    )
    return [
        f"{_SCATTER[str(kind)]}({x}, {indices}, {updates}, {dnums}, {flags}, "
        "mode=lax.GatherScatterMode.FILL_OR_DROP)"
    ]


# --- contraction and reduction -------------------------------------------------------


@register_emitter("stablehlo.dot_general")
def _dot_general(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    """``lax.dot_general`` with the op's own numerics: its ``precision_config``
    (absent: ``DEFAULT``, which is TF32 for f32 on recent GPUs) and its result
    type as ``preferred_element_type`` (bf16 x bf16 -> f32 accumulates in f32
    from bf16 operands; casting the operands first would change the numbers).
    Operands are cast only where their element types differ, which
    ``lax.dot_general`` does not take."""
    _, dtype = _result(op)
    a, b = args
    if op.operands[0].element != op.operands[1].element:
        a, b = (f"{x}.astype({dtype})" for x in args)
    dnums = (
        f"(({py_tuple(_ints(op, 'lhs_contracting_dimensions'))}, "
        f"{py_tuple(_ints(op, 'rhs_contracting_dimensions'))}), "
        f"({py_tuple(_ints(op, 'lhs_batching_dimensions'))}, "
        f"{py_tuple(_ints(op, 'rhs_batching_dimensions'))}))"
    )
    return [
        f"lax.dot_general({a}, {b}, {dnums}{_precision(op)}, "
        f"preferred_element_type={dtype})"
    ]


def _precision(op: OpSpec) -> str:
    """``, precision=(...)`` from the op's per-operand precision config."""
    config = op.attr("precision")
    if not config:
        return ""
    names = [str(p) for p in config]
    unknown = sorted(set(names) - {"DEFAULT", "HIGH", "HIGHEST"})
    if unknown:
        raise UnsupportedOpError(f"precision {', '.join(unknown)}")
    if all(n == "DEFAULT" for n in names):
        return ""
    return ", precision=(" + ", ".join(f"lax.Precision.{n}" for n in names) + ")"


@register_emitter("linalg.matmul")
@register_emitter("linalg.batch_matmul")
def _matmul(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    _, dtype = _result(op)
    # linalg's body casts the operands to the result type and computes in it:
    # exact arithmetic of that type, which is HIGHEST (DEFAULT f32 is TF32).
    a, b, c = (f"{x}.astype({dtype})" for x in args)
    return [f"({c} + jnp.matmul({a}, {b}, precision=lax.Precision.HIGHEST))"]


# body kind -> (reduction over dims, combine with the init); {0} array, {1} dims,
# {2} dtype.  Bitwise and/or on integers go through lax.reduce with their identity;
# max/min through lax's, whose identity makes an empty dim reduce to the init
# (jnp.max refuses an empty dim).
_REDUCE = {
    "add": ("jnp.sum({0}, axis={1}, dtype={2})", "({0} + {1})"),
    "mul": ("jnp.prod({0}, axis={1}, dtype={2})", "({0} * {1})"),
    "max": ("lax.reduce_max({0}, {1})", "jnp.maximum({0}, {1})"),
    "min": ("lax.reduce_min({0}, {1})", "jnp.minimum({0}, {1})"),
    "and": (
        "lax.reduce({0}, np.array(-1, {2}), lax.bitwise_and, {1})",
        "jnp.bitwise_and({0}, {1})",
    ),
    "or": (
        "lax.reduce({0}, np.array(0, {2}), lax.bitwise_or, {1})",
        "jnp.bitwise_or({0}, {1})",
    ),
}
_BOOL_REDUCE = {
    "add": "jnp.any({0}, axis={1})",
    "or": "jnp.any({0}, axis={1})",
    "max": "jnp.any({0}, axis={1})",
    "and": "jnp.all({0}, axis={1})",
    "min": "jnp.all({0}, axis={1})",
    "mul": "jnp.all({0}, axis={1})",
}


def _reduce_exprs(
    op: OpSpec, kind: object, dims: Sequence[int], xs: list[str], inits: list[str]
) -> list[str]:
    if kind not in _REDUCE:
        raise UnsupportedOpError(
            f"'{op.name}' with body kind {kind!r}: only "
            + ", ".join(sorted(_REDUCE))
            + " have a JAX form"
        )
    reduce, combine = _REDUCE[str(kind)]
    out = []
    for k, (x, init) in enumerate(zip(xs, inits, strict=True)):
        element = op.operands[k].element
        if is_bool(element):
            reduce_k = _BOOL_REDUCE[str(kind)]
            combine_k = combine if kind in ("and", "or") else _bool_combine(str(kind))
        else:
            reduce_k, combine_k = reduce, combine
        dtype = jnp_dtype(element)
        r = reduce_k.format(x, py_tuple(dims), dtype) if dims else x
        out.append(combine_k.format(init, r))
    return out


def _bool_combine(kind: str) -> str:
    return (
        "jnp.bitwise_or({0}, {1})"
        if kind in ("add", "max")
        else ("jnp.bitwise_and({0}, {1})")
    )


@register_emitter("stablehlo.reduce")
def _reduce(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> Emitted:
    if op.attr("kind") in ("argmax", "argmin"):  # JAX's two-input body
        from sbpc.jax_backend.window_ops import arg_reduce_exprs

        return arg_reduce_exprs(op, args)
    n = len(args) // 2
    return _reduce_exprs(
        op, op.attr("kind"), _ints(op, "dimensions"), args[:n], args[n:]
    )


@register_emitter("linalg.reduce")
def _linalg_reduce(
    op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
) -> list[str]:
    n = len(args) - len(op.results)
    return _reduce_exprs(
        op, op.attr("kind"), _ints(op, "dimensions"), args[:n], args[n:]
    )


# Emitters that live in their own modules register on import: convolution,
# windows and sorting; bit operations.
from sbpc.jax_backend import bits as _bit_emitters  # noqa: E402, F401
from sbpc.jax_backend import window_ops as _window_ops  # noqa: E402, F401
