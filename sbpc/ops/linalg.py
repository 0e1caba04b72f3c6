"""SBP rules and reference evaluation of linalg named ops on tensors.

linalg ops are destination-passing: ``OpSpec.operands`` are the ``ins``
followed by the ``outs`` (init tensors), one result per ``out``.  Every
rule is derived on the ``ins`` alone and each init then takes its result's
layout.  That is sound for all ops here: an elementwise op ignores its init;
``matmul``/``batch_matmul`` compute ``init + a @ b`` and ``reduce`` combines
its init once, so an init in ``P(sum)`` (or ``P(max)`` under a max) is added
once over the devices, exactly like the result.

Attributes: ``linalg.transpose``: ``permutation``; ``linalg.broadcast``:
``dimensions`` (the result dims it adds); ``linalg.reduce``: ``dimensions``
and ``kind`` (``add`` ``max`` ``min`` ``mul`` ``and`` ``or``, as for
``stablehlo.reduce``).  Others: none.  ``linalg.generic`` has no rule yet.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sbpc.algebra.signature import Signature
from sbpc.ops.derive import (
    Factor,
    data_movement,
    factor_signatures,
    linear_each,
)
from sbpc.ops.elementwise import KINDS, Elementwise, elementwise_rule
from sbpc.ops.kind import OpKinds
from sbpc.ops.spec import OpSpec, is_bool, numpy_dtype
from sbpc.ops.stablehlo import (
    broadcast_in_dim_rule,
    reduce_arrays,
    reduce_signatures,
    transpose_rule,
)

Rule = Callable[[OpSpec], list[Signature]]


def ins_view(op: OpSpec) -> OpSpec:
    """The op without its ``outs``: what the rule of the computation sees."""
    return op.replace(operands=op.operands[: len(op.operands) - len(op.results)])


def destination_passing(rule: Rule) -> Rule:
    """Lift a rule over ``ins`` to the full op: each init mirrors its result."""

    def lifted(op: OpSpec) -> list[Signature]:
        return [
            Signature((*s.inputs, *s.outputs), s.outputs) for s in rule(ins_view(op))
        ]

    return lifted


# This module's op kinds, merged into the registry on first use
# (``sbpc.ops.builtins``).
BUILTINS = OpKinds()


def _register(
    name: str, rule: Rule, fn: Callable[[OpSpec, list[np.ndarray]], list]
) -> None:
    BUILTINS.add_rule(name, destination_passing(rule))
    BUILTINS.set(name, "evaluator", fn)


def _elementwise(name: str, kind: Elementwise) -> None:
    def fn(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
        ins = ins_view(op)
        return [kind.fn(ins, xs[: len(ins.operands)])]

    _register(name, elementwise_rule(kind), fn)


# linalg named op -> elementwise kind (``sbpc.ops.elementwise.KINDS``); the JAX emitter reads it too.
LINALG_ELEMENTWISE: dict[str, str] = {
    "add": "add",
    "sub": "subtract",
    "mul": "multiply",
    "div": "divide",
    "max": "maximum",
    "min": "minimum",
    "exp": "exponential",
    "log": "log",
    "sqrt": "sqrt",
    "rsqrt": "rsqrt",
    "abs": "abs",
    "ceil": "ceil",
    "floor": "floor",
    "round": "round",
    "negf": "negate",
    "tanh": "tanh",
    "powf": "power",
    "square": "square",
    "reciprocal": "reciprocal",
    "select": "select",
    "copy": "copy",
}

for _name, _kind in LINALG_ELEMENTWISE.items():
    _elementwise(f"linalg.{_name}", KINDS[_kind])


def matmul_factors(batch: bool) -> list[Factor]:
    """(b,) m, n parallel and k summed, over ``ins`` ``(a, b)``."""
    o = 1 if batch else 0
    factors = [Factor((0, 0), (0,))] if batch else []
    return [
        *factors,
        Factor((o, None), (o,)),
        Factor((None, o + 1), (o + 1,)),
        Factor((o + 1, o), (None,), "sum"),
    ]


def _matmul_rule(batch: bool) -> Rule:
    def rule(op: OpSpec) -> list[Signature]:
        sigs = factor_signatures(matmul_factors(batch))
        if not is_bool(op.results[0].element):
            sigs += linear_each(2, 1, (0, 1))
        return sigs

    return rule


def _matmul(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    dtype = numpy_dtype(op.results[0].element)
    a, b, c = (x.astype(dtype, copy=False) for x in xs)
    return [c + np.matmul(a, b)]


_register("linalg.matmul", _matmul_rule(False), _matmul)
_register("linalg.batch_matmul", _matmul_rule(True), _matmul)


def _transpose(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    return [xs[0].transpose(tuple(int(p) for p in op.attr("permutation")))]


_register("linalg.transpose", transpose_rule, _transpose)


def _kept_dims(op: OpSpec) -> tuple[int, ...]:
    added = {int(d) for d in op.attr("dimensions", ())}
    return tuple(d for d in range(op.results[0].rank) if d not in added)


def _broadcast_rule(op: OpSpec) -> list[Signature]:
    return broadcast_in_dim_rule(op.replace(broadcast_dimensions=_kept_dims(op)))


def _broadcast(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    view = [1] * op.results[0].rank
    for k, d in enumerate(_kept_dims(op)):
        view[d] = xs[0].shape[k]
    return [np.broadcast_to(xs[0].reshape(view), op.results[0].shape)]


_register("linalg.broadcast", _broadcast_rule, _broadcast)


def _fill_rule(op: OpSpec) -> list[Signature]:
    factors = [Factor((None,), (k,)) for k in range(op.results[0].rank)]
    return factor_signatures(factors) + data_movement(1, 1, (0,))


def _fill(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.broadcast_to(xs[0], op.results[0].shape)]


_register("linalg.fill", _fill_rule, _fill)


def _reduce_rule(op: OpSpec) -> list[Signature]:
    dims = tuple(int(d) for d in op.attr("dimensions", ()))
    return reduce_signatures(op, len(op.operands), dims, op.attr("kind"))


def _reduce(op: OpSpec, xs: list[np.ndarray]) -> list[np.ndarray]:
    n = len(op.operands) - len(op.results)
    dims = tuple(int(d) for d in op.attr("dimensions", ()))
    return reduce_arrays(str(op.attr("kind")), dims, xs[:n], xs[n:])


_register("linalg.reduce", _reduce_rule, _reduce)
