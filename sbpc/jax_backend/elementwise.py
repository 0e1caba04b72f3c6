"""JAX forms of the elementwise ops: StableHLO's, CHLO's, linalg's and arith's.

One table of expressions per arity serves every dialect, keyed by the
elementwise kind ``sbpc.ops`` gives each op name; comparisons and arith's
unsigned ops on signless integers have their own emitters.
"""

from __future__ import annotations

from sbpc.jax_backend.ops import (
    PlainEmitter,
    UnsupportedOpError,
    emits,
    jnp_dtype,
    py_tuple,
    result,
    unbroadcast_call,
)
from sbpc.ops.arith import _CMPF, _CMPI, ARITH_ELEMENTWISE, predicate
from sbpc.ops.chlo import CHLO_ELEMENTWISE
from sbpc.ops.linalg import LINALG_ELEMENTWISE
from sbpc.ops.spec import OpSpec, is_bool
from sbpc.ops.stablehlo import ELEMENTWISE as STABLEHLO_ELEMENTWISE

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
COMPARE = {
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
        return unbroadcast_call(_LAX_BINARY[kind], op, *xs)
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

    def emit(op: OpSpec, args: list[str]) -> str:
        ins = op.replace(operands=op.operands[: len(op.operands) - n_outs])
        return _elementwise_expr(kind, ins, args[: len(args) - n_outs])

    emits(name)(emit)


for _kind in STABLEHLO_ELEMENTWISE:
    _elementwise(f"stablehlo.{_kind}", _kind)
_elementwise("stablehlo.round_nearest_afz", "round")

for _name, _kind in CHLO_ELEMENTWISE.items():
    _elementwise(f"chlo.{_name}", _kind)

for _name, _kind in LINALG_ELEMENTWISE.items():
    _elementwise(f"linalg.{_name}", _kind, n_outs=1)

for _name, _kind in ARITH_ELEMENTWISE.items():
    _elementwise(f"arith.{_name}", _kind)


@emits("stablehlo.compare")
def _compare(op: OpSpec, args: list[str]) -> str:
    """A comparison of the op's ``compare_type``: ``TOTALORDER`` on floats
    orders -NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN (so -0.0 != 0.0
    and NaN == NaN), by comparing the floats' bits as sign-magnitude
    integers; ``FLOAT`` (or none) is IEEE comparison."""
    direction = str(op.attr("comparison_direction"))
    if direction not in COMPARE:
        raise UnsupportedOpError(f"comparison direction '{direction}'")
    a, b = args
    element = op.operands[0].element
    if str(op.attr("compare_type", "")) == "TOTALORDER" and element.startswith(
        ("f", "bf")
    ):
        a, b = (_total_order_key(x, element) for x in (a, b))
    return f"{COMPARE[direction]}({a}, {b})"


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


# --- arith's unsigned ops on signless integers ------------------------------------------


def _unsigned(element: str) -> str:
    digits = element.lstrip("ui")
    if not digits.isdigit() or is_bool(element):
        raise UnsupportedOpError(f"'{element}' is not a sized integer type")
    return f"jnp.uint{int(digits)}"


def _as_unsigned(x: str, element: str) -> str:
    return f"lax.bitcast_convert_type({x}, {_unsigned(element)})"


def _unsigned_binary(fn: str) -> PlainEmitter:
    """An unsigned op on signless integers, the result reinterpreted back."""

    def emit(op: OpSpec, args: list[str]) -> str:
        e = op.operands[0].element
        a, b = (_as_unsigned(x, e) for x in args)
        return f"lax.bitcast_convert_type({fn}({a}, {b}), {jnp_dtype(e)})"

    return emit


for _name, _fn in {
    "divui": "lax.div",
    "remui": "lax.rem",
    "maxui": "jnp.maximum",
    "minui": "jnp.minimum",
}.items():
    emits(f"arith.{_name}")(_unsigned_binary(_fn))


@emits("arith.extui", "arith.uitofp")
def _from_unsigned(op: OpSpec, args: list[str]) -> str:
    src = _as_unsigned(args[0], op.operands[0].element)
    return f"{src}.astype({jnp_dtype(op.results[0].element)})"


@emits("arith.fptoui")
def _fptoui(op: OpSpec, args: list[str]) -> str:
    dst = op.results[0].element
    return f"lax.bitcast_convert_type({args[0]}.astype({_unsigned(dst)}), {jnp_dtype(dst)})"


@emits("arith.cmpf")
def _cmpf(op: OpSpec, args: list[str]) -> str:
    a, b = args
    p = predicate(op, _CMPF)
    shape, _ = result(op)
    unordered = f"(jnp.isnan({a}) | jnp.isnan({b}))"
    if p in ("false", "true"):
        return f"jnp.full({py_tuple(shape)}, {p == 'true'})"
    if p == "uno":
        return unordered
    if p == "ord":
        return f"~{unordered}"
    base = {"eq": "EQ", "ne": "NE", "gt": "GT", "ge": "GE", "lt": "LT", "le": "LE"}
    value = f"{COMPARE[base[p[1:]]]}({a}, {b})"
    if p[0] == "u":
        return f"({value} | {unordered})"
    return f"({value} & ~{unordered})"


@emits("arith.cmpi")
def _cmpi(op: OpSpec, args: list[str]) -> str:
    a, b = args
    p = predicate(op, _CMPI)
    if p[0] == "u":
        e = op.operands[0].element
        a, b = _as_unsigned(a, e), _as_unsigned(b, e)
    direction = p.upper() if p in ("eq", "ne") else p[1:].upper()
    return f"{COMPARE[direction]}({a}, {b})"
