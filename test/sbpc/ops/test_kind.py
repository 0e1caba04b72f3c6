"""The op kind registry: one record per op name carrying all of its facets.

A built-in op's record gathers what four layers registered (rules, local op
and evaluator in ``sbpc.ops``, the JAX emitter in ``sbpc.jax_backend``, the
IR extractor in ``sbpc.passes.bridge``); a made-up dialect's op registered
through the public functions alone runs through the whole pipeline of plain
data: IR -> OpSpec -> signatures -> simulated devices -> JAX text.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from xdsl.dialects.builtin import FloatAttr, TensorType, f32
from xdsl.ir import Block
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
)

import sbpc.jax_backend.ops as jax_ops
from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, P, S
from sbpc.algebra.signature import Signature
from sbpc.algebra.tensor_type import TensorType as PlainTensorType
from sbpc.ops.builtins import op_kinds
from sbpc.ops.derive import Factor, factor_signatures, linear
from sbpc.ops.evaluate import register_evaluator
from sbpc.ops.kind import FACETS, OP_KINDS, OpKinds
from sbpc.ops.registry import (
    has_rule,
    nd_signatures,
    register_local,
    register_rule,
    registered_ops,
)
from sbpc.ops.spec import OpSpec
from sbpc.passes.bridge.ops import extracts, op_spec_of
from sbpc.program import Arg, OpInstr, Program, Result
from sbpc.simulator.execute import evaluate_whole, simulate


@pytest.mark.parametrize("name", ["stablehlo.iota", "arith.constant"])
def test_a_builtin_record_carries_all_five_facets(name: str) -> None:
    kind = op_kinds().get(name)
    assert kind is not None and kind.name == name
    assert kind.facets() == list(FACETS)


def test_facets_come_from_their_layers() -> None:
    kind = op_kinds().get("stablehlo.add")
    assert kind is not None
    assert kind.evaluator is not None and kind.evaluator.__module__.startswith(
        "sbpc.ops."
    )
    assert kind.jax_emitter is not None
    assert kind.jax_emitter.__module__ == "sbpc.jax_backend.elementwise"
    assert kind.ir_extractor is not None
    assert kind.ir_extractor.__module__ == "sbpc.passes.bridge.ops"
    assert kind.local is None  # elementwise: local types only


def test_tables_merge_keeping_what_is_there() -> None:
    mine, theirs = OpKinds(), OpKinds()
    rule_a, rule_b = (lambda op: []), (lambda op: [])
    mine.add_rule("d.op", rule_a)
    mine.set("d.op", "evaluator", "mine")  # type: ignore[arg-type]
    theirs.add_rule("d.op", rule_b)
    theirs.set("d.op", "evaluator", "theirs")  # type: ignore[arg-type]
    theirs.set("d.op", "local", "theirs")  # type: ignore[arg-type]
    before = mine.version
    mine.merge(theirs, keep_existing=True)
    kind = mine.get("d.op")
    assert kind is not None
    assert kind.rules == [rule_a, rule_b]
    assert (kind.evaluator, kind.local) == ("mine", "theirs")
    assert mine.version > before
    mine.remove_rule("d.op")
    assert mine.names("rules") == [] and mine.names("local") == ["d.op"]


# --- a made-up dialect's op, end to end ---------------------------------------

NAME = "test_kind.scale"


@irdl_op_definition
class ScaleOp(IRDLOperation):
    """``y = factor * x``: a third-party op with an attribute."""

    name = NAME
    x = operand_def(TensorType)
    y = result_def(TensorType)
    factor = prop_def(FloatAttr)


@pytest.fixture
def scale() -> Iterator[None]:
    """Every facet of ``test_kind.scale``, through the public functions only."""

    @register_rule(NAME)
    def rule(op: OpSpec) -> list[Signature]:
        rank = op.results[0].rank
        return factor_signatures(Factor((k,), (k,)) for k in range(rank)) + linear(
            1, 1, (0,)
        )

    register_local(NAME, lambda op, local, sig, h, coord: local)
    register_evaluator(NAME, lambda op, xs: [xs[0] * op.attr("factor")])
    jax_ops.register_emitter(
        NAME, lambda op, args, ctx, dyn: [f"{args[0]} * {op.attr('factor')!r}"]
    )
    extracts(ScaleOp)(lambda op, spec: {"factor": op.factor.value.data})
    yield
    OP_KINDS.remove(NAME)


def test_a_third_party_op_runs_end_to_end(scale: None) -> None:
    kind = op_kinds().get(NAME)
    assert kind is not None and kind.facets() == list(FACETS)
    assert has_rule(NAME) and NAME in registered_ops()
    assert NAME in jax_ops.emitted_ops()

    # IR -> OpSpec through the extractor.
    t = TensorType(f32, [8, 4])
    x = Block(arg_types=[t]).args[0]
    ir = ScaleOp.create(
        operands=[x], result_types=[t], properties={"factor": FloatAttr(3.0, f32)}
    )
    op = op_spec_of(ir)
    plain = PlainTensorType((8, 4), "f32")
    assert op == OpSpec(NAME, [plain], [plain], {"factor": 3.0})

    # Signatures from the rule, run on simulated devices by the evaluator.
    hierarchy = (2, 2)
    sigs = nd_signatures(op, hierarchy)
    assert ((S(0), S(1)),) in {sig.inputs for sig in sigs}
    assert ((P, B),) in {sig.outputs for sig in sigs}
    placement = Placement.of_size(hierarchy)
    x_value = np.arange(32, dtype=np.float32).reshape(8, 4)
    for sig in sigs:
        program = Program(
            "main", placement, types={0: op.operands[0], 1: op.results[0]}
        )
        program.args.append(Arg(0, sig.inputs[0], placement))
        program.body.append(OpInstr(op, sig, (0,), (1,), placement))
        program.results.append(Result(1, sig.outputs[0], placement))
        (got,) = simulate(program, [x_value])
        want = evaluate_whole(program, [x_value])[0]  # the evaluator, unsharded
        np.testing.assert_array_equal(want, 3.0 * x_value)
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=str(sig))

    # And written as JAX.
    assert jax_ops.op_expressions(op, ["a"], ctx=None) == ["a * 3.0"]  # type: ignore[arg-type]


def test_a_removed_op_is_forgotten_by_every_facet(scale: None) -> None:
    op = OpSpec(NAME, [PlainTensorType((4,), "f32")], [PlainTensorType((4,), "f32")])
    assert len(nd_signatures(op, (2,))) > 1
    OP_KINDS.remove(NAME)
    assert not has_rule(NAME) and not jax_ops.has_emitter(NAME)
    assert nd_signatures(op, (2,)) == [Signature(((B,),), ((B,),))]  # memo dropped
