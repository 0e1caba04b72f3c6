"""``stablehlo.sort`` and what sbpc reads off comparator and reducer bodies.

``sort`` has only the generic syntax in JAX's output::

    %1:2 = "stablehlo.sort"(%x, %iota) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
      ... canonicalise -0.0 and NaN, compare LT, TOTALORDER ...
      stablehlo.return %10 : tensor<i1>
    }) : (tensor<4x8xf32>, tensor<4x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>)

Bodies are arbitrary StableHLO; sbpc runs (and emits) only the ones it can
name.  Rather than matching the exact op sequence a JAX version emits, a body
is *evaluated* (``evaluate_body``, a small scalar interpreter over the ops
such bodies use) on every combination of representative values (signed
zeros, infinities, NaN, negative and positive numbers; both booleans) and
compared with a reference:

- ``sort_num_keys``: the comparator is ``lax.sort``'s ascending
  lexicographic order over the first k operands (``sbpc.ops.sorting.sort_less``);
- ``arg_reduction_kind``: a two-input reduce body is JAX's argmax/argmin
  (``sbpc.ops.sorting.arg_combine``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, TensorType, i1
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from sbpc.ops.sorting import arg_combine, sort_less

from .base import element_type, shape_of
from .constants import ConstantOp, constant_array, numpy_dtype
from .elementwise import CompareOp


@irdl_op_definition
class SortOp(IRDLOperation):
    """``stablehlo.sort``: sorts N same-shape operands along ``dimension`` by
    the comparator ``(a0, b0, a1, b1, ...) -> i1`` (is a before b)."""

    name = "stablehlo.sort"

    inputs = var_operand_def(TensorType)
    results_ = var_result_def(TensorType)
    dimension_attr = opt_prop_def(IntegerAttr, prop_name="dimension")
    is_stable_attr = opt_prop_def(IntegerAttr, prop_name="is_stable")
    comparator = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    @property
    def dimension(self) -> int:
        attr = self.dimension_attr
        return -1 if attr is None else attr.value.data

    @property
    def is_stable(self) -> bool:
        attr = self.is_stable_attr
        return attr is not None and bool(attr.value.data)

    def plain_attrs(self) -> dict[str, object]:
        dim = self.dimension
        rank = len(shape_of(self.inputs[0])) if self.inputs else 0
        return {
            "dimension": dim + rank if dim < 0 else dim,
            "is_stable": self.is_stable,
            "num_keys": sort_num_keys(self),
        }

    def verify_(self) -> None:
        name = self.name
        if not self.inputs or len(self.results_) != len(self.inputs):
            raise VerifyException(f"{name}: expects N >= 1 inputs and N results")
        shape = shape_of(self.inputs[0])
        for i, (x, r) in enumerate(zip(self.inputs, self.results_, strict=True)):
            if shape_of(x) != shape:
                raise VerifyException(
                    f"{name}: input {i} differs in shape from input 0"
                )
            if x.type != r.type:
                raise VerifyException(f"{name}: result {i} type differs from input {i}")
        dim = self.dimension
        if not -len(shape) <= dim < len(shape):
            raise VerifyException(
                f"{name}: dimension {dim} is out of range for rank {len(shape)}"
            )
        block = self.comparator.blocks.first
        if block is None or len(block.args) != 2 * len(self.inputs):
            raise VerifyException(
                f"{name}: comparator must take {2 * len(self.inputs)} arguments"
            )
        for arg, x in zip(block.args[::2], self.inputs, strict=True):
            if arg.type != TensorType(element_type(x), []):
                raise VerifyException(
                    f"{name}: comparator arguments must be rank-0 tensors of the "
                    "operands' element types"
                )
        last = block.last_op
        returned = [] if last is None else [r.type for r in last.operands]
        if returned != [TensorType(i1, [])]:
            got = ", ".join(str(t) for t in returned) or "nothing"
            raise VerifyException(
                f"{name}: comparator must return one tensor<i1>, returns {got}"
            )


# --------------------------------------------------------------------------
# A scalar interpreter for bodies
# --------------------------------------------------------------------------


class BodyError(Exception):
    """A body uses an op the interpreter does not know."""


def _total_order(x: np.ndarray) -> np.ndarray:
    """Signed integers ordered as the floats ``x`` in IEEE total order."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[x.dtype.itemsize]
    i = x.view(bits).astype(np.int64)
    top = (1 << (8 * x.dtype.itemsize - 1)) - 1
    return np.where(i < 0, i ^ top, i)


_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "EQ": np.equal,
    "NE": np.not_equal,
    "LT": np.less,
    "LE": np.less_equal,
    "GT": np.greater,
    "GE": np.greater_equal,
}


