"""The numbers of every emitted program that runs, against an unsharded reference.

``sbpc-opt -t jax`` emits a module whose ``self_check`` runs the sharded
program (``build``) and the unsharded one (``reference``: the same ops on
whole arrays, one device, no layouts and no collectives) on random inputs
and compares them.  ``check_programs`` runs it on every program of a
successful run's output (one per chunk with ``--split-input-file``),
in-process: a mismatch is a wrong number, an exception is a program that
does not run.  Programs that need more devices than JAX has here, or inputs
too large to run in a fuzzing budget, are skipped (and counted).
"""

from __future__ import annotations

import contextlib
import io
import math
import sys
import types
from dataclasses import dataclass

# The largest program inputs run here (elements over all arguments).
MAX_ELEMENTS = 1 << 20


@dataclass
class Checked:
    """What the numeric checks of one run found."""

    checked: int = 0
    skipped: int = 0
    wrong: list[str] | None = None  # why, per program that went wrong

    def add_wrong(self, why: str) -> None:
        self.wrong = [*(self.wrong or []), why]


def programs(output: str) -> list[str]:
    """The emitted programs in a run's output (``// -----`` between chunks)."""
    chunks = output.split("// -----\n")
    return [c for c in chunks if "def self_check(" in c]


def check_programs(output: str) -> Checked:
    """Run every program's ``self_check`` (seed 0)."""
    found = Checked()
    for n, source in enumerate(programs(output)):
        module = types.ModuleType(f"sbpc_fuzz_program_{n}")
        sys.modules[module.__name__] = module  # as sbpc.jax loads it
        try:
            _check(source, module, n, found)
        finally:
            del sys.modules[module.__name__]
    return found


def _check(source: str, module: types.ModuleType, n: int, found: Checked) -> None:
    import jax

    try:
        code = compile(source, f"<emitted program {n}>", "exec")
    except SyntaxError as e:
        found.add_wrong(f"program {n} is not Python: {e}")
        return
    try:
        exec(code, module.__dict__)
    except Exception as e:
        found.add_wrong(f"program {n} does not load: {type(e).__name__}: {e}")
        return
    arg_types = getattr(module, "ARG_TYPES", ())
    elements = sum(math.prod(shape) for shape, _ in arg_types)
    if jax.device_count() < module.N_DEVICES or elements > MAX_ELEMENTS:
        found.skipped += 1
        return
    said = io.StringIO()
    try:
        with contextlib.redirect_stdout(said):
            status = module.self_check()
    except Exception as e:
        if _reference_fails(module):  # the input itself cannot run here
            found.skipped += 1
            return
        found.add_wrong(f"program {n} fails when run: {type(e).__name__}: {e}")
        return
    found.checked += 1
    if status != 0:
        found.add_wrong(f"program {n}: {said.getvalue().strip()}")


def _reference_fails(module: types.ModuleType) -> bool:
    """Whether the unsharded program fails too: then the input is what
    this backend cannot run (a dot algorithm XLA's CPU lacks), not sbpc's
    distribution of it."""
    try:
        module.reference(*module.random_args(0))
    except Exception:
        return True
    return False
