"""Makes ``jax_programs.py`` importable as ``jax_programs`` for this folder's tests.

pytest runs with ``--import-mode=importlib``, so test folders are not
packages and a shared helper cannot be imported by a relative name; conftest
files load before the tests they cover, so registering it here is enough.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if "jax_programs" not in sys.modules:
    _spec = importlib.util.spec_from_file_location(
        "jax_programs", Path(__file__).parent / "jax_programs.py"
    )
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["jax_programs"] = _module
    _spec.loader.exec_module(_module)
