"""A tensor op as the SBP rules see it: name, logical types and plain attributes.

Rules, local semantics and the reference evaluator all work on ``OpSpec``
rather than on IR operations, so any compiler (an xDSL pass, a JAX front
door, a test) can use them by building one.  Attribute values are plain
Python (ints, tuples of ints, strings, numpy arrays); which keys each op
expects is documented next to its rule (``sbpc.ops.stablehlo``,
``sbpc.ops.linalg``, ``sbpc.ops.arith``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sbpc.algebra.tensor_type import FP8_ELEMENTS, NUMPY_DTYPE, TensorType

FLOAT_ELEMENTS = frozenset({"f16", "bf16", "f32", "f64", *FP8_ELEMENTS})
UNSIGNED_ELEMENTS = frozenset({"ui8", "ui16", "ui32", "ui64"})


@dataclass(frozen=True, eq=True)
class OpSpec:
    """One op: ``name`` (``dialect.op``), operand and result types, attributes.

    Operands are listed in IR order, scalars included as rank-0 types (a
    ``stablehlo.dynamic_slice``'s start indices, a ``stablehlo.pad``'s padding
    value, a ``linalg`` op's ``outs`` after its ``ins``).
    """

    name: str
    operands: tuple[TensorType, ...] = ()
    results: tuple[TensorType, ...] = ()
    attrs: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "operands", tuple(self.operands))
        object.__setattr__(self, "results", tuple(self.results))
        object.__setattr__(self, "attrs", dict(self.attrs))

    __hash__ = None  # type: ignore[assignment]  # attrs may hold numpy arrays

    def attr(self, key: str, default: Any = None) -> Any:
        return self.attrs.get(key, default)

    def check_operand_count(
        self, given: int, error: type[Exception] = ValueError
    ) -> None:
        """Raise ``error`` unless ``given`` values were handed for the operands."""
        if given != len(self.operands):
            raise error(
                f"'{self.name}' takes {len(self.operands)} operands, got {given}"
            )

    def replace(
        self,
        operands: Sequence[TensorType] | None = None,
        results: Sequence[TensorType] | None = None,
        **attrs: Any,
    ) -> OpSpec:
        """A copy with new types and some attributes changed (others kept)."""
        return dataclasses.replace(
            self,
            operands=tuple(self.operands if operands is None else operands),
            results=tuple(self.results if results is None else results),
            attrs={**self.attrs, **attrs},
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OpSpec):
            return NotImplemented
        if (self.name, self.operands, self.results) != (
            other.name,
            other.operands,
            other.results,
        ) or self.attrs.keys() != other.attrs.keys():
            return False
        return all(_attr_equal(self.attrs[k], other.attrs[k]) for k in self.attrs)

    def __str__(self) -> str:
        ins = ", ".join(str(t) for t in self.operands)
        outs = ", ".join(str(t) for t in self.results)
        attrs = ", ".join(f"{k} = {_short(v)}" for k, v in sorted(self.attrs.items()))
        return f"{self.name}({ins}) {{{attrs}}} -> ({outs})"


def _attr_equal(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    return bool(a == b)


def _short(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array<{value.shape}, {value.dtype}>"
    return repr(value)


def is_float(element: str) -> bool:
    return element in FLOAT_ELEMENTS


def is_bool(element: str) -> bool:
    return element == "i1"


def is_integer(element: str) -> bool:
    """Integer (not boolean) element types; ``iN`` are read as signed."""
    return not is_float(element) and not is_bool(element)


def numpy_dtype(element: str) -> np.dtype:
    """The numpy dtype of an MLIR element type (``bf16`` and the fp8 types
    through ml_dtypes)."""
    if element == "bf16" or element in FP8_ELEMENTS:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, NUMPY_DTYPE[element]))
    if element == "index":
        return np.dtype("int64")
    return np.dtype(NUMPY_DTYPE[element])


def scatter_kinds(element: str) -> tuple[str, ...]:
    """The ``stablehlo.scatter`` bodies (``kind``) sbpc handles on ``element``.

    ``and``/``or`` only on booleans (bitwise on integers has no JAX scatter),
    ``add``/``mul`` only on numbers (JAX has no boolean scatter_add).  Here,
    not next to the rule, so that reading IR does not load the built-in rules
    before another compiler registers its own.
    """
    if is_bool(element):
        return ("max", "min", "or", "and", "replace")
    return ("add", "mul", "max", "min", "replace")
