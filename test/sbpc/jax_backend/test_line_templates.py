"""Op lines from templates are the lines the emitter writes op by op.

Every op kind of the rule catalogue, under two sampled signatures on 2x4,
appears three times in one program: twice with fresh operands (the
second from the template) and once naming one value for every operand of
the same type and layout.  The emitted module must be byte for byte the
module written without templates, and the templates must have been used.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from pathlib import Path

import jax_programs as jp
import numpy as np
import pytest

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B
from sbpc.algebra.tensor_type import TensorType
from sbpc.jax_backend import emit
from sbpc.jax_backend.emit import emit_jax
from sbpc.jax_backend.line_templates import LineTemplates, op_key
from sbpc.ops.registry import nd_signatures
from sbpc.ops.spec import OpSpec

rules = jp.import_path(
    "sbpc_test_op_rules_cases",
    Path(__file__).parent.parent / "ops" / "test_registry.py",
)


def catalogue_program(hierarchy: tuple[int, ...]) -> jp.Builder:
    b = jp.Builder(Placement.of_size(hierarchy))
    for cid, op, _ in rules.CASES:
        sigs = nd_signatures(op, hierarchy)
        rng = random.Random(f"{cid}{hierarchy}")
        for sig in rng.sample(sigs, min(2, len(sigs))):
            for _ in range(2):
                args = [
                    b.arg(t, nd) for t, nd in zip(op.operands, sig.inputs, strict=True)
                ]
                for v in b.op(op, sig, args):
                    b.ret(v, (B,) * len(hierarchy))
            pairs = set(zip(op.operands, sig.inputs, strict=True))
            if len(op.operands) > 1 and len(pairs) == 1:
                one = b.arg(op.operands[0], sig.inputs[0])
                for v in b.op(op, sig, [one] * len(op.operands)):
                    b.ret(v, None)
    return b


@pytest.mark.parametrize("hierarchy", [(2, 4)], ids=str)
def test_templated_module_is_the_module_written_op_by_op(
    hierarchy: tuple[int, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    program = catalogue_program(hierarchy).program
    used: list[LineTemplates] = []

    class Recorded(LineTemplates):
        def __init__(self) -> None:
            super().__init__()
            used.append(self)

    monkeypatch.setattr(emit, "LineTemplates", Recorded)
    templated = emit_jax(program)
    # Without templates: every op's lines written by the emitter itself.
    monkeypatch.setattr(
        LineTemplates, "lines", lambda self, key, names, write: write(list(names))
    )
    assert templated == emit_jax(program)
    # Each op's second copy (local and reference lines) at least.
    assert used[0].hits >= len(rules.CASES)


def test_keys_tell_apart_what_python_calls_equal() -> None:
    t = TensorType((4,), "f32")

    def key(value: object) -> Hashable | None:
        return op_key(OpSpec("x.y", (t,), (t,), {"a": value}))

    assert key(1) != key(True) != key(1.0)
    assert key((1, 2)) != key([1, 2])
    assert key(np.array([1, 2], np.int32)) != key(np.array([1, 2], np.int64))
    assert key(np.array([1, 2])) == key(np.array([1, 2]))
    assert key({"k": np.zeros(2)}) == key({"k": np.zeros(2)})
    assert key(object()) is not None  # hashable: its identity is its value
    assert key({1: {2, 3}}) is None  # a set inside a dict: no key, no template
