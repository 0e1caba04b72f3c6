"""Elementwise op kinds shared by stablehlo, chlo, linalg and arith: semantics and SBP facts.

Each kind has a numpy implementation and a function listing its partial
signatures, derived from algebraic facts stated once here:

* jointly linear (``add``, ``subtract``, ``negate``, ``select``'s branches):
  all ``P(sum)`` -> ``P(sum)``;
* linear in each argument separately (``multiply``; ``divide`` in its
  dividend, floats only: integer division truncates);
* monotone in one argument, the others fixed (``exp``, ``floor``, ``compare``,
  and on all of [-inf, inf] ``erf``, ``sinh``, ``atan``, ``asinh`` ...):
  ``P(max)``/``P(min)`` pass through, swapped where f is non-increasing
  (``negate``, ``not``, ``erfc``, compare's right side of ``GT``);
* jointly max/min-preserving (``maximum`` with ``P(max)`` on both sides,
  ``minimum`` with ``P(min)``, boolean ``or``/``and``).

What is left out, and why:
* ``convert`` is linear only between float types that widen (narrowing
  rounds each piece: pieces of a small value may be large); float<->int and
  integer widening are not linear (truncation, wrap-around);
* ``log``, ``log_plus_one``, ``sqrt``, ``rsqrt`` are monotone only on their
  domain, and pieces of a ``P(max)`` value may fall outside it (NaN); so are
  ``erf_inv`` and ``atanh`` (increasing on [-1, 1]), ``asin`` and ``acos``
  ([-1, 1]) and ``acosh`` ([1, inf));
* ``square``, ``cosh`` and ``lgamma`` are neither linear nor monotone;
  ``next_after`` steps by one ulp toward its second operand, which is
  monotone in each argument mathematically but not worth the signed-zero
  cases (``nextafter(-0.0, 0.0)``), so it gets none either;
* integer ``add``/``negate`` are not monotone (wrap-around), but they are
  linear (modular arithmetic), so they keep ``P(sum)``;
* signless integers (``iN``) compare as signed in ``P(max)``/``P(min)``; the
  unsigned arith ops (``maxui``, ``cmpi ugt`` ...) get no max/min partials.

Every dimension is a parallel factor (``S(k)`` on all same-rank operands and
results); rank-0 operands (a scalar predicate or clamp bound) stay ``B``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sbpc.algebra.sbp import PartialKind
from sbpc.algebra.signature import Signature
from sbpc.ops.derive import (
    elementwise_factors,
    factor_signatures,
    joint,
    linear,
    linear_each,
    monotone,
)
from sbpc.ops.kind import OP_KINDS, OpKinds
from sbpc.ops.spec import OpSpec, is_bool, is_float, numpy_dtype

ArrayFn = Callable[[OpSpec, list[np.ndarray]], np.ndarray]
PartialsFn = Callable[[OpSpec], list[Signature]]


@dataclass(frozen=True)
class Elementwise:
    """An elementwise kind: numpy semantics and its partial signatures."""

    fn: ArrayFn
    partials: PartialsFn


def _no_partials(op: OpSpec) -> list[Signature]:
    return []


def _sizes(op: OpSpec) -> tuple[int, int]:
    return len(op.operands), len(op.results)


def _elements(op: OpSpec) -> list[str]:
    return [t.element for t in (*op.operands, *op.results)]


def _any_bool(op: OpSpec) -> bool:
    return any(is_bool(e) for e in _elements(op))


def _all_float(op: OpSpec) -> bool:
    return all(is_float(e) for e in _elements(op))


def _unary(f: Callable[[np.ndarray], np.ndarray]) -> ArrayFn:
    return lambda op, xs: f(xs[0])


def _binary(f: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> ArrayFn:
    return lambda op, xs: f(xs[0], xs[1])


# --- partial-signature facts -------------------------------------------------


def _add_like(mono: dict[int, int]) -> PartialsFn:
    """add/subtract: linear unless boolean; monotone for floats (ints wrap)."""

    def partials(op: OpSpec) -> list[Signature]:
        sigs = [] if _any_bool(op) else linear(*_sizes(op), (0, 1))
        if _all_float(op):
            sigs += monotone(*_sizes(op), mono)
        return sigs

    return partials


def _multiply(op: OpSpec) -> list[Signature]:
    return [] if _any_bool(op) else linear_each(*_sizes(op), (0, 1))


def _divide(op: OpSpec) -> list[Signature]:
    return linear_each(*_sizes(op), (0,)) if _all_float(op) else []


def _extremum(kind: PartialKind) -> PartialsFn:
    def partials(op: OpSpec) -> list[Signature]:
        return joint(*_sizes(op), (0, 1), (kind,)) + monotone(*_sizes(op), {0: 1, 1: 1})

    return partials


def _logic(kind: PartialKind) -> PartialsFn:
    """Boolean and (min) / or (max); bitwise on integers has no partial facts."""

    def partials(op: OpSpec) -> list[Signature]:
        if not all(is_bool(e) for e in _elements(op)):
            return []
        return joint(*_sizes(op), (0, 1), (kind,)) + monotone(*_sizes(op), {0: 1, 1: 1})

    return partials


def _not(op: OpSpec) -> list[Signature]:
    return monotone(*_sizes(op), {0: -1})


def _negate(op: OpSpec) -> list[Signature]:
    sigs = [] if _any_bool(op) else linear(*_sizes(op), (0,))
    if _all_float(op):
        sigs += monotone(*_sizes(op), {0: -1})
    return sigs


def _increasing(floats_only: bool = True) -> PartialsFn:
    def partials(op: OpSpec) -> list[Signature]:
        if floats_only and not _all_float(op):
            return []
        return monotone(*_sizes(op), {0: 1})

    return partials


def _decreasing(op: OpSpec) -> list[Signature]:
    return monotone(*_sizes(op), {0: -1}) if _all_float(op) else []


def _clamp(op: OpSpec) -> list[Signature]:
    # clamp(lo, x, hi) = min(max(x, lo), hi): non-decreasing in all three;
    # max over (lo, x) with hi fixed, min over (x, hi) with lo fixed.
    n = _sizes(op)
    return (
        monotone(*n, {0: 1, 1: 1, 2: 1})
        + joint(*n, (0, 1), ("max",))
        + joint(*n, (1, 2), ("min",))
    )


def _select(op: OpSpec) -> list[Signature]:
    n = _sizes(op)
    sigs = [] if is_bool(op.results[0].element) else linear(*n, (1, 2))
    return sigs + joint(*n, (1, 2), ("max", "min")) + monotone(*n, {1: 1, 2: 1})


# Direction of the result in each operand for the ordering comparisons.
_COMPARE_MONOTONE = {
    "GT": {0: 1, 1: -1},
    "GE": {0: 1, 1: -1},
    "LT": {0: -1, 1: 1},
    "LE": {0: -1, 1: 1},
}


def _compare_partials(key: str, table: dict[str, str]) -> PartialsFn:
    def partials(op: OpSpec) -> list[Signature]:
        direction = table.get(str(op.attr(key, "")))
        return monotone(*_sizes(op), _COMPARE_MONOTONE.get(direction or "", {}))

    return partials


_FLOAT_WIDENINGS = frozenset(
    {("f16", "f32"), ("f16", "f64"), ("bf16", "f32"), ("bf16", "f64"), ("f32", "f64")}
)


def _int_bits(e: str) -> int:
    return int(e.lstrip("ui")) if e.lstrip("ui").isdigit() else 64


def convert_partials(op: OpSpec) -> list[Signature]:
    """``convert`` (and arith casts): see the module docstring."""
    src, dst = op.operands[0].element, op.results[0].element
    n = _sizes(op)
    if src == dst:
        return joint(*n, (0,), ("sum", "max", "min"))
    sigs: list[Signature] = []
    if (src, dst) in _FLOAT_WIDENINGS:
        sigs += linear(*n, (0,))
    increasing = (
        (is_float(dst) and not src.startswith("ui"))
        or is_bool(src)
        or (
            not is_float(src)
            and not is_float(dst)
            and not is_bool(dst)
            and _int_bits(dst) > _int_bits(src)
            and (src.startswith("ui") or not dst.startswith("ui"))
        )
    )
    if increasing:
        sigs += monotone(*n, {0: 1})
    return sigs


# --- numpy semantics -------------------------------------------------------


def _int_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Division truncating toward zero (StableHLO, arith.divsi)."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q).astype(a.dtype)


def divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.issubdtype(a.dtype, np.integer):
        return _int_divide(a, b)
    return np.divide(a, b)


def _logistic(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _round_afz(x: np.ndarray) -> np.ndarray:
    """Round half away from zero (math.round, stablehlo.round_nearest_afz)."""
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return 1 / np.sqrt(x)


def _vectorize(f: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    """A float function of the standard library, elementwise in float64."""
    v = np.vectorize(f, otypes=[np.float64])
    return lambda x: v(np.asarray(x, dtype=np.float64))


def _lgamma(x: float) -> float:
    """log|Gamma(x)|; +inf at the poles (0, -1, -2 ...), as XLA's lgamma."""
    try:
        return math.lgamma(x)
    except ValueError:
        return math.inf


