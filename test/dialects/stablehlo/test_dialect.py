"""The assembled StableHLO dialect: every op JAX emits for the examples is in it."""

from __future__ import annotations

from xdsl.dialects import func

from sbpc.dialects import stablehlo as shlo


def test_exported_program_uses_only_dialect_ops(parse, program):
    _, text = program
    module = parse(text)
    names = {op.name for op in module.walk()}
    known = {op.name for op in shlo.StableHLO.operations}
    others = names - known
    assert others <= {"builtin.module", "func.func", "func.call", "func.return"}
    assert any(isinstance(op, func.CallOp) for op in module.walk())


def test_exports_are_up_to_date(examples_dir, program):
    """The committed .mlir files are what the export script writes today."""
    import runpy

    name, committed = program
    script = runpy.run_path(
        str(examples_dir / "export_stablehlo.py"), run_name="export"
    )
    assert script["export"](name) == committed, name
