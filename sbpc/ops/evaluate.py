"""Reference evaluation of an ``OpSpec`` on numpy arrays: the simulator's oracle.

Each op kind registers an evaluator ``(op, inputs) -> outputs``; ``evaluate``
dispatches on the op name and casts results to the result types, so a local
op (``sbpc.ops.registry.local_op``) evaluates on a device's pieces exactly like
the global op on whole tensors.  Plain numpy on the CPU, nothing global set.
The evaluator is one facet of the op kind's record (``sbpc.ops.kind``);
built-in ones for ``stablehlo``, ``chlo``, ``linalg`` and ``arith`` are
merged in on first use, with the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from sbpc.ops.builtins import op_kinds
from sbpc.ops.kind import OP_KINDS, EvalFn
from sbpc.ops.spec import OpSpec, numpy_dtype

__all__ = [
    "EvalFn",
    "NoEvaluatorError",
    "evaluate",
    "has_evaluator",
    "register_evaluator",
]


class NoEvaluatorError(KeyError):
    """``evaluate`` was asked for an op kind nobody registered."""


def register_evaluator(
    op_name: str, fn: EvalFn | None = None
) -> EvalFn | Callable[[EvalFn], EvalFn]:
    """Set the reference semantics of ``op_name``; usable as a decorator.

    Replaces an earlier registration; the built-ins, merged in on first use,
    never replace one made before them.
    """
    return OP_KINDS.registrar(op_name, "evaluator", fn)


def _evaluator(op_name: str) -> EvalFn | None:
    kind = op_kinds().get(op_name)
    return None if kind is None else kind.evaluator


def has_evaluator(op_name: str) -> bool:
    """Whether ``evaluate`` knows the op."""
    return _evaluator(op_name) is not None


def evaluate(op: OpSpec, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The op's results on ``inputs`` (one array per operand, scalars rank 0)."""
    fn = _evaluator(op.name)
    if fn is None:
        raise NoEvaluatorError(f"no reference evaluator for '{op.name}'")
    op.check_operand_count(len(inputs))
    arrays = [np.asarray(x) for x in inputs]
    for x, t in zip(arrays, op.operands, strict=True):
        if tuple(x.shape) != t.shape:
            raise ValueError(f"'{op.name}': operand of shape {x.shape}, type says {t}")
    outs = list(fn(op, arrays))
    if len(outs) != len(op.results):
        raise ValueError(f"'{op.name}' evaluator gave {len(outs)} results")
    typed = []
    for y, t in zip(outs, op.results, strict=True):
        y = np.asarray(y).astype(numpy_dtype(t.element), copy=False)
        if tuple(y.shape) != t.shape:
            raise ValueError(f"'{op.name}': result of shape {y.shape}, type says {t}")
        typed.append(y)
    return typed
