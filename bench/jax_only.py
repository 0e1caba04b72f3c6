"""What the benches that run where sbpc is not installed share (JAX and
numpy only): the Llama example loaded by path, emitted modules loaded from
files, and a compiled program's bytes as ``memory_analysis`` counts them.

``examples/models`` is a package whose ``__init__`` imports sbpc; a machine
lent for a measurement has JAX but not sbpc, so ``llama.py`` is loaded by
its path.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

_LLAMA = Path(__file__).resolve().parents[1] / "examples" / "models" / "llama.py"


def load_module(path: Path, name: str | None = None) -> ModuleType:
    """The Python file at ``path`` as a module (registered as ``name``, so
    that its dataclasses find their module)."""
    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    module = importlib.util.module_from_spec(spec)
    if name:
        sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


llama = sys.modules.get("llama") or load_module(_LLAMA, "llama")


def compiled_bytes(compiled) -> tuple[float, float]:
    """(argument + output - alias + temporaries, temporaries) per device."""
    m = compiled.memory_analysis()
    total = (
        m.argument_size_in_bytes
        + m.output_size_in_bytes
        - m.alias_size_in_bytes
        + m.temp_size_in_bytes
    )
    return total, m.temp_size_in_bytes


def plan_facts(directory: str | Path) -> tuple[Path, dict]:
    """(the directory, its ``plan.json``): what ``emit`` wrote for ``run``."""
    out = Path(directory)
    return out, json.loads((out / "plan.json").read_text())
