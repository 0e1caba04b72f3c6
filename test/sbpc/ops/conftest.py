"""Helpers of the op tests: a JAX program run op by op on sbpc's numpy
references."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax
import numpy as np
import pytest

from sbpc.jax import _parse
from sbpc.ops.evaluate import evaluate
from sbpc.passes.bridge.ops import op_spec_of
from sbpc.passes.inline import SbpInlinePass
from sbpc.passes.pipeline import default_context


def _references(
    fn: Callable[..., object], args: Sequence[np.ndarray], name: str
) -> list[np.ndarray]:
    module = _parse(jax.jit(fn).lower(*args).as_text(), name)
    SbpInlinePass().apply(default_context(), module)
    env: dict[object, np.ndarray] = {}
    main = next(op for op in module.walk() if op.name == "func.func")
    for arg, value in zip(main.body.blocks.first.args, args, strict=True):
        env[arg] = np.asarray(value)
    for op in main.body.blocks.first.ops:
        if op.name == "func.return":
            return [env[v] for v in op.operands]
        ys = evaluate(op_spec_of(op), [env[v] for v in op.operands])
        env.update(zip(op.results, ys, strict=True))
    raise AssertionError("no func.return")


@pytest.fixture
def references() -> Callable[..., list[np.ndarray]]:
    """``references(fn, args, name)``: ``fn``'s lowered program (inlined) run
    op by op on sbpc's numpy references; its results."""
    return _references
