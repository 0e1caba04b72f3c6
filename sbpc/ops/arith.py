"""SBP rules and reference evaluation of arith ops on tensors.

arith integers are signless; sbpc reads ``iN`` tensors as signed (numpy
``intN``), so ``P(max)``/``P(min)`` on them are signed max/min and the
unsigned ops (``divui``, ``maxui``, ``cmpi ugt``, ``extui``, ``uitofp`` ...)
get split rules only, never a partial one.

Attributes: ``arith.cmpf`` / ``arith.cmpi``: ``predicate``, the MLIR
spelling (``ogt``, ``slt`` ...) or its enum number; ``arith.constant``:
``value`` (numpy array, as ``stablehlo.constant``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sbpc.ops.elementwise import (
    KINDS,
    Elementwise,
    compare_kind,
    register_elementwise,
)
from sbpc.ops.kind import OpKinds
from sbpc.ops.spec import OpSpec, numpy_dtype
from sbpc.ops.stablehlo import constant_local, constant_rule

# This module's op kinds, merged into the registry on first use
# (``sbpc.ops.builtins``).
BUILTINS = OpKinds()

# arith op name -> elementwise kind (``sbpc.ops.elementwise.KINDS``); the JAX emitter reads it too.
ARITH_ELEMENTWISE: dict[str, str] = {
    "addf": "add",
    "addi": "add",
    "subf": "subtract",
    "subi": "subtract",
    "mulf": "multiply",
    "muli": "multiply",
    "divf": "divide",
    "divsi": "divide",
    "remf": "remainder",
    "remsi": "remainder",
    "maximumf": "maximum",
    "maxsi": "maximum",
    "minimumf": "minimum",
    "minsi": "minimum",
    "maxnumf": "maximum_num",
    "minnumf": "minimum_num",
    "negf": "negate",
    "andi": "and",
    "ori": "or",
    "xori": "xor",
    "select": "select",
    "extf": "convert",
    "truncf": "convert",
    "sitofp": "convert",
    "fptosi": "convert",
    "extsi": "convert",
    "trunci": "convert",
}

for _name, _kind in ARITH_ELEMENTWISE.items():
    register_elementwise(f"arith.{_name}", KINDS[_kind], BUILTINS)


def _unsigned(x: np.ndarray) -> np.ndarray:
    return x.view(np.dtype(f"uint{x.dtype.itemsize * 8}"))


def _as_unsigned(
    f: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> Callable[[OpSpec, list[np.ndarray]], np.ndarray]:
    """An unsigned binary op on signless integers, result reinterpreted back."""

    def fn(op: OpSpec, xs: list[np.ndarray]) -> np.ndarray:
        a, b = xs
        return f(_unsigned(a), _unsigned(b)).view(a.dtype)

    return fn


def _no_partials(op: OpSpec) -> list:
    return []


def _extui(op: OpSpec, xs: list[np.ndarray]) -> np.ndarray:
    return _unsigned(xs[0]).astype(numpy_dtype(op.results[0].element))


def _uitofp(op: OpSpec, xs: list[np.ndarray]) -> np.ndarray:
    return _unsigned(xs[0]).astype(numpy_dtype(op.results[0].element))


def _fptoui(op: OpSpec, xs: list[np.ndarray]) -> np.ndarray:
    dst = numpy_dtype(op.results[0].element)
    return xs[0].astype(np.dtype(f"uint{dst.itemsize * 8}")).view(dst)


for _name, _fn in {
    "divui": _as_unsigned(np.floor_divide),
    "remui": _as_unsigned(np.remainder),
    "maxui": _as_unsigned(np.maximum),
    "minui": _as_unsigned(np.minimum),
    "extui": _extui,
    "uitofp": _uitofp,
    "fptoui": _fptoui,
}.items():
    register_elementwise(f"arith.{_name}", Elementwise(_fn, _no_partials), BUILTINS)

_CMPF = [
    *("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord"),
    *("ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"),
]
_CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
# Predicates whose partial facts are those of a plain comparison.
_CMPF_ORDERED = {"ogt": "GT", "oge": "GE", "olt": "LT", "ole": "LE"}
_CMPI_SIGNED = {"sgt": "GT", "sge": "GE", "slt": "LT", "sle": "LE"}


def predicate(op: OpSpec, names: list[str]) -> str:
    p = op.attr("predicate")
    return names[p] if isinstance(p, int) else str(p)


def _cmpf(op: OpSpec, xs: list[np.ndarray]) -> np.ndarray:
    a, b = xs
    p = predicate(op, _CMPF)
    unordered = np.isnan(a) | np.isnan(b)
    if p in ("false", "true"):
        return np.full(np.broadcast_shapes(a.shape, b.shape), p == "true")
    if p in ("ord", "uno"):
        return unordered if p == "uno" else ~unordered
    base = {"eq": np.equal, "gt": np.greater, "ge": np.greater_equal}
    base |= {"lt": np.less, "le": np.less_equal, "ne": np.not_equal}
    value = base[p[1:]](a, b)
    return (value | unordered) if p[0] == "u" else (value & ~unordered)


def _cmpi(op: OpSpec, xs: list[np.ndarray]) -> np.ndarray:
    a, b = xs
    p = predicate(op, _CMPI)
    if p[0] == "u":
        a, b = _unsigned(a), _unsigned(b)
    base = {"eq": np.equal, "ne": np.not_equal, "gt": np.greater}
    base |= {"ge": np.greater_equal, "lt": np.less, "le": np.less_equal}
    return base[p if p in ("eq", "ne") else p[1:]](a, b)


def _compare_with(
    fn: Callable[[OpSpec, list[np.ndarray]], np.ndarray],
    names: list[str],
    monotone: dict[str, str],
) -> Elementwise:
    facts = compare_kind("direction", {k: v for k, v in monotone.items()}).partials

    def partials(op: OpSpec) -> list:
        return facts(op.replace(direction=predicate(op, names)))

    return Elementwise(fn, partials)


register_elementwise("arith.cmpf", _compare_with(_cmpf, _CMPF, _CMPF_ORDERED), BUILTINS)
register_elementwise("arith.cmpi", _compare_with(_cmpi, _CMPI, _CMPI_SIGNED), BUILTINS)

BUILTINS.add_rule("arith.constant", constant_rule)
BUILTINS.set("arith.constant", "local", constant_local)


@BUILTINS.evaluator("arith.constant")
def _constant(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.broadcast_to(np.asarray(op.attr("value")), op.results[0].shape)]