def _compare(op: CompareOp, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if op.compare_type == "TOTALORDER" and a.dtype.kind == "f":
        a, b = _total_order(a), _total_order(b)
    return _COMPARE[op.comparison_direction](a, b)


def _vector_op(op: Operation, args: list[np.ndarray], n: int) -> list[np.ndarray]:
    """``op`` on vectors of ``n`` cases at once (each operand one scalar per case)."""
    name = op.name.removeprefix("stablehlo.")
    if isinstance(op, ConstantOp):
        value = constant_array(op.value)
        return [np.full(n, value[()], dtype=value.dtype)]
    if isinstance(op, CompareOp):
        return [_compare(op, *args)]
    with np.errstate(all="ignore"):
        match name:
            case "select":
                return [np.where(args[0], args[1], args[2])]
            case "and":
                return [args[0] & args[1]]
            case "or":
                return [args[0] | args[1]]
            case "xor":
                return [args[0] ^ args[1]]
            case "not":
                return [~args[0]]
            case "maximum":
                return [np.maximum(*args)]
            case "minimum":
                return [np.minimum(*args)]
            case "add":
                return [args[0] + args[1]]
            case "subtract":
                return [args[0] - args[1]]
            case "multiply":
                return [args[0] * args[1]]
            case "negate":
                return [-args[0]]
            case "convert":
                element = element_type(op.results[0])
                return [args[0].astype(numpy_dtype(element))]
    raise BodyError(f"cannot interpret '{op.name}' in a body")


def evaluate_body(block: Block, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The values ``block`` returns for ``args``: equal-length vectors, one
    element per case (every op of a body is elementwise on scalars)."""
    n = len(args[0]) if args else 1
    env: dict[SSAValue, np.ndarray] = dict(zip(block.args, args, strict=True))
    for op in block.ops:
        values = [env[v] for v in op.operands]
        if op.name.split(".")[-1] == "return":
            return values
        if op.regions:
            raise BodyError(f"cannot interpret '{op.name}' in a body")
        for r, v in zip(op.results, _vector_op(op, values, n), strict=True):
            env[r] = np.broadcast_to(v, (n,))
    raise BodyError("a body without a return")


def samples(element: Any) -> np.ndarray:
    """Representative scalars of an element type, for probing bodies."""
    dtype = np.dtype(numpy_dtype(element))
    if dtype == np.bool_:
        return np.array([False, True])
    if dtype.kind in "f" or dtype.name == "bfloat16":
        values: list[float] = [-np.inf, -2.5, -0.0, 0.0, 1.0, 2.5, np.inf, np.nan]
    elif dtype.kind == "u":
        values = [0, 1, 7]
    else:
        values = [-3, 0, 1, 7]
    return np.array(values, dtype=dtype)


_LIMIT = 4096


def _cases(pools: Sequence[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """One vector per pool: every combination of the pools' values, or
    ``_LIMIT`` random combinations if there are more."""
    sizes = [len(p) for p in pools]
    if float(np.prod(sizes, dtype=np.float64)) <= _LIMIT:
        grid = np.indices(sizes).reshape(len(pools), -1)
    else:
        grid = np.stack([rng.integers(0, k, _LIMIT) for k in sizes])
    return [p[g] for p, g in zip(pools, grid, strict=True)]


def _body_block(region: Region) -> Block | None:
    return region.blocks.first


def sort_num_keys(op: SortOp) -> int | None:
    """k when the comparator is ascending lexicographic order (JAX's total
    order on floats) over the first k operands; None otherwise."""
    block = _body_block(op.comparator)
    if block is None:
        return None
    pools = []
    for x in op.inputs:
        s = samples(element_type(x))
        pools += [s, s]
    cases = _cases(pools, np.random.default_rng(0))
    try:
        (got,) = evaluate_body(block, cases)
    except (BodyError, ValueError):
        return None
    for k in range(1, len(op.inputs) + 1):
        if np.array_equal(got, sort_less(cases[0 : 2 * k : 2], cases[1 : 2 * k : 2])):
            return k
    return None


def arg_reduction_kind(inputs: Sequence[SSAValue], body: Region) -> str | None:
    """``argmax``/``argmin`` when a two-input reduce body is JAX's (values,
    indices) combine (``sbpc.ops.sorting.arg_combine``); None otherwise."""
    block = _body_block(body)
    if block is None or len(inputs) != 2 or len(block.args) != 4:
        return None
    value_t, index_t = element_type(inputs[0]), element_type(inputs[1])
    if np.dtype(numpy_dtype(index_t)).kind not in "iu":
        return None
    pools = [samples(value_t), samples(index_t), samples(value_t), samples(index_t)]
    cases = _cases(pools, np.random.default_rng(0))
    try:
        got = evaluate_body(block, cases)
    except (BodyError, ValueError):
        return None
    for kind in ("argmax", "argmin"):
        if _same(got, arg_combine(kind, *cases)):
            return kind
    return None


def _same(got: Sequence[np.ndarray], want: Sequence[np.ndarray]) -> bool:
    return len(got) == len(want) and all(
        np.array_equal(g, w, equal_nan=g.dtype.kind == "f")
        for g, w in zip(got, want, strict=True)
    )
