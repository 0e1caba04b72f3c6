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

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, TensorType
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
from .constants import ConstantOp
from .elementwise import CompareOp
from .plain import _numpy_dtype, constant_array


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


# --------------------------------------------------------------------------
# A scalar interpreter for bodies
# --------------------------------------------------------------------------


class BodyError(Exception):
    """A body uses an op the interpreter does not know."""


def _compare(op: CompareOp, a: Any, b: Any) -> np.bool_:
    kind = op.compare_type
    if kind == "TOTALORDER" and isinstance(a, np.floating):
        bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
        ia, ib = (int(np.asarray(v).view(bits)) for v in (a, b))
        top = (1 << (8 * a.dtype.itemsize - 1)) - 1
        a, b = (i ^ top if i < 0 else i for i in (ia, ib))
    fns: dict[str, Callable[[Any, Any], Any]] = {
        "EQ": lambda x, y: x == y,
        "NE": lambda x, y: x != y,
        "LT": lambda x, y: x < y,
        "LE": lambda x, y: x <= y,
        "GT": lambda x, y: x > y,
        "GE": lambda x, y: x >= y,
    }
    return np.bool_(fns[op.comparison_direction](a, b))


def _scalar_op(op: Operation, args: list[Any]) -> list[Any]:
    name = op.name.removeprefix("stablehlo.")
    if isinstance(op, ConstantOp):
        return [constant_array(op.value)[()]]
    if isinstance(op, CompareOp):
        return [_compare(op, *args)]
    with np.errstate(all="ignore"):
        match name:
            case "select":
                return [args[1] if args[0] else args[2]]
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
                return [np.asarray(args[0]).astype(_numpy_dtype(element))[()]]
    raise BodyError(f"cannot interpret '{op.name}' in a body")


def evaluate_body(block: Block, args: Sequence[Any]) -> list[Any]:
    """The values ``block`` returns for scalar ``args`` (numpy scalars)."""
    env: dict[SSAValue, Any] = dict(zip(block.args, args, strict=True))
    for op in block.ops:
        values = [env[v] for v in op.operands]
        if op.name.split(".")[-1] == "return":
            return values
        if op.regions:
            raise BodyError(f"cannot interpret '{op.name}' in a body")
        for r, v in zip(op.results, _scalar_op(op, values), strict=True):
            env[r] = v
    raise BodyError("a body without a return")


def samples(element: Any) -> list[Any]:
    """Representative scalars of an element type, for probing bodies."""
    dtype = np.dtype(_numpy_dtype(element))
    if dtype == np.bool_:
        return [np.bool_(False), np.bool_(True)]
    if dtype.kind in "f" or dtype.name == "bfloat16":
        values = [-np.inf, -2.5, -0.0, 0.0, 1.0, 2.5, np.inf, np.nan]
    elif dtype.kind == "u":
        values = [0, 1, 7]
    else:
        values = [-3, 0, 1, 7]
    return [dtype.type(v) for v in values]


_LIMIT = 4096


def _cases(
    pools: Sequence[Sequence[Any]], rng: np.random.Generator
) -> list[tuple[Any, ...]]:
    """Every combination of the pools, or ``_LIMIT`` random ones if too many."""
    total = int(np.prod([len(p) for p in pools], dtype=np.float64))
    if total <= _LIMIT:
        return list(itertools.product(*pools))
    return [tuple(p[rng.integers(len(p))] for p in pools) for _ in range(_LIMIT)]


def _body_block(region: Region) -> Block | None:
    return region.blocks.first


def sort_num_keys(op: SortOp) -> int | None:
    """k when the comparator is ascending lexicographic order (JAX's total
    order on floats) over the first k operands; None otherwise."""
    block = _body_block(op.comparator)
    if block is None:
        return None
    types = [element_type(x) for x in op.inputs]
    rng = np.random.default_rng(0)
    for k in range(1, len(types) + 1):
        pools = []
        for t in types:
            s = samples(t)
            pools += [s, s]
        ok = True
        try:
            for case in _cases(pools, rng):
                xs, ys = case[0 : 2 * k : 2], case[1 : 2 * k : 2]
                want = bool(
                    sort_less([np.asarray(x) for x in xs], [np.asarray(y) for y in ys])
                )
                got = evaluate_body(block, case)
                if len(got) != 1 or bool(got[0]) != want:
                    ok = False
                    break
        except BodyError:
            return None
        if ok:
            return k
    return None


def arg_reduction_kind(inputs: Sequence[SSAValue], body: Region) -> str | None:
    """``argmax``/``argmin`` when a two-input reduce body is JAX's (values,
    indices) combine (``sbpc.ops.sorting.arg_combine``); None otherwise."""
    block = _body_block(body)
    if block is None or len(inputs) != 2 or len(block.args) != 4:
        return None
    value_t, index_t = element_type(inputs[0]), element_type(inputs[1])
    if np.dtype(_numpy_dtype(index_t)).kind not in "iu":
        return None
    pools = [samples(value_t), samples(index_t), samples(value_t), samples(index_t)]
    rng = np.random.default_rng(0)
    for kind in ("argmax", "argmin"):
        try:
            ok = all(
                _same(evaluate_body(block, case), arg_combine(kind, *case))
                for case in _cases(pools, rng)
            )
        except BodyError:
            return None
        if ok:
            return kind
    return None


def _same(got: Sequence[Any], want: Sequence[Any]) -> bool:
    if len(got) != len(want):
        return False
    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        if not (g == w or (g != g and w != w)):
            return False
    return True
