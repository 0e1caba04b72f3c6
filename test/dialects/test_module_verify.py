"""``verify_module`` accepts and rejects what ``module.verify()`` does, and
verifies each distinct plain op once."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.utils.exceptions import VerifyException

from sbpc.dialects import module_verify
from sbpc.dialects.module_verify import verify_module
from sbpc.passes.pipeline import default_context, parse_module

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "stablehlo" / "transformer_train_step.mlir"

ADDS = """
func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.add %a, %b : tensor<4x8xf32>
  %1 = stablehlo.add %a, %b : tensor<4x8xf32>
  %2 = stablehlo.add %0, %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
"""


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[Operation]:
    """Every op ``Operation.verify`` is called on, from now on."""
    verified: list[Operation] = []
    verify = Operation.verify

    def counted(self: Operation, verify_nested_ops: bool = True) -> None:
        verified.append(self)
        verify(self, verify_nested_ops)

    monkeypatch.setattr(Operation, "verify", counted)
    return verified


def _error(check, module) -> str | None:  # type: ignore[no-untyped-def]
    try:
        check(module)
    except (VerifyException, ValueError) as e:
        return str(e)
    return None


def test_a_model_verifies_with_each_distinct_plain_op_verified_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = parse_module(EXAMPLE.read_text(), default_context())
    ops = list(module.walk())
    verified = _counting(monkeypatch)
    verify_module(module)
    assert len(verified) < len(ops) / 2  # the model repeats its ops
    keys = [module_verify._key(op) for op in ops]
    distinct = {k for k in keys if k is not None}
    assert len(verified) == len(distinct) + keys.count(None)


def test_an_op_that_differs_from_a_verified_one_is_verified() -> None:
    """The second add is the first's twin but for its result type (a broken
    op): it is checked, and fails as ``module.verify()`` fails."""
    module = parse_module(
        ADDS.replace(
            "%1 = stablehlo.add %a, %b : tensor<4x8xf32>",
            '%1 = "stablehlo.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>)'
            " -> tensor<4x8xf16>",
        ).replace("%2 = stablehlo.add %0, %1", "%2 = stablehlo.add %0, %0"),
        default_context(),
    )
    want = _error(lambda m: m.verify(), module)
    assert want is not None and "stablehlo.add" in want
    assert _error(verify_module, module) == want


def test_a_twin_at_the_end_of_its_block_is_checked_as_a_terminator() -> None:
    module = parse_module(ADDS, default_context())
    ret = next(op for op in module.walk() if op.name == "func.return")
    ret.detach()
    ret.erase()
    want = _error(lambda m: m.verify(), module)
    assert want is not None and "terminator" in want
    assert _error(verify_module, module) == want


def test_a_twin_with_an_erased_operand_is_refused() -> None:
    """Erasing the first add unsafely leaves the third (its twin, verified
    as the second) reading an erased value."""
    module = parse_module(ADDS, default_context())
    first, second, third = [op for op in module.walk() if op.name == "stablehlo.add"]
    assert module_verify._key(first) == module_verify._key(third) is not None
    first.detach()
    first.erase(safe_erase=False)
    want = _error(lambda m: m.verify(), module)
    assert want is not None and "Erased" in want
    assert _error(verify_module, module) == want
    assert module_verify._key(second) is not None


def test_ops_whose_verifier_reads_their_context_are_verified_each_time() -> None:
    module = parse_module(ADDS, default_context())
    func_op = next(op for op in module.walk() if op.name == "func.func")
    ret = next(op for op in module.walk() if op.name == "func.return")
    assert module_verify._key(module) is None
    assert module_verify._key(func_op) is None
    assert module_verify._key(ret) is None  # not a local verifier, and last


def test_the_local_verifiers_read_no_context() -> None:
    """An op of a ``LOCAL_VERIFIERS`` module whose verifier reads its
    parents, its operands' producers, its uses or symbols would be wrongly
    taken for its twin: each such module's op classes (their verifiers and
    helpers, as written; and traits) are read here for those reads, so a new one fails this test until its module
    leaves the list (or the read goes)."""
    context = ("parent", ".owner", ".uses", "walk(", "lookup", "symbol")
    checked = 0
    for name in sorted(module_verify.LOCAL_VERIFIERS):
        module = importlib.import_module(name)
        for cls in vars(module).values():
            if not (
                isinstance(cls, type)
                and issubclass(cls, IRDLOperation)
                and cls.__module__ == name
            ):
                continue
            op_def = cls.get_irdl_definition()
            if op_def is None:
                continue  # an abstract base: its verifier is read with its ops
            for trait in op_def.traits:
                assert type(trait).__name__ not in ("HasParent", "HasAncestor"), cls
            for base in cls.__mro__:  # the op's class and its bases, as written
                if not base.__module__.startswith("sbpc."):
                    continue
                source = inspect.getsource(base)  # (xDSL wraps ``verify_``)
                if "regions" in source or ".blocks" in source:
                    continue  # reads its own regions: never keyed (``_key``)
                checked += 1
                for read in context:
                    assert read not in source, f"{base.__name__} reads {read}"
    assert checked >= 20
