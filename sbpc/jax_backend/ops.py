"""Tensor ops as JAX source text: the emitter's interface, one registry for all.

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

The emitters themselves live in one module per op family (``elementwise``,
``layout``, ``contraction``, ``bits``, ``window_ops``, ``manual``), each
importing only this module; the package's ``__init__`` imports them all, so
every emitter is registered once anything of ``sbpc.jax_backend`` is.

An op without an emitter, or with attributes the emitter cannot express,
raises ``UnsupportedOpError``; the caller turns it into a located error.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import numpy as np

from sbpc.algebra.tensor_type import FP8_ELEMENTS, NUMPY_DTYPE
from sbpc.ops.kind import OP_KINDS
from sbpc.ops.spec import OpSpec


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
# Most emitters need only the op and its operands' names: one expression (a
# single result), or every result's.
PlainEmitter = Callable[[OpSpec, list[str]], str | Emitted]

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
    **{e: "jnp." + NUMPY_DTYPE[e] for e in FP8_ELEMENTS},
}


def jnp_dtype(element: str) -> str:
    """``jnp.float32`` for ``f32`` and so on."""
    if element not in JNP_DTYPE:
        raise UnsupportedOpError(f"element type '{element}' has no JAX dtype")
    return JNP_DTYPE[element]


# --- the registry --------------------------------------------------------------------


def register_emitter(
    op_name: str, fn: Emitter | None = None
) -> Emitter | Callable[[Emitter], Emitter]:
    """Set how ``op_name`` is written in JAX; usable as a decorator.

    The emitter is the ``jax_emitter`` facet of the op kind's record
    (``sbpc.ops.kind``); a later registration replaces an earlier one.
    """
    return OP_KINDS.registrar(op_name, "jax_emitter", fn)


def emits(*op_names: str) -> Callable[[PlainEmitter], PlainEmitter]:
    """Register ``fn(op, args)`` as the emitter of ``op_names``.

    For the emitters that need neither module constants nor device-dependent
    attributes; a plain string is the one result's expression.
    """

    def register(fn: PlainEmitter) -> PlainEmitter:
        @functools.wraps(fn)
        def emit(
            op: OpSpec, args: list[str], ctx: Context, dyn: Mapping[str, str]
        ) -> Emitted:
            out = fn(op, args)
            return [out] if isinstance(out, str) else out

        for name in op_names:
            register_emitter(name, emit)
        return fn

    return register


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
    op.check_operand_count(len(args), UnsupportedOpError)
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


# --- what emitters share -------------------------------------------------------------


def ints(op: OpSpec, key: str, default: tuple[int, ...] = ()) -> tuple[int, ...]:
    """An integer-list attribute (``default`` when absent)."""
    value = op.attr(key)
    return default if value is None else tuple(int(v) for v in value)


def py_tuple(values: Sequence[int]) -> str:
    """A Python tuple literal (``(3,)`` for one element)."""
    values = [int(v) for v in values]
    return "(" + ", ".join(map(str, values)) + ("," if len(values) == 1 else "") + ")"


def result(op: OpSpec, k: int = 0) -> tuple[tuple[int, ...], str]:
    """Result ``k``'s shape and JAX dtype."""
    t = op.results[k]
    return t.shape, jnp_dtype(t.element)


def precision(op: OpSpec) -> str:
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


def unbroadcast_call(fn: str, op: OpSpec, a: str, b: str) -> str:
    """``fn(a, b)`` for a ``lax`` function that does not broadcast its operands."""
    if op.operands[0].shape != op.operands[1].shape:
        return f"{fn}(*jnp.broadcast_arrays({a}, {b}))"
    return f"{fn}({a}, {b})"


def body_kind(op: OpSpec, table: Mapping[str, object]) -> str:
    """The op's reduction body ``kind``, refused unless ``table`` has a form."""
    kind = op.attr("kind")
    if kind not in table:
        raise UnsupportedOpError(
            f"'{op.name}' with body kind {kind!r}: only "
            + ", ".join(sorted(table))
            + " have a JAX form"
        )
    return str(kind)
