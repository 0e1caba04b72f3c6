"""xDSL's count check with the fixed-count fast path accepts and rejects
exactly what xDSL's own check does, with the same errors."""

from __future__ import annotations

from pathlib import Path

from xdsl.irdl import IRDLOperation, operations
from xdsl.irdl.operations import VarIRConstruct
from xdsl.utils.exceptions import VerifyException

from sbpc.dialects import _xdsl_verify_speedups
from sbpc.passes.pipeline import default_context, parse_module

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "stablehlo" / "transformer_train_step.mlir"


def _outcome(check, op, op_def, construct) -> str | None:  # type: ignore[no-untyped-def]
    try:
        check(op, op_def, construct)
    except VerifyException as e:
        return str(e)
    return None


def test_the_fast_path_is_installed_and_idempotent() -> None:
    fast = operations.verify_variadic_size
    _xdsl_verify_speedups.install()
    assert operations.verify_variadic_size is fast
    assert getattr(fast, "__wrapped__", None) is not None


def test_every_op_against_every_definition_gives_xdsls_answer() -> None:
    module = parse_module(EXAMPLE.read_text(), default_context())
    ops = {type(op): op for op in module.walk()}  # one op per class
    defs = [cls.get_irdl_definition() for cls in ops if issubclass(cls, IRDLOperation)]
    assert len(defs) >= 20
    fast = operations.verify_variadic_size
    slow = fast.__wrapped__
    accepted = rejected = 0
    for op in ops.values():
        for op_def in defs:  # its own definition, and others' (wrong counts)
            for construct in VarIRConstruct:
                want = _outcome(slow, op, op_def, construct)
                assert _outcome(fast, op, op_def, construct) == want
                accepted += want is None
                rejected += want is not None
    assert accepted and rejected
