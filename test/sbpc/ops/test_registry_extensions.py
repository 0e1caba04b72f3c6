"""The op registry as other compilers extend it: ops without a rule, a
made-up dialect's rule and evaluator, wrong rules caught by the checker,
registrations made before the built-ins load, and N-D products that must not
pair pieces that can be infinite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sbpc.algebra.sbp import B, P, Partial, S
from sbpc.algebra.signature import Signature, parse_signature
from sbpc.algebra.tensor_type import TensorType
from sbpc.ops.check import SignatureCheckError, check_signature, random_inputs
from sbpc.ops.derive import Factor, factor_signatures, linear, sig1d
from sbpc.ops.evaluate import register_evaluator
from sbpc.ops.registry import (
    has_rule,
    nd_signatures,
    register_rule,
    rules_for,
    signatures_1d,
    unregister_rule,
)
from sbpc.ops.spec import OpSpec

X = TensorType((8, 16), "f32")


def test_op_without_rule_gets_only_broadcast() -> None:
    op = OpSpec("test.unknown", [X, X], [X])
    assert not has_rule(op) and rules_for(op) == []
    assert signatures_1d(op) == [sig1d([B, B], [B])]
    assert nd_signatures(op, (2, 2)) == [
        parse_signature("([B, B], [B, B]) -> ([B, B])")
    ]


@pytest.fixture
def scale_op():
    """``test.scale``: multiply by a constant attribute, a made-up dialect's op."""

    @register_rule("test.scale")
    def rule(op: OpSpec) -> list[Signature]:
        rank = op.results[0].rank
        sigs = factor_signatures(Factor((k,), (k,)) for k in range(rank))
        return sigs + linear(1, 1, (0,))

    register_evaluator("test.scale", lambda op, xs: [xs[0] * op.attrs["factor"]])
    yield OpSpec("test.scale", [X], [X], {"factor": 3.0})
    unregister_rule("test.scale")


def test_custom_dialect_rule_is_used(scale_op: OpSpec) -> None:
    assert has_rule("test.scale")
    sigs = signatures_1d(scale_op)
    assert sigs == [
        sig1d([S(0)], [S(0)]),
        sig1d([S(1)], [S(1)]),
        sig1d([P], [P]),
        sig1d([B], [B]),
    ]
    inputs = random_inputs(scale_op, np.random.default_rng(0))
    for h in ((4,), (2, 2)):
        for sig in nd_signatures(scale_op, h):
            check_signature(scale_op, sig, h, inputs)


def test_wrong_rules_are_caught(scale_op: OpSpec) -> None:
    inputs = random_inputs(scale_op, np.random.default_rng(0))

    def wrong(op: OpSpec) -> list[Signature]:
        # Claims a row split yields a column split, and that scaling by a
        # positive factor turns P(max) into P(min).
        return [sig1d([S(0)], [S(1)]), sig1d([Partial("max")], [Partial("min")])]

    register_rule("test.scale", wrong)
    try:
        for bad in wrong(scale_op):
            assert bad in signatures_1d(scale_op)
            with pytest.raises(SignatureCheckError):
                check_signature(scale_op, bad, (2,), inputs)
    finally:
        unregister_rule("test.scale", wrong)
    assert sig1d([S(0)], [S(1)]) not in signatures_1d(scale_op)


def test_rule_with_wrong_arity_is_reported() -> None:
    register_rule("test.bad_arity", lambda op: [sig1d([B], [B])])
    try:
        with pytest.raises(ValueError, match="operands"):
            signatures_1d(OpSpec("test.bad_arity", [X, X], [X]))
    finally:
        unregister_rule("test.bad_arity")


def test_registrations_before_first_use_survive_builtins(tmp_path) -> None:
    # In a fresh interpreter (built-ins not loaded yet) a compiler replaces
    # the local semantics and evaluator of a built-in op; loading must keep them,
    # also when a module that reads the rule modules (the JAX back end) is
    # imported after the registration and before first use.
    script = """
import numpy as np
from sbpc.ops.registry import register_local, local_op, nd_signatures
from sbpc.ops.evaluate import register_evaluator, evaluate
from sbpc.ops.spec import OpSpec
from sbpc.algebra.tensor_type import TensorType
register_local("stablehlo.iota", lambda op, local, sig, h, c: local.replace(mine=1))
register_evaluator("stablehlo.iota", lambda op, xs: [np.zeros(8)])
import sbpc.jax_backend.ops
op = OpSpec("stablehlo.iota", [], [TensorType((8,), "i32")], {"iota_dimension": 0})
sig = nd_signatures(op, (2,))[0]
assert local_op(op, sig, (2,), (1,)).attrs["mine"] == 1
assert not evaluate(op, [])[0].any()
print("kept")
"""
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(root)},
        check=False,
    )
    assert out.stdout.strip() == "kept", out.stderr


def test_nd_products_never_pair_infinite_pieces_in_arithmetic() -> None:
    """``(P(max), B) - (B, P(max))`` is exact for finite values only: a max piece
    may be -inf (a reduction's identity) and -inf - -inf is NaN.  Found by the
    pipeline test on the transformer's masked softmax."""
    t = TensorType((8, 8), "f32")
    sub = OpSpec("stablehlo.subtract", (t, t), (t,))
    pmax = Partial("max")
    mixed = Signature(((pmax, B), (B, pmax)), ((pmax, Partial("min")),))
    assert mixed not in nd_signatures(sub, (2, 2))
    # The same product of the 1-D facts stays for max (no arithmetic, no NaN).
    mx = OpSpec("stablehlo.maximum", (t, t), (t,))
    assert Signature(((pmax, B), (B, pmax)), ((pmax, pmax),)) in nd_signatures(
        mx, (2, 2)
    )
    # And the danger is real: pieces holding -inf give NaN where the value is finite.
    a_pieces = np.array([1.0, -np.inf])  # max = 1
    b_pieces = np.array([0.5, -np.inf])  # max = 0.5
    with np.errstate(invalid="ignore"):  # -inf - -inf: the NaN this is about
        grid = a_pieces[:, None] - b_pieces[None, :]
    assert np.isnan(grid).any()