_NORMAL = statistics.NormalDist()
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _erf_inv(x: float) -> float:
    """The inverse of erf: via the normal quantile, polished by Newton on math.erf.

    erf_inv(x) = Phi^-1((1 + x) / 2) / sqrt(2); near 0 the (1 + x) / 2 loses
    relative precision, which two Newton steps on ``math.erf`` restore.
    """
    if math.isnan(x) or abs(x) > 1:
        return math.nan
    if abs(x) == 1:
        return math.copysign(math.inf, x)
    if x == 0:
        return x
    y = _NORMAL.inv_cdf((1 + x) / 2) / math.sqrt(2)
    if abs(x) < 0.5:
        for _ in range(2):
            y -= (math.erf(y) - x) / (_TWO_OVER_SQRT_PI * math.exp(-y * y))
    return y


def _compare(direction: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ops = {
        "EQ": np.equal,
        "NE": np.not_equal,
        "GE": np.greater_equal,
        "GT": np.greater,
        "LE": np.less_equal,
        "LT": np.less,
    }
    return ops[direction](a, b)


def _clamp_fn(op: OpSpec, xs: list[np.ndarray]) -> np.ndarray:
    lo, x, hi = xs
    return np.minimum(np.maximum(x, lo), hi)


def _select_fn(op: OpSpec, xs: list[np.ndarray]) -> np.ndarray:
    pred, a, b = xs
    return np.where(pred, a, b)


def _convert_fn(op: OpSpec, xs: list[np.ndarray]) -> np.ndarray:
    dst = op.results[0].element
    x = xs[0]
    if is_bool(dst):
        return x != 0
    return x.astype(numpy_dtype(dst))


KINDS: dict[str, Elementwise] = {
    "add": Elementwise(_binary(np.add), _add_like({0: 1, 1: 1})),
    "subtract": Elementwise(_binary(np.subtract), _add_like({0: 1, 1: -1})),
    "multiply": Elementwise(_binary(np.multiply), _multiply),
    "divide": Elementwise(_binary(divide), _divide),
    "remainder": Elementwise(_binary(np.fmod), _no_partials),
    "maximum": Elementwise(_binary(np.maximum), _extremum("max")),
    "minimum": Elementwise(_binary(np.minimum), _extremum("min")),
    "maximum_num": Elementwise(_binary(np.fmax), _extremum("max")),
    "minimum_num": Elementwise(_binary(np.fmin), _extremum("min")),
    "power": Elementwise(_binary(np.power), _no_partials),
    "atan2": Elementwise(_binary(np.arctan2), _no_partials),
    "and": Elementwise(_binary(np.bitwise_and), _logic("min")),
    "or": Elementwise(_binary(np.bitwise_or), _logic("max")),
    "xor": Elementwise(_binary(np.bitwise_xor), _no_partials),
    "not": Elementwise(_unary(np.invert), _not),
    "negate": Elementwise(_unary(np.negative), _negate),
    "abs": Elementwise(_unary(np.abs), _no_partials),
    "sign": Elementwise(_unary(np.sign), _increasing(floats_only=False)),
    "floor": Elementwise(_unary(np.floor), _increasing()),
    "ceil": Elementwise(_unary(np.ceil), _increasing()),
    "round": Elementwise(_unary(_round_afz), _increasing()),
    "exponential": Elementwise(_unary(np.exp), _increasing()),
    "exponential_minus_one": Elementwise(_unary(np.expm1), _increasing()),
    "log": Elementwise(_unary(np.log), _no_partials),
    "log_plus_one": Elementwise(_unary(np.log1p), _no_partials),
    "tanh": Elementwise(_unary(np.tanh), _increasing()),
    "logistic": Elementwise(_unary(_logistic), _increasing()),
    "sqrt": Elementwise(_unary(np.sqrt), _no_partials),
    "rsqrt": Elementwise(_unary(_rsqrt), _no_partials),
    "cbrt": Elementwise(_unary(np.cbrt), _increasing()),
    "sine": Elementwise(_unary(np.sin), _no_partials),
    "cosine": Elementwise(_unary(np.cos), _no_partials),
    "square": Elementwise(_unary(np.square), _no_partials),
    "erf": Elementwise(_unary(_vectorize(math.erf)), _increasing()),
    "erfc": Elementwise(_unary(_vectorize(math.erfc)), _decreasing),
    "erf_inv": Elementwise(_unary(_vectorize(_erf_inv)), _no_partials),
    "sinh": Elementwise(_unary(np.sinh), _increasing()),
    "cosh": Elementwise(_unary(np.cosh), _no_partials),
    "asin": Elementwise(_unary(np.arcsin), _no_partials),
    "acos": Elementwise(_unary(np.arccos), _no_partials),
    "atan": Elementwise(_unary(np.arctan), _increasing()),
    "asinh": Elementwise(_unary(np.arcsinh), _increasing()),
    "acosh": Elementwise(_unary(np.arccosh), _no_partials),
    "atanh": Elementwise(_unary(np.arctanh), _no_partials),
    "lgamma": Elementwise(_unary(_vectorize(_lgamma)), _no_partials),
    "next_after": Elementwise(_binary(np.nextafter), _no_partials),
    "reciprocal": Elementwise(_unary(np.reciprocal), _no_partials),
    "is_finite": Elementwise(_unary(np.isfinite), _no_partials),
    "clamp": Elementwise(_clamp_fn, _clamp),
    "select": Elementwise(_select_fn, _select),
    "convert": Elementwise(_convert_fn, convert_partials),
    "copy": Elementwise(
        _unary(np.copy), lambda op: joint(*_sizes(op), (0,), ("sum", "max", "min"))
    ),
}


def compare_kind(key: str, table: dict[str, str]) -> Elementwise:
    """A comparison reading its direction from attribute ``key``.

    ``table`` maps the attribute's spellings onto ``EQ``/``NE``/``GE``/``GT``/
    ``LE``/``LT``; spellings it lacks (unsigned or unordered predicates) are
    evaluated by the caller's own function and get no partial facts.
    """

    def fn(op: OpSpec, xs: list[np.ndarray]) -> np.ndarray:
        return _compare(table[str(op.attr(key))], xs[0], xs[1])

    return Elementwise(fn, _compare_partials(key, table))


def elementwise_rule(kind: Elementwise) -> Callable[[OpSpec], list[Signature]]:
    """Rule of an elementwise op: a split per dimension plus its partial facts."""

    def rule(op: OpSpec) -> list[Signature]:
        factors = elementwise_factors(
            [t.rank for t in op.operands], [t.rank for t in op.results]
        )
        return factor_signatures(factors) + kind.partials(op)

    return rule


def register_elementwise(
    op_name: str, kind: Elementwise, kinds: OpKinds = OP_KINDS
) -> None:
    """Register rule and evaluator of an elementwise op (operands = inputs).

    ``kinds``: the registry, or a rule module's table of built-ins.
    """
    kinds.add_rule(op_name, elementwise_rule(kind))
    kinds.set(op_name, "evaluator", lambda op, xs: [kind.fn(op, xs)])
