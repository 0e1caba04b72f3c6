"""The built-in op tables: every rule module's, merged under earlier registrations."""

from __future__ import annotations

import importlib
import pkgutil

import sbpc.ops
from sbpc.ops.builtins import RULE_MODULES, register_builtins
from sbpc.ops.kind import OpKinds


def test_every_rule_module_with_a_table_is_merged() -> None:
    """A new rule module that fills ``BUILTINS`` but is not listed would be
    silently ignored; this names it."""
    with_table = set()
    for info in pkgutil.iter_modules(sbpc.ops.__path__):
        module = importlib.import_module(f"sbpc.ops.{info.name}")
        if isinstance(getattr(module, "BUILTINS", None), OpKinds):
            with_table.add(module.__name__)
    listed = {m.__name__ for m in RULE_MODULES}
    assert with_table == listed


def test_register_builtins_keeps_what_was_registered_first() -> None:
    kinds = OpKinds()
    kinds.set("stablehlo.add", "evaluator", "mine")  # type: ignore[arg-type]
    register_builtins(kinds)
    add = kinds.get("stablehlo.add")
    assert add is not None and add.evaluator == "mine" and add.rules
    iota = kinds.get("stablehlo.iota")
    assert iota is not None and iota.local is not None and iota.evaluator is not None
