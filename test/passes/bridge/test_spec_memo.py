"""Each op's ``OpSpec`` is built once while the op keeps what the spec reads,
and the pipeline emits byte for byte what it emits without the memo."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.ir import Operation

from sbpc.algebra.placement import Placement
from sbpc.algebra.sbp import B, S
from sbpc.algebra.signature import Signature
from sbpc.dialects import sbp as sbp_dialect
from sbpc.dialects import stablehlo as shlo
from sbpc.ops.kind import OP_KINDS
from sbpc.passes.bridge import ops as bridge_ops
from sbpc.passes.bridge import spec_memo
from sbpc.passes.bridge.ops import built_op_spec, is_tensor_op, op_spec_of
from sbpc.passes.bridge.program import main_function
from sbpc.passes.jax_target import jax_source
from sbpc.passes.pipeline import default_context, parse_module, run_passes

ROOT = Path(__file__).resolve().parents[3]
BLOCK = ROOT / "examples" / "stablehlo" / "transformer_block.mlir"
MLP = ROOT / "examples" / "stablehlo" / "mlp.mlir"


def _module(path: Path = BLOCK) -> object:
    module = parse_module(path.read_text(), default_context())
    sbp_dialect.set_module_placement(module, Placement.of_size((2, 4)))
    sbp_dialect.set_nd_sbp_arg_attr(main_function(module), 0, (S(0), B))
    return module


def _tensor_ops(module: object) -> list[Operation]:
    return [op for op in module.walk() if is_tensor_op(op)]  # type: ignore[attr-defined]


def test_the_memo_gives_the_built_spec_and_keeps_it_across_a_signature() -> None:
    ops = _tensor_ops(_module())
    assert ops
    for op in ops:
        spec = op_spec_of(op)
        assert spec == built_op_spec(op)
        if op.regions:
            continue
        n_in, n_out = len(op.operands), len(op.results)
        sig = Signature(((B, B),) * n_in, ((B, B),) * n_out)
        sbp_dialect.set_signature(op, sig)  # what write-back changes
        assert op_spec_of(op) is spec


def test_a_changed_op_gets_a_new_spec() -> None:
    module = parse_module(
        "func.func @f(%a: tensor<4x8xf32>, %b: tensor<2x3xf32>) -> tensor<8x4xf32> {\n"
        "  %t = stablehlo.transpose %a, dims = [1, 0] "
        ": (tensor<4x8xf32>) -> tensor<8x4xf32>\n"
        "  func.return %t : tensor<8x4xf32>\n}\n",
        default_context(),
    )
    op = next(o for o in module.walk() if isinstance(o, shlo.TransposeOp))
    before = op_spec_of(op)
    assert before.attrs["permutation"] == (1, 0)
    # An equal property in a new object: equal key, the same spec.
    perm = op.properties["permutation"]
    op.properties["permutation"] = type(perm)(perm.elt_type, perm.data)
    assert op_spec_of(op) is before
    # Another property value: rebuilt.
    op.properties["permutation"] = DenseArrayBase.from_list(i64, [0, 1])
    assert op_spec_of(op).attrs["permutation"] == (0, 1)
    # An operand of another type: rebuilt.
    op.operands[0] = main_function(module).args[1]
    changed = op_spec_of(op)
    assert changed.operands[0].shape == (2, 3)
    assert changed == built_op_spec(op)


def test_ops_with_equal_content_share_one_spec() -> None:
    module = parse_module(
        "func.func @f(%a: tensor<4x8xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {\n"
        "  %t = stablehlo.transpose %a, dims = [1, 0] "
        ": (tensor<4x8xf32>) -> tensor<8x4xf32>\n"
        "  %u = stablehlo.transpose %a, dims = [1, 0] "
        ": (tensor<4x8xf32>) -> tensor<8x4xf32>\n"
        "  %v = stablehlo.negate %t : tensor<8x4xf32>\n"
        "  func.return %u, %v : tensor<8x4xf32>, tensor<8x4xf32>\n}\n",
        default_context(),
    )
    t, u, v = (o for o in module.walk() if is_tensor_op(o))
    assert op_spec_of(t) is op_spec_of(u)
    assert op_spec_of(v) is not op_spec_of(t)
    assert op_spec_of(v) == built_op_spec(v)


def test_the_pipeline_emits_the_same_program_without_the_memo(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def pipeline() -> tuple[str, str]:
        module = _module(MLP)
        run_passes(
            module,
            "sbp-inline,sbp-propagate{strategy=optimal},sbp-lower-boxing",
            default_context(),
        )
        return str(module), jax_source(module)

    with_memo = pipeline()
    monkeypatch.setattr(bridge_ops, "remembered_spec", lambda op, build: build(op))
    assert pipeline() == with_memo


def test_a_large_constant_is_not_kept_alive_by_the_memo() -> None:
    module = parse_module(
        "func.func @f() -> (tensor<64x64xf32>, tensor<4xf32>) {\n"
        "  %w = stablehlo.constant dense<1.5> : tensor<64x64xf32>\n"
        "  %s = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>\n"
        "  func.return %w, %s : tensor<64x64xf32>, tensor<4xf32>\n}\n",
        default_context(),
    )
    w, s = [o for o in module.walk() if isinstance(o, shlo.ConstantOp)]
    assert op_spec_of(w) == built_op_spec(w)
    assert op_spec_of(s) == built_op_spec(s)
    shared = {id(spec) for spec in spec_memo._SPECS.values()}
    assert id(op_spec_of(s)) in shared  # 4 elements: shared by content
    assert id(op_spec_of(w)) not in shared  # 4096 elements: built per call
    held = [o for objects, _ in spec_memo._BY_IDENTITY.values() for o in objects]
    assert not any(o is w.value for o in held)  # nor kept by identity
    assert any(o is s.value for o in held)


def test_an_extractor_registered_later_is_used() -> None:
    module = parse_module(
        "func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n"
        "  %n = stablehlo.negate %a : tensor<8xf32>\n"
        "  func.return %n : tensor<8xf32>\n}\n",
        default_context(),
    )
    (op,) = [o for o in module.walk() if isinstance(o, shlo.NegOp)]
    before = op_spec_of(op)
    kind = OP_KINDS.entry(op.name)
    saved = kind.ir_extractor
    OP_KINDS.set(op.name, "ir_extractor", lambda op, spec: {"marked": True})
    try:
        assert op_spec_of(op).attrs == {"marked": True}
    finally:
        OP_KINDS.set(op.name, "ir_extractor", saved)
    assert op_spec_of(op) == before
